// The access log, on a bare Hono app: its line says what the answer was, and is written after the answer is
// made, not while the answer waits for it.

import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { accessLog } from "../../src/http/access-log.js";
import type { AppEnv } from "../../src/http/env.js";
import { requestId } from "../../src/http/request-id.js";
import { createLogger } from "../../src/logger.js";

function app(lines: Record<string, unknown>[]) {
  const hono = new Hono<AppEnv>();
  hono.use("*", requestId());
  hono.use("*", accessLog(createLogger("info", (line) => lines.push(JSON.parse(line)))));
  hono.get("/things/:id", (c) => c.json({ ok: true }, 201));
  return hono;
}

describe("accessLog", () => {
  it("writes a request's line after its answer is made, with the answer's route, status and request id", async () => {
    const lines: Record<string, unknown>[] = [];
    const answer = await app(lines).request("/things/secret-word?q=another-secret", {
      headers: { "x-request-id": "trace-7" },
    });
    expect(answer.status).toBe(201);
    expect(lines).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      message: "request",
      requestId: "trace-7",
      method: "GET",
      route: "/things/:id",
      status: 201,
    });
    expect(JSON.stringify(lines)).not.toContain("secret");
  });
});
