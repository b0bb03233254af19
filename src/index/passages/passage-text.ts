// The text a search shows of a passage (its chunk id, heading and body), held once and deflated: consecutive
// passages of one document share a block, so a block is removed with its document and never holds another's.
//
// Why deflate, and at level 1: the text was the largest thing an index held (FTS5 holding it as content cost
// 26 of the 44 MiB of pages of 20k ten-section passages), while only the ~20 passages a search returns are
// ever read back. Measured on the bench's corpora (20k passages): level 1 compresses ten-section text
// 2.2–2.4× and SciFact-shaped text 2.0×, at ~100 MB/s (0.2–0.4 s of a 20k-passage build); level 6 gains
// ~5% for 1.7× the time, and brotli at quality 0–2 was no faster for less. Measured again on 2,500 blocks of
// Debian's manuals (2026-12-06): levels 1, 4, 6 and 9 all inflate in 16.3–16.8 µs a block (best of twelve
// rounds), so a higher level buys no faster reading; fixed Huffman codes read in 13.2 µs but compress 2.08×
// against 2.49×. node:zlib runs on Node and Deno; the index is never built in the Worker.
//
// What a block holds, inflated: the passages' count and the length of each of their three fields, then the
// fields' text as UTF-8, in order (TextBlock). The block held the passages as one JSON array before, and a
// hit's block was inflated, decoded and parsed whole; now it is inflated and decoded, and each field is a
// slice of the text (docs/decisions/0093-text-blocks-without-json.md, which has the measurements). The
// stored bytes start with the inflated length, so zlib writes into a buffer of that size rather than its
// default 16 KiB chunk.

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

/**
 * One stored block of a document's text: the index of its first passage in the document, how many passages
 * it holds, and its bytes.
 */
export interface PackedBlock {
  first: number;
  count: number;
  packed: Uint8Array;
}

/**
 * A document's passages (their bodies without match markers), in order, cut into blocks and each packed:
 * what the index stores of their text. Pure, so a build can have it done on another thread while it inserts
 * (live/load-passages.ts); the index packs alike when handed none.
 */
export function packTextBlocks(passages: readonly StoredPassage[]): PackedBlock[] {
  const blocks: PackedBlock[] = [];
  let first = 0;
  for (const block of textBlocks(passages)) {
    blocks.push({ first, count: block.length, packed: packBlock(block) });
    first += block.length;
  }
  return blocks;
}

/**
 * Whether `blocks` hold `passages` passages in order, each once: the first starts at the first passage, each
 * next one where the one before ends, and the last ends at the last passage. Blocks packed on another thread
 * are checked so before they are stored: a passage's text must never be read from a block that does not hold it.
 */
export function blocksFit(blocks: readonly PackedBlock[], passages: number): boolean {
  let next = 0;
  for (const block of blocks) {
    if (block.first !== next || !Number.isInteger(block.count) || block.count < 1) return false;
    next += block.count;
  }
  return next === passages;
}

/** The bytes before the deflated stream: the inflated length, a 32-bit little-endian count. */
const SIZE_BYTES = 4;
/** The passages' count, then each field's length, in the inflated header: 32-bit little-endian each. */
const COUNT_BYTES = 4;
/** chunk id, heading, body. */
const FIELDS = 3;
/** Deflate's largest ratio of output to input (258-byte matches in 2-bit codes, ~1,032 to 1). */
const MAX_DEFLATE_RATIO = 1032;

/**
 * A block as stored. Each field's length is counted in UTF-16 code units, which writing the text as UTF-8 and
 * reading it back keeps: a lone surrogate becomes U+FFFD (one unit for one), as SQLite did when FTS5 held the
 * text, where JSON would have kept it escaped.
 */
export function packBlock(passages: readonly StoredPassage[]): Uint8Array {
  const fields = passages.flatMap((p) => [p.chunkId, p.heading, p.body]);
  const header = Buffer.alloc(COUNT_BYTES * (1 + fields.length));
  header.writeUInt32LE(passages.length, 0);
  for (const [i, field] of fields.entries()) header.writeUInt32LE(field.length, COUNT_BYTES * (1 + i));
  // Each field encoded alone: joined first, a lone high surrogate ending one field and a lone low one starting
  // the next would make a pair and be kept, where alone each becomes U+FFFD.
  const inflated = Buffer.concat([header, ...fields.map((f) => Buffer.from(f, "utf8"))]);
  const deflated = deflateRawSync(inflated, { level: DEFLATE_LEVEL });
  const stored = Buffer.allocUnsafe(SIZE_BYTES + deflated.length);
  stored.writeUInt32LE(inflated.length, 0);
  stored.set(deflated, SIZE_BYTES);
  return stored;
}

/** A stored block that does not hold what its own lengths say: never written so, so a fault, not input. */
export class CorruptTextBlockError extends Error {
  override readonly name = "CorruptTextBlockError";
}

/**
 * One block inflated: its text decoded once, as one string on the JS heap, and each passage's fields sliced
 * from it when asked for. One string rather than the inflated bytes: a connection keeps ~300 blocks
 * (inflated-blocks.ts), and kept as ~3 KB buffers outside the heap, freed in another order than malloc gave
 * them, they left the server's RSS after 300 long questions at 3.03 and 3.04 B a byte of text in two of three
 * real-suite runs (2.65–2.84 before); the heap's idle compaction gives a string's pages back.
 */
export class TextBlock {
  readonly #text: string;
  /** Where each field starts in #text, and after the last one the end. */
  readonly #starts: Uint32Array;

  /** Inflates a stored block (as all() hands a blob back, or as get() does). */
  static inflate(stored: Uint8Array | ArrayBuffer): TextBlock {
    const view =
      stored instanceof Uint8Array
        ? Buffer.from(stored.buffer, stored.byteOffset, stored.length)
        : Buffer.from(stored);
    if (view.length < SIZE_BYTES) throw new CorruptTextBlockError("a text block is shorter than its header");
    const size = view.readUInt32LE(0);
    // One more byte than the block: a chunk that fills exactly makes zlib ask for a second one. Sized so, zlib
    // writes into one buffer of the block's size, not its default 16 KiB. Never more than deflate can give
    // back from these bytes (at most 1,032 to 1), so a size prefix that lies cannot make it allocate more.
    const chunkSize = Math.max(64, Math.min(size + 1, MAX_DEFLATE_RATIO * view.length));
    let bytes: Buffer;
    try {
      bytes = inflateRawSync(view.subarray(SIZE_BYTES), { chunkSize, maxOutputLength: size + 1 });
    } catch (cause) {
      // No deflate stream, or more than its size prefix says: zlib's own error, as the block's.
      throw new CorruptTextBlockError("a text block does not inflate to its size", { cause });
    }
    if (bytes.length !== size) throw new CorruptTextBlockError("a text block inflated to another size");
    if (bytes.length < COUNT_BYTES) throw new CorruptTextBlockError("a text block holds no count");
    const fields = FIELDS * bytes.readUInt32LE(0);
    const textStart = COUNT_BYTES * (1 + fields);
    if (textStart > bytes.length) throw new CorruptTextBlockError("a text block is shorter than its lengths");
    const starts = new Uint32Array(fields + 1);
    let at = 0;
    for (let i = 0; i < fields; i++) {
      starts[i] = at;
      at += bytes.readUInt32LE(COUNT_BYTES * (1 + i));
    }
    const text = bytes.toString("utf8", textStart);
    if (at !== text.length)
      throw new CorruptTextBlockError("a text block's lengths do not add up to its text");
    starts[fields] = at;
    return new TextBlock(text, starts);
  }

  private constructor(text: string, starts: Uint32Array) {
    this.#text = text;
    this.#starts = starts;
  }

  /** How many passages it holds. */
  get count(): number {
    return (this.#starts.length - 1) / FIELDS;
  }

  /** The characters (UTF-16 code units) it holds: what keeping it costs. */
  get chars(): number {
    return this.#text.length;
  }

  /** Its `i`th passage (0 is the block's first rowid), or undefined past its last. */
  passage(i: number): StoredPassage | undefined {
    if (!Number.isInteger(i) || i < 0 || i >= this.count) return undefined;
    const field = (f: number) =>
      this.#text.slice(this.#starts[FIELDS * i + f], this.#starts[FIELDS * i + f + 1]);
    return { chunkId: field(0), heading: field(1), body: field(2) };
  }

  /** Every passage, in order. */
  passages(): StoredPassage[] {
    return Array.from({ length: this.count }, (_, i) => this.passage(i) as StoredPassage);
  }
}

/** Every passage of a stored block, in order. */
export function unpackBlock(stored: Uint8Array | ArrayBuffer): StoredPassage[] {
  return TextBlock.inflate(stored).passages();
}
