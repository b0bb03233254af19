// The text blocks a connection's searches inflated lately, kept inflated so a block returned again by a later
// search is not inflated again. Inflating is most of reading a hit's text: ~20 µs a block of ~3 KB on
// Debian's manuals, nearly all of it zlib's per-call set-up, and a two-word search returns ~15 blocks.
// Questions asked one after another share blocks more often than chance: on the bench's two-word questions
// over 19k passages of Debian's manuals, each asked once, 34% of block reads found the block among the 256
// read last (22% among 64, 44% among 1024) (docs/decisions/0055-short-questions.md).
//
// A kept block is used only when the stored bytes read in this search are the bytes it was inflated from, so
// what a search shows never depends on what the connection read before: a block rewritten, removed or
// restored from a snapshot under the same rowid is inflated afresh.

import { type StoredPassage, unpackBlock } from "./passage-text.js";

/**
 * How much text the blocks kept hold, in characters: ~300 blocks of Debian's manuals (~3.2k characters a
 * block), near the 256 the hit rate above was measured at, and about a megabyte of heap a connection.
 */
export const INFLATED_CHARS_KEPT = 1_048_576;

interface KeptBlock {
  packed: Uint8Array;
  passages: StoredPassage[];
  chars: number;
}

export class InflatedBlocks {
  /** In the order last used, oldest first (a Map keeps insertion order). */
  readonly #kept = new Map<number, KeptBlock>();
  readonly #limit: number;
  #chars = 0;

  constructor(limit = INFLATED_CHARS_KEPT) {
    this.#limit = limit;
  }

  /** The passages of the block stored at `rowid` as `packed`. The caller must not change what it gets. */
  passagesOf(rowid: number, packed: Uint8Array): readonly StoredPassage[] {
    const kept = this.#kept.get(rowid);
    if (kept) {
      this.#forget(rowid, kept);
      if (Buffer.compare(kept.packed, packed) === 0) {
        this.#keep(rowid, kept);
        return kept.passages;
      }
    }
    const passages = unpackBlock(packed);
    let chars = 0;
    for (const p of passages) chars += p.chunkId.length + p.heading.length + p.body.length;
    // The stored bytes are copied: the driver may hand back a buffer it reuses.
    this.#keep(rowid, { packed: Uint8Array.from(packed), passages, chars });
    return passages;
  }

  #keep(rowid: number, block: KeptBlock): void {
    if (block.chars > this.#limit) return;
    this.#kept.set(rowid, block);
    this.#chars += block.chars;
    for (const [oldest, old] of this.#kept) {
      if (this.#chars <= this.#limit) break;
      this.#forget(oldest, old);
    }
  }

  #forget(rowid: number, block: KeptBlock): void {
    this.#kept.delete(rowid);
    this.#chars -= block.chars;
  }
}
