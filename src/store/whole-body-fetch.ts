// The fetch the libSQL client's HTTP transport (http:// and https:// storage URLs) and a wake's bulk reads over
// Hrana 3 (binary-reads.ts) are given: the request sent with node:http, the answer read whole, then handed
// over as one Response.
//
// Why not the runtime's fetch: sqld writes a large answer in pieces of ~84 bytes, and the runtime's fetch
// turns each piece into a chunk of a web stream. A 4 MiB snapshot part came back as 66,745 chunks in 6.8 s
// on Node 20 (3.5 s on Node 22), where curl and node:http read the same answer in 17 and 42 ms: node:http
// reads what the socket holds, 64 KiB at a time. Over sqld, a wake from a 20k-passage team's snapshot took
// 31 s through the runtime's fetch (docs/decisions/0098-storage-transport.md).
//
// A network failure rejects as the runtime's fetch does, a TypeError "fetch failed" with the cause beside it,
// which is what guarded-client.ts knows as storage away.
//
// Hrana's answers are small documents (JSON, or protobuf for the bulk reads) or a page of rows, bounded by
// what sqld sends in one answer, so holding one whole before it is parsed costs no more than the parse does.

import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

/** Status codes whose answer has no body: a Response refuses one for them. */
const NO_BODY = new Set([204, 205, 304]);

function responseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/**
 * The fetch for one storage client. `stalledMs`: a request on whose connection storage has sent nothing for
 * that long is ended as a network failure. Without it a stalled server would hold the request for good, and
 * with it one of the 20 requests libSQL's client runs at once, so that after 20 of them every later call
 * would wait behind them, even once storage answers again. Redirects are not followed: Hrana's endpoints do
 * not redirect, and one that does is answered as the error it is.
 */
export function wholeBodyFetch(stalledMs: number) {
  return async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : null;
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, rejectWith) => {
      const reject = (error: unknown) =>
        rejectWith(
          error instanceof Error && error.name === "AbortError"
            ? error
            : new TypeError("fetch failed", { cause: error }),
        );
      const outgoing = send(
        url,
        {
          method: request.method,
          headers: Object.fromEntries(request.headers),
          signal: request.signal,
          timeout: stalledMs,
        },
        (message) => {
          const chunks: Buffer[] = [];
          message.on("data", (chunk: Buffer) => chunks.push(chunk));
          message.on("error", reject);
          message.on("end", () => {
            const status = message.statusCode ?? 0;
            try {
              resolve(
                new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks), {
                  status,
                  statusText: message.statusMessage ?? "",
                  headers: responseHeaders(message),
                }),
              );
            } catch (error) {
              // A status no fetch answers with (below 200 or past 599): a failure, as the runtime's fetch has it.
              reject(error);
            }
          });
        },
      );
      outgoing.on("timeout", () => outgoing.destroy(new Error(`storage sent nothing for ${stalledMs} ms`)));
      outgoing.on("error", reject);
      outgoing.end(body ?? undefined);
    });
  };
}
