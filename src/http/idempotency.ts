// The Idempotency-Key header, for any write route that opts in (placed after the team's auth): the same key
// with the same request within 24 h answers what the first answered and writes nothing again; the same key
// with another request is 422; while the first is still being answered, 409. Only a success is remembered
// (docs/decisions/0017-idempotency.md): a route's errors here store nothing, so their retry is simply run.

import type { MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { DomainError } from "../errors.js";
import type { IdempotencyService } from "../services/idempotency.js";
import type { AppEnv } from "./env.js";
import { errorResponse } from "./errors.js";

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Set on an answer that is the remembered answer of an earlier request (Stripe's name for it). */
export const REPLAYED_HEADER = "idempotent-replayed";

/** 1–255 printable ASCII characters: Stripe's limit, and room for a UUID or a client's own scheme. */
export const idempotencyKeyText = z
  .string()
  .regex(/^[\x20-\x7e]{1,255}$/, "must be 1–255 printable ASCII characters");

export function idempotent(service: IdempotencyService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header(IDEMPOTENCY_HEADER);
    if (given === undefined) return next();
    if (!idempotencyKeyText.safeParse(given).success) {
      throw new DomainError(
        "invalid_request",
        "Invalid request: Idempotency-Key must be 1–255 printable ASCII characters.",
      );
    }
    const url = new URL(c.req.url);
    const begun = await service.begin(c.get("team"), given, {
      method: c.req.method,
      target: `${url.pathname}${url.search}`,
      contentType: c.req.header("content-type") ?? "",
      // Read here and cached by hono, so the route's own parsing reads the same bytes.
      body: new Uint8Array(await c.req.arrayBuffer()),
    });
    if (begun.kind === "mismatch") {
      return errorResponse(
        c,
        "invalid_request",
        "This Idempotency-Key was used with another request body (or method, path or content type); " +
          "send a new key with a new request.",
        422,
      );
    }
    if (begun.kind === "in_progress") {
      throw new DomainError(
        "conflict",
        "A request with this Idempotency-Key is in progress; retry once it has been answered.",
      );
    }
    if (begun.kind === "replay") {
      const { status, contentType, body } = begun.answer;
      return c.body(body, status as ContentfulStatusCode, {
        ...(contentType ? { "content-type": contentType } : {}),
        [REPLAYED_HEADER]: "true",
      });
    }
    let completed = false;
    try {
      await next();
      const res = c.res;
      if (res.status >= 200 && res.status < 300) {
        await service.complete(begun.claim, {
          status: res.status,
          contentType: res.headers.get("content-type"),
          body: await res.clone().text(),
        });
        completed = true;
      }
    } finally {
      if (!completed) await service.release(begun.claim);
    }
  };
}
