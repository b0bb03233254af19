// A request body counted as it arrives: a stream that passes the source's bytes on one chunk at a time and
// fails with 413 `payload_too_large` on the chunk that takes it past its limit, reading nothing after it. Nothing is pulled until its reader asks (highWaterMark 0), so the
// bytes held at any moment are the reader's own. Every route's body goes through one (./body-limit.ts); a
// route that reads a stream of any size part by part (an NDJSON import) bounds each part the same way with
// `readAtMost`.

import { DomainError } from "../errors.js";
import { ClientClosedError } from "./errors.js";

/** What became of a counted body: not asked for yet, being read, read to its end, refused, or cut short. */
export type BodyState = "unread" | "reading" | "read" | "too_large" | "client_closed";

export interface BoundedBody {
  stream: ReadableStream<Uint8Array>;
  /** Read by the caller after the route has answered, to tell a parse failure from its cause. */
  readonly state: BodyState;
  /** Bytes passed on so far. */
  readonly bytes: number;
}

export function tooLargeError(maxBytes: number): DomainError {
  return new DomainError("payload_too_large", `The request body is larger than ${maxBytes} bytes.`);
}

export function boundedBody(source: ReadableStream<Uint8Array>, maxBytes: number): BoundedBody {
  let state: BodyState = "unread";
  let bytes = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        state = "reading";
        reader ??= source.getReader();
        const chunk = await reader.read().catch(() => null);
        if (chunk === null) {
          state = "client_closed";
          controller.error(new ClientClosedError("The client closed the request before its body ended."));
          return;
        }
        if (chunk.done) {
          state = "read";
          controller.close();
          return;
        }
        bytes += chunk.value.byteLength;
        if (bytes > maxBytes) {
          state = "too_large";
          // The source is left unread, not cancelled: on Node, cancelling destroys the request's socket at
          // once, and the 413 was then lost before it was written (seen on the multipart route). Unread, the
          // rest waits on the wire under back-pressure until the answer's `Connection: close` ends it.
          controller.error(tooLargeError(maxBytes));
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
  return {
    stream,
    get state() {
      return state;
    },
    get bytes() {
      return bytes;
    },
  };
}

/**
 * Reads a stream whole into one buffer, refusing it (413) on the chunk that passes `maxBytes`: a route that
 * must hold a part whole (a file, one line of a stream) holds at most its limit, never what a client sends.
 */
export async function readAtMost(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = boundedBody(stream, maxBytes).stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
