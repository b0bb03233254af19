// How blobs cross libSQL's remote transports: the client opens Hrana at version 2 over WebSocket and HTTP
// alike, which is JSON, so every sealed row and snapshot part travels as base64, and the client encodes and
// decodes it through the `Base64` object of js-base64. That package's 3.9 decoder, on a runtime without
// `Uint8Array.fromBase64` (Node 20 and 22), runs two regular-expression passes over the string, then `atob`,
// then a loop over every character: 99 ms for one 4 MiB snapshot part, where Buffer decodes the same string
// in 2.3 ms; its encoder takes 36 ms against 0.5 ms. A wake from rows over ws:// spent ~0.3 s of its 2.2 s
// load in those regular expressions alone (20k passages, sqld near;
// docs/decisions/0099-websocket-blobs-and-pages-ahead.md).
//
// The client's `Base64` is one shared object, so its two blob functions are replaced on it with Buffer's. For
// what sqld sends (standard alphabet, no padding) the bytes are the same; Buffer also reads padding, the
// URL-safe alphabet and whitespace as js-base64 does, and differs only on malformed text (js-base64 throws on
// a dangling character, Buffer drops it). Buffer may hand back a view into its shared 8 KiB pool for a small
// value; the client copies every blob out (`value.slice()`), so no pool outlives the read. A wake's bulk reads
// go over Hrana 3's binary encoding instead (binary-reads.ts), and come through here only from a server
// without it.

import { Base64 } from "js-base64";

type ToBytes = (encoded: string) => Uint8Array;
type FromBytes = (bytes: Uint8Array, urlSafe?: boolean) => string;

const toBytes: ToBytes = (encoded) => {
  const decoded = Buffer.from(encoded, "base64");
  return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
};

const fromBytes: FromBytes = (bytes, urlSafe = false) =>
  // js-base64's URL-safe form drops the padding, as Node's "base64url" does.
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(urlSafe ? "base64url" : "base64");

/**
 * Gives the libSQL client's blob codec Buffer's base64. Idempotent; a runtime without Buffer keeps
 * js-base64's own (every runtime memoria runs on has it: Node, Deno's Node layer, the container).
 */
export function useBufferForBlobs(): void {
  if (typeof Buffer !== "function") return;
  const codec = Base64 as { toUint8Array: ToBytes; fromUint8Array: FromBytes };
  codec.toUint8Array = toBytes;
  codec.fromUint8Array = fromBytes;
}
