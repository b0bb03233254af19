// Refuses a body larger than its limit with 413 in the envelope: at once when Content-Length says so, else
// while the body is read. Nothing is read here: the body is counted as the route reads it, so a route's
// credentials middleware answers 401 before a byte of the body is taken in (hono's bodyLimit reads a
// chunked body whole first: 100 unauthenticated connections trickling 5.5 MiB each took RSS 161 → 852 MB).

import type { Context, MiddlewareHandler } from "hono";
import { mediaType } from "./accept.js";
import { boundedBody, tooLargeError } from "./bounded-body.js";
import type { AppEnv } from "./env.js";
import { clientClosedResponse, errorResponse } from "./errors.js";

/** The largest body a request may send, chosen from the request (its path and media type). */
export type BodyLimitOf = (c: Context<AppEnv>) => number;

export function limitBody(limitOf: BodyLimitOf): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!hasBody(c.req.raw)) return next();
    const maxBytes = limitOf(c);
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    if (declared > maxBytes) {
      // The answer comes before the body: say the connection ends here, so the body is not waited for.
      c.header("Connection", "close");
      throw tooLargeError(maxBytes);
    }

    const source = c.req.raw;
    const body = boundedBody(source.body as ReadableStream<Uint8Array>, maxBytes);
    c.req.raw = new Request(source, { body: body.stream, duplex: "half" } as RequestInit);
    await next();

    // A validator turns any failure to parse into its own 400: the cause decides the answer instead.
    if (body.state === "client_closed") c.res = clientClosedResponse();
    else if (body.state === "too_large")
      c.res = errorResponse(c, "payload_too_large", tooLargeError(maxBytes).message);
    // Answered before a body still on the wire was read whole (a 401, a 415, a 413): the rest of it is not
    // waited for.
    if (body.state !== "read" && declaresBody(source.headers)) c.header("Connection", "close");
  };
}

function hasBody(request: Request): boolean {
  // Not the body itself: on Node, reading .body only sets up a stream that pulls when read.
  return request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
}

/**
 * Whether the wire carries a body (RFC 9112 §6.3). Not the same as `request.body !== null`: @hono/node-server
 * gives every POST and DELETE a body stream, empty or not, and a Request made in-process has no framing headers.
 */
function declaresBody(headers: Headers): boolean {
  const length = headers.get("content-length");
  return headers.has("transfer-encoding") || (length !== null && length !== "0");
}

/**
 * The worst case of JSON escaping: a content byte written as `\u00XX` (a control character) is 6 bytes, so a
 * JSON body may be 6 times the content limit. The content itself is then measured exactly after parsing
 * (DocumentService), so this bounds only what is read, never what is stored.
 */
const JSON_ESCAPE_FACTOR = 6;

/** Room around the content for everything else a document body carries: title, path, field names, a multipart boundary. */
const DOCUMENT_WRAPPING_BYTES = 64 * 1024;

/** The media types of files whose text is extracted (a PDF, a DOCX): bounded by the upload limit, not the content's. */
export const FILE_MEDIA_TYPES = {
  "application/pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
} as const;

/**
 * A document body's limit: JSON may be escaped content at the limit; a raw body is the content, or the file
 * for a PDF or DOCX; a multipart body may be either, so the larger of the two. What a file's text comes to is
 * bounded apart, by the content limit, once extracted.
 */
export function documentBodyLimit(maxDocumentBytes: number, type: string, maxUploadBytes = 0): number {
  if (type in FILE_MEDIA_TYPES) return maxUploadBytes + DOCUMENT_WRAPPING_BYTES;
  if (type === "multipart/form-data")
    return Math.max(maxDocumentBytes, maxUploadBytes) + DOCUMENT_WRAPPING_BYTES;
  const factor = type === "application/json" ? JSON_ESCAPE_FACTOR : 1;
  return maxDocumentBytes * factor + DOCUMENT_WRAPPING_BYTES;
}

/** Every other request body is small JSON: 1 MiB is far above any of them. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The most documents one POST /v1/documents/batch carries (docs/api.md). */
export const MAX_BATCH_DOCUMENTS = 500;

export const BATCH_PATH = "/v1/documents/batch";

/** The bounds a body's limit is chosen from (MEMORIA_MAX_DOCUMENT_BYTES, _BATCH_BYTES, _UPLOAD_BYTES). */
export interface BodyLimits {
  maxDocumentBytes: number;
  /** A PDF or DOCX file as it arrives, before its text is extracted. */
  maxUploadBytes: number;
  /**
   * A batch body's bytes as they arrive. Not the batch's documents times their limit: 500 documents of 5 MiB
   * JSON-escaped came to ~15 GiB, read whole before a byte was parsed (a 2 GiB body aborted the process).
   */
  maxBatchBytes: number;
}

export const IMPORT_PATH = "/v1/import";

/**
 * The limit a request gets: a batch, MEMORIA_MAX_BATCH_BYTES; documents (and the ingest webhook that carries
 * them) by media type; a sign-in form, a few KiB; else 1 MiB. A route that reads a stream of any size part by
 * part needs its own entry here, and bounds each part with readAtMost (./bounded-body.ts).
 */
export function bodyLimitOf(limits: BodyLimits): BodyLimitOf {
  return (c) => {
    const path = c.req.path;
    if (path === BATCH_PATH || path === `${BATCH_PATH}/`) return limits.maxBatchBytes; // An import is any size by design (a whole team); it is read a line at a time and each line is bounded
    // instead (routes/export.ts importLineLimit), so no more than one line is ever held.
    if (path === IMPORT_PATH || path === `${IMPORT_PATH}/`) return Number.POSITIVE_INFINITY;
    // A sign-in form holds one key: a body larger than this is not a sign-in, and is read by nobody yet known.
    if (path === "/page/sign-in") return SIGN_IN_BODY_LIMIT;
    return carriesDocuments(path)
      ? documentBodyLimit(limits.maxDocumentBytes, mediaType(c), limits.maxUploadBytes)
      : DEFAULT_BODY_LIMIT;
  };
}

/** A sign-in form: a team key (~70 bytes) and its field names, far under 8 KiB. */
const SIGN_IN_BODY_LIMIT = 8 * 1024;

function carriesDocuments(path: string): boolean {
  return (
    path.startsWith("/v1/documents") || path.startsWith("/v1/webhooks/ingest/") || path === "/page/notes"
  );
}
