// The one error envelope, `{"error": {"code", "message", "requestId"}}`, and the mapping from domain errors
// and framework errors to it. Unknown errors become `internal` with a fixed message: their text could quote
// input (a JSON parser's message does), so it is neither returned nor logged; their class and stack frames are. Shared with the Cloudflare
// Worker, so nothing here may import storage, node: or the OpenAPI layer.

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { type ErrorCode, errorCodes, isDomainError } from "../errors.js";
import { errorFields, type Logger } from "../logger.js";
import type { RequestIdEnv } from "./request-id.js";

export const statusOf: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_request: 400,
  query_too_long: 400,
  unauthorized: 401,
  admin_disabled: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  unreadable: 500,
  internal: 500,
  unavailable: 503,
};

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.enum(errorCodes),
    message: z.string(),
    requestId: z.string(),
  }),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** The envelope with its code's status, or `status` where a route must say more. */
export function errorResponse<E extends RequestIdEnv>(
  c: Context<E>,
  code: ErrorCode,
  message: string,
  status: ContentfulStatusCode = statusOf[code],
): Response {
  const body: ErrorEnvelope = { error: { code, message, requestId: c.get("requestId") ?? "" } };
  // RFC 9110 §11.6.1: a 401 names its scheme. Every 401 is made here, the Worker's included; /mcp's adds where
  // an OAuth client signs in (RFC 9728 §5.1).
  if (status === 401) c.header("WWW-Authenticate", c.get("bearerChallenge") ?? "Bearer");
  return c.json(body, status);
}

/**
 * A request body that stopped arriving because the client went away (it closed the connection, or the
 * server dropped it as idle). Nobody is left to read the answer, and nothing is wrong with the server.
 */
export class ClientClosedError extends Error {
  override readonly name = "ClientClosedError";
}

/**
 * nginx's 499 "client closed request": what the access log records for a request whose client left
 * before its answer. Never sent to anyone; it keeps a client's abort out of the 5xx counts.
 */
export const CLIENT_CLOSED_STATUS = 499;

/** The answer to a request whose client has gone: empty, with the 499 the access log records. */
export function clientClosedResponse(): Response {
  return new Response(null, { status: CLIENT_CLOSED_STATUS });
}

function clientLeft(err: Error, request: Request): boolean {
  return err instanceof ClientClosedError || err.cause instanceof ClientClosedError || request.signal.aborted;
}

// Statuses the framework itself raises (hono's validators, body parsing), mapped onto our codes.
const codeOfStatus: Partial<Record<number, ErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

export function onError<E extends RequestIdEnv>(logger: Logger) {
  return (err: Error, c: Context<E>): Response => {
    // Before anything else: a parser failing on a body cut short is the client's leaving, not a 400 or a 500.
    if (clientLeft(err, c.req.raw)) return clientClosedResponse();
    if (isDomainError(err)) {
      if (err.code === "unreadable")
        logger.error("sealed row failed to open", { requestId: c.get("requestId") });
      if (err.retryAfterSeconds !== undefined) c.header("Retry-After", String(err.retryAfterSeconds));
      return errorResponse(c, err.code, err.message);
    }
    if (err instanceof HTTPException) {
      const code = codeOfStatus[err.status] ?? "internal";
      // hono's own messages for these are fixed sentences ("Malformed JSON in request body"), never input.
      return errorResponse(
        c,
        code,
        code === "internal" ? "Internal error." : err.message || "Invalid request.",
      );
    }
    // The error's class, code and stack frames, never its message (src/logger.ts, errorFields).
    logger.error("unhandled error", { requestId: c.get("requestId"), ...errorFields(err) });
    return errorResponse(c, "internal", "Internal error.");
  };
}

/** zod issues as one sentence naming the fields, never their values. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "body";
    return `${where}: ${issue.message}`;
  });
  return `Invalid request: ${parts.join("; ")}.`;
}
