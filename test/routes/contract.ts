// Contract assertions shared by the route tests: every success parsed by the route's own answer schema, every
// error by the one envelope with its status and code, and `x-request-id` on all of them.

import { expect } from "vitest";
import type { z } from "zod";
import type { Clock } from "../../src/clock.js";
import type { ErrorCode } from "../../src/errors.js";
import { type ErrorEnvelope, errorEnvelopeSchema } from "../../src/http/errors.js";
import { buildTestApp, type TestApp, type TestAppOptions } from "../support/app.js";

/** Parses a success answer with the route's schema after checking its status and request id. */
export async function expectOk<T extends z.ZodType>(
  res: Response,
  status: number,
  schema: T,
): Promise<z.infer<T>> {
  const text = await res.text();
  expect(res.status, `expected ${status}, got ${res.status}: ${text}`).toBe(status);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  return schema.parse(JSON.parse(text));
}

/** A 204: no body, and still a request id. */
export async function expectNoContent(res: Response): Promise<void> {
  const text = await res.text();
  expect(res.status, `expected 204, got ${res.status}: ${text}`).toBe(204);
  expect(text).toBe("");
  expect(res.headers.get("x-request-id")).toBeTruthy();
}

/** Checks an error answer: status, envelope shape, code, and the request id in header and body alike. */
export async function expectError(res: Response, status: number, code: ErrorCode): Promise<ErrorEnvelope> {
  const text = await res.text();
  expect(res.status, `expected ${status} ${code}, got ${res.status}: ${text}`).toBe(status);
  expect(res.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  const body = errorEnvelopeSchema.parse(JSON.parse(text));
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  const header = res.headers.get("x-request-id");
  expect(header).toBeTruthy();
  expect(body.error.requestId).toBe(header);
  return body;
}

/**
 * Runs `body` against a fresh app over a fresh `:memory:` database, closing both afterwards whatever
 * happens.
 */
export async function withApp<T>(
  body: (app: TestApp) => Promise<T>,
  options: TestAppOptions = {},
): Promise<T> {
  const app = await buildTestApp(options);
  try {
    return await body(app);
  } finally {
    app.close();
  }
}

/** A clock that moves one millisecond forward on every read, so creation order is createdAt order. */
export function tickingClock(start = Date.parse("2025-01-01T00:00:00.000Z")): Clock {
  let now = start;
  return {
    now: () => {
      now += 1;
      return new Date(now);
    },
  };
}

/** `n` copies of a string. */
export const times = (s: string, n: number): string => s.repeat(n);
