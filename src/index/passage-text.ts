// The text a search shows of a passage (its chunk id, heading and body), held once and deflated: consecutive
// passages of one document share a block, so a block is removed with its document and never holds another's.
//
// Why deflate, and at level 1: the text is the largest thing an index holds (an FTS5 table with its content
// held 2.2 bytes of pages per byte of text, 1.3 of them the content), while only the ~20 passages a search
// returns are ever read back. Measured on the bench's corpora (20k passages, blocks of up to 8 KiB):
// level 1 compresses sections 2.3× and SciFact-shaped text 2.0× in ~10 µs a block, level 6 gains ~5% for
// 1.7× the time. Passage by passage it was 1.9–2.0×; blocks let a document's passages share one dictionary.
// node:zlib runs on Node and Deno alike; the index is never built in the Worker.

import { deflateRawSync, inflateRawSync } from "node:zlib";

export interface StoredPassage {
  chunkId: string;
  heading: string;
  body: string;
}

/**
 * A block closes once it holds this many characters of body: one block per document of ordinary length
 * (the bench's ten-section documents are ~10 KB), and a bounded read for a hit in a long one — inflating and
 * parsing an 8 KiB block costs ~40 µs, and a search reads at most one block per hit.
 */
export const TEXT_BLOCK_CHARS = 8 * 1024;

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
