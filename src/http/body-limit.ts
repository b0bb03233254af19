// Refuses a body larger than its limit with 413 in the envelope: at once when Content-Length says so, else
// while the body is read. Nothing is read here: the body is counted as the route reads it, so a route's
// credentials middleware answers 401 before a byte of the body is taken in (hono's bodyLimit reads a
// chunked body whole first: 100 unauthenticated connections trickling 5.5 MiB each took RSS 161 → 852 MB).

import type { Context, MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { mediaType } from "./accept.js";
import type { AppEnv } from "./env.js";
import { ClientClosedError, clientClosedResponse, errorResponse } from "./errors.js";

/** What became of a request's body by the time its answer was made. */
type BodyState = "unread" | "reading" | "read" | "too_large" | "client_closed";

/** The largest body a request may send, chosen from the request (its path and media type). */
export type BodyLimitOf = (c: Context<AppEnv>) => number;

export function limitBody(limitOf: BodyLimitOf): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!hasBody(c.req.raw)) return next();
    const maxBytes = limitOf(c);
    const tooLarge = () =>
      new DomainError("payload_too_large", `The request body is larger than ${maxBytes} bytes.`);
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    if (declared > maxBytes) {
      // The answer comes before the body: say the connection ends here, so the body is not waited for.
      c.header("Connection", "close");
      throw tooLarge();
    }

    // An object, not a `let`: the stream's callbacks change it while next() runs.
    const body: { state: BodyState } = { state: "unread" };
    const source = c.req.raw;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let size = 0;
    // highWaterMark 0: nothing is pulled from the connection until the route reads.
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          body.state = "reading";
          reader ??= (source.body as ReadableStream<Uint8Array>).getReader();
          const chunk = await reader.read().catch(() => null);
          if (chunk === null) {
            body.state = "client_closed";
            controller.error(new ClientClosedError("The client closed the request before its body ended."));
            return;
          }
          if (chunk.done) {
            body.state = "read";
            controller.close();
            return;
          }
          size += chunk.value.byteLength;
          if (size > maxBytes) {
            body.state = "too_large";
            controller.error(tooLarge());
            void reader.cancel().catch(() => {});
            return;
          }
          controller.enqueue(chunk.value);
        },
        cancel(reason) {
          return reader?.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
    c.req.raw = new Request(source, { body: counted, duplex: "half" } as RequestInit);
    await next();

    // A validator turns any failure to parse into its own 400: the cause decides the answer instead.
    if (body.state === "client_closed") c.res = clientClosedResponse();
    else if (body.state === "too_large") c.res = errorResponse(c, "payload_too_large", tooLarge().message);
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

/** A document body's limit: JSON may be escaped content at the limit; a raw or multipart body is the content. */
export function documentBodyLimit(maxDocumentBytes: number, type: string): number {
  const factor = type === "application/json" ? JSON_ESCAPE_FACTOR : 1;
  return maxDocumentBytes * factor + DOCUMENT_WRAPPING_BYTES;
}

/** Every other request body is small JSON: 1 MiB is far above any of them. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The most documents one POST /v1/documents/batch carries (API.md). */
export const MAX_BATCH_DOCUMENTS = 500;

export const BATCH_PATH = "/v1/documents/batch";

export const IMPORT_PATH = "/v1/import";

/**
 * The limit a request gets: a batch, as many JSON documents as it may carry; documents (and the ingest
 * webhook that carries them) by media type; else 1 MiB.
 */
export function bodyLimitOf(maxDocumentBytes: number): BodyLimitOf {
  return (c) => {
    const path = c.req.path;
    if (path === BATCH_PATH || path === `${BATCH_PATH}/`) {
      return MAX_BATCH_DOCUMENTS * documentBodyLimit(maxDocumentBytes, "application/json");
    }
    // An import is any size by design (a whole team); it is read a line at a time and each line is bounded
    // instead (routes/export.ts importLineLimit), so no more than one line is ever held.
    if (path === IMPORT_PATH || path === `${IMPORT_PATH}/`) return Number.POSITIVE_INFINITY;
    // A sign-in form holds one key: a body larger than this is not a sign-in, and is read by nobody yet known.
    if (path === "/page/sign-in") return SIGN_IN_BODY_LIMIT;
    return carriesDocuments(path) ? documentBodyLimit(maxDocumentBytes, mediaType(c)) : DEFAULT_BODY_LIMIT;
  };
}

/** A sign-in form: a team key (~70 bytes) and its field names, far under 8 KiB. */
const SIGN_IN_BODY_LIMIT = 8 * 1024;

function carriesDocuments(path: string): boolean {
  return (
    path.startsWith("/v1/documents") || path.startsWith("/v1/webhooks/ingest/") || path === "/page/notes"
  );
}
