// Refuses a body larger than `maxBytes` before reading it (by Content-Length) or while reading it (for a
// chunked body), with 413 in the envelope.

import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { DomainError } from "../errors.js";
import type { AppEnv } from "./env.js";

export function limitBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new DomainError("payload_too_large", `The request body is larger than ${maxBytes} bytes.`);
    },
  });
}

/**
 * The room allowed around a document's content for the JSON (or multipart) wrapping it: field names, title,
 * path, and the escapes JSON adds to content (a newline or a quote becomes two bytes). An eighth of the
 * content limit covers a document that is one line in eight escaped, plus 64 KiB for everything else; the
 * content itself is measured exactly after parsing.
 */
export function documentBodyLimit(maxDocumentBytes: number): number {
  return maxDocumentBytes + Math.ceil(maxDocumentBytes / 8) + 64 * 1024;
}

/** Every other request body is small JSON: 1 MiB is far above any of them. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
