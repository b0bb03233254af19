// The one error envelope and onError, on a bare Hono app with the request-id middleware, as the app and the
// Cloudflare Worker both mount them.

import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { DomainError, errorCodes } from "../../src/errors.js";
import { errorEnvelopeSchema, onError, statusOf } from "../../src/http/errors.js";
import { type RequestIdEnv, requestId } from "../../src/http/request-id.js";
import { createLogger } from "../../src/logger.js";

function app(thrown: () => Error) {
  const lines: string[] = [];
  const hono = new Hono<RequestIdEnv>();
  hono.use("*", requestId());
  hono.get("*", () => {
    throw thrown();
  });
  hono.onError(onError(createLogger("debug", (line) => lines.push(line))));
  return { hono, lines };
}

describe("onError", () => {
  it("answers each domain error with its code's status, its message and the request id", async () => {
    for (const code of errorCodes) {
      const response = await app(() => new DomainError(code, "A message.")).hono.request("/", {
        headers: { "x-request-id": "rid-1" },
      });
      expect(response.status, code).toBe(statusOf[code]);
      expect(response.headers.get("x-request-id")).toBe("rid-1");
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(await response.json()).toEqual({ error: { code, message: "A message.", requestId: "rid-1" } });
    }
    expect(new DomainError("unauthorized").message).toBe("Missing or invalid credentials.");
  });

  it("maps the framework's statuses, and hides an unknown error's text", async () => {
    const malformed = await app(() => new HTTPException(400, { message: "Malformed JSON" })).hono.request(
      "/",
    );
    expect(await malformed.json()).toMatchObject({
      error: { code: "invalid_request", message: "Malformed JSON" },
    });
    const { hono, lines } = app(() => new TypeError("quoting zanzibarquokka"));
    const response = await hono.request("/");
    expect(response.status).toBe(500);
    const body = errorEnvelopeSchema.parse(await response.json());
    expect(body.error).toMatchObject({ code: "internal", message: "Internal error." });
    expect(body.error.requestId).toBe(response.headers.get("x-request-id"));
    expect(lines.join("\n")).not.toContain("zanzibarquokka");
    expect(lines.join("\n")).toContain("TypeError");
  });
});
