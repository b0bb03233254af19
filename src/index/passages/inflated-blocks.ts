// The text blocks a connection's searches inflated lately, kept inflated so a block returned again by a later
// search is not inflated again. Inflating is most of reading a hit's text: ~17 µs a block of ~3 KB on
// Debian's manuals, and a two-word search returns ~16 blocks. Questions asked one after another share blocks
// more often than chance: on the bench's two-word questions over 19k passages of Debian's manuals, each asked
// once, 34% of block reads found the block among the 256 read last (22% among 64, 44% among 1024)
// (docs/decisions/0055-short-questions.md).
//
// A kept block is used only when the stored bytes read in this search are the bytes it was inflated from, so
// what a search shows never depends on what the connection read before: a block rewritten, removed or
// restored from a snapshot under the same rowid is inflated afresh.

import { TextBlock } from "./passage-text.js";

/**
 * How much text the blocks kept hold, in characters: ~300 blocks of Debian's manuals (~3.2k characters a
 * block), near the 256 the hit rate above was measured at, and about a megabyte of heap a connection.
 */
export const INFLATED_CHARS_KEPT = 1_048_576;

interface KeptBlock {
  packed: Uint8Array;
  block: TextBlock;
}

export class InflatedBlocks {
  /** In the order last used, oldest first (a Map keeps insertion order). */
  readonly #kept = new Map<number, KeptBlock>();
  readonly #limit: number;
  #chars = 0;

  constructor(limit = INFLATED_CHARS_KEPT) {
    this.#limit = limit;
  }

  /** The block stored at `rowid` as `packed`, inflated. */
  blockOf(rowid: number, packed: Uint8Array): TextBlock {
    const kept = this.#kept.get(rowid);
    if (kept) {
      this.#forget(rowid, kept);
      if (Buffer.compare(kept.packed, packed) === 0) {
        this.#keep(rowid, kept);
        return kept.block;
      }
    }
    const block = TextBlock.inflate(packed);
    // The stored bytes are copied: the driver may hand back a buffer it reuses.
    this.#keep(rowid, { packed: Uint8Array.from(packed), block });
    return block;
  }

  #keep(rowid: number, kept: KeptBlock): void {
    if (kept.block.chars > this.#limit) return;
    this.#kept.set(rowid, kept);
    this.#chars += kept.block.chars;
    for (const [oldest, old] of this.#kept) {
      if (this.#chars <= this.#limit) break;
      this.#forget(oldest, old);
    }
  }

  #forget(rowid: number, kept: KeptBlock): void {
    this.#kept.delete(rowid);
    this.#chars -= kept.block.chars;
  }
}
