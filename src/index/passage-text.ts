// The text a search shows of a passage (its chunk id, heading and body), held once and deflated: consecutive
// passages of one document share a block, so a block is removed with its document and never holds another's.
//
// Why deflate, and at level 1: the text was the largest thing an index held (FTS5 holding it as content cost
// 26 of the 44 MiB of pages of 20k ten-section passages), while only the ~20 passages a search returns are
// ever read back. Measured on the bench's corpora (20k passages): level 1 compresses ten-section text
// 2.2–2.4× and SciFact-shaped text 2.0×, at ~100 MB/s (0.2–0.4 s of a 20k-passage build); level 6 gains
// ~5% for 1.7× the time, and brotli at quality 0–2 was no faster for less. node:zlib runs on Node and Deno;
// the index is never built in the Worker.

import { deflateRawSync, inflateRawSync } from "node:zlib";

export interface StoredPassage {
  chunkId: string;
  heading: string;
  body: string;
}

/**
 * A block closes once it holds this many characters of body. Every hit inflates its whole block, and
 * inflating costs with the block's size (measured: ~15 µs for 1–2 KB, ~35 µs for 4 KB, ~50 µs for 8 KB), while
 * the pages held barely move with it at 8 KiB pages (20k ten-section passages: 28.4 MiB at 4 KiB blocks,
 * 29.0 at 8 KiB and at one passage a block). 4 KiB is about four ordinary passages.
 */
export const TEXT_BLOCK_CHARS = 4096;

/** zlib's fastest level; see the measurements above. */
const DEFLATE_LEVEL = 1;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The string as SQLite would have handed it back: a lone surrogate becomes U+FFFD on its way to UTF-8, as it
 * did when FTS5 held the text, where JSON would keep it escaped. The test finds the rare string to convert.
 */
function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? Buffer.from(text, "utf8").toString("utf8") : text;
}

/** Cuts a document's passages, in order, into runs that each become one block. */
export function textBlocks<T extends StoredPassage>(passages: readonly T[]): T[][] {
  const blocks: T[][] = [];
  let current: T[] = [];
  let chars = 0;
  for (const p of passages) {
    if (current.length > 0 && chars + p.body.length > TEXT_BLOCK_CHARS) {
      blocks.push(current);
      current = [];
      chars = 0;
    }
    current.push(p);
    chars += p.body.length;
  }
  if (current.length > 0) blocks.push(current);
  return blocks;
}

export function packBlock(passages: readonly StoredPassage[]): Uint8Array {
  const rows = passages.map((p) => [wellFormed(p.chunkId), wellFormed(p.heading), wellFormed(p.body)]);
  return deflateRawSync(JSON.stringify(rows), { level: DEFLATE_LEVEL });
}

export function unpackBlock(block: Uint8Array): StoredPassage[] {
  const rows = JSON.parse(inflateRawSync(block).toString("utf8")) as [string, string, string][];
  return rows.map(([chunkId, heading, body]) => ({ chunkId, heading, body }));
}
