// The one error envelope and onError, on a bare Hono app with the request-id middleware, as the app and the
// Cloudflare Worker both mount them.

import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
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

  it("logs an unhandled error's class, code and stack frames, and none of the request's content", async () => {
    const lines: string[] = [];
    const hono = new Hono<RequestIdEnv>();
    hono.use("*", requestId());
    hono.get("/notes", (c) => {
      const words = c.req.query("q") ?? "";
      // A message quoting the request, with lines made to look like stack frames, and a cause that quotes it too.
      const cause = Object.assign(new Error(`driver saw ${words}`), { code: "SQLITE_BUSY" });
      throw new TypeError(`cannot read ${words}\n    at ${words} (${words}.ts:1:1)`, { cause });
    });
    hono.onError(onError(createLogger("debug", (line) => lines.push(line))));
    const server = serve({ fetch: hono.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const { port } = server.address() as AddressInfo;
    let requestIdSent = "";
    try {
      const response = await fetch(
        `http://127.0.0.1:${port}/notes?q=${encodeURIComponent("zanzibarquokka tide")}`,
      );
      expect(response.status).toBe(500);
      requestIdSent = response.headers.get("x-request-id") ?? "";
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? "";
    expect(line).not.toContain("zanzibarquokka");
    expect(line).not.toContain("tide");
    const logged = JSON.parse(line) as Record<string, string>;
    expect(logged).toMatchObject({
      level: "error",
      message: "unhandled error",
      error: "TypeError",
      errorClass: "TypeError",
      cause: "Error",
      causeCode: "SQLITE_BUSY",
    });
    expect(logged.requestId).toBe(requestIdSent);
    const frames = (logged.frames ?? "").split("\n");
    expect(frames.length).toBeGreaterThan(1);
    for (const frame of frames) expect(frame).toMatch(/^at \S/);
    // The frame that threw: this file's handler.
    expect(frames[0]).toContain("errors.test.ts");
    expect(logged.causeFrames ?? "").toContain("errors.test.ts");
  });
});
