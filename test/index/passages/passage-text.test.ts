// A text block read without JSON (passage-text.ts): each passage as the whole block unpacks it, on
// real manuals and generated text; a block that does not hold what its lengths say refused, never misread;
// and a snapshot of the layout before it never restored into an index that reads this one.

import { deflateRawSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import { schema } from "../../../src/index/passages/passage-layout.js";
import {
  CorruptTextBlockError,
  packBlock,
  type StoredPassage,
  TextBlock,
  textBlocks,
  unpackBlock,
} from "../../../src/index/passages/passage-text.js";
import { schemaFingerprint } from "../../../src/index/snapshots/snapshot.js";
import { chunkDocument } from "../../../src/ingest/chunk.js";
import { gitManualTexts, needs, outside } from "../../support/outside.js";

/** Git's manuals as Debian installs them (.ci/run installs git-doc), cut into blocks as the index cuts them. */
function realBlocks(): StoredPassage[][] {
  return gitManualTexts(60).flatMap(({ name, content }) =>
    textBlocks(
      chunkDocument({ title: name, content, format: "text" }).map((p, i) => ({
        chunkId: `${name}-${i}`,
        heading: p.heading,
        body: p.text,
      })),
    ),
  );
}

/** A stored block of exactly these inflated bytes, its size prefix as packBlock writes it unless given. */
function storedOf(inflated: Buffer, size = inflated.length): Uint8Array {
  const deflated = deflateRawSync(inflated);
  const stored = Buffer.alloc(4 + deflated.length);
  stored.writeUInt32LE(size, 0);
  stored.set(deflated, 4);
  return stored;
}

/** The inflated bytes of a block: its count, each field's UTF-8 length, then the fields. */
function inflatedOf(count: number, lengths: number[], body: string): Buffer {
  const header = Buffer.alloc(4 * (1 + lengths.length));
  header.writeUInt32LE(count, 0);
  for (const [i, n] of lengths.entries()) header.writeUInt32LE(n, 4 * (1 + i));
  return Buffer.concat([header, Buffer.from(body, "utf8")]);
}

describe("text blocks", () => {
  needs(outside.gitManuals).it(
    "decodes each passage of real manuals as it was stored, alone and in any order",
    () => {
      const blocks = realBlocks();
      expect(blocks.length).toBeGreaterThan(50);
      for (const passages of blocks) {
        const block = TextBlock.inflate(packBlock(passages));
        expect(block.count).toBe(passages.length);
        for (let i = passages.length - 1; i >= 0; i--) expect(block.passage(i)).toEqual(passages[i]);
        expect(block.passage(passages.length)).toBeUndefined();
        expect(block.passage(-1)).toBeUndefined();
        expect(block.passage(0.5)).toBeUndefined();
      }
    },
  );

  it("property: any passage of any block is the one the whole block unpacks to, surrogates and all", () => {
    const stored = fc.record({
      chunkId: fc.string({ unit: "grapheme", maxLength: 30 }),
      heading: fc.string({ unit: "binary", maxLength: 40 }),
      body: fc.string({ unit: "binary", maxLength: 3000 }),
    });
    fc.assert(
      fc.property(fc.array(stored, { minLength: 1, maxLength: 8 }), fc.nat(), (ps, pick) => {
        const packed = packBlock(ps);
        const whole = unpackBlock(packed);
        const i = pick % ps.length;
        expect(TextBlock.inflate(packed).passage(i)).toEqual(whole[i]);
        // What the driver hands back from all(): the same bytes as an ArrayBuffer.
        const copy = new Uint8Array(packed).buffer;
        expect(TextBlock.inflate(copy).passage(i)).toEqual(whole[i]);
        // Lone surrogates became U+FFFD on the way, as SQLite's UTF-8 text turns them; nothing else changed.
        const utf8 = (text = "") => Buffer.from(text, "utf8").toString("utf8");
        expect(whole[i]).toEqual({
          chunkId: utf8(ps[i]?.chunkId),
          heading: utf8(ps[i]?.heading),
          body: utf8(ps[i]?.body),
        });
      }),
    );
  });

  it("turns a lone surrogate at a field's edge into U+FFFD, never into half of a pair with the next field", () => {
    const packed = packBlock([
      { chunkId: "a\ud800", heading: "\udc00b\ud83d", body: "\ude00c" },
      { chunkId: "\udc00", heading: "", body: "x\ud800" },
    ]);
    expect(unpackBlock(packed)).toEqual([
      { chunkId: "a\ufffd", heading: "\ufffdb\ufffd", body: "\ufffdc" },
      { chunkId: "\ufffd", heading: "", body: "x\ufffd" },
    ]);
  });

  it("is read from its own bytes when handed a view into a larger buffer", () => {
    const packed = packBlock([{ chunkId: "a", heading: "H", body: "the walrus text" }]);
    const larger = new Uint8Array(packed.length + 20).fill(7);
    larger.set(packed, 10);
    expect(TextBlock.inflate(larger.subarray(10, 10 + packed.length)).passage(0)).toEqual({
      chunkId: "a",
      heading: "H",
      body: "the walrus text",
    });
  });

  it("refuses a block that does not hold what its lengths say, rather than show another passage's text", () => {
    const good = inflatedOf(1, [1, 1, 3], "abcde");
    expect(TextBlock.inflate(storedOf(good)).passage(0)).toEqual({ chunkId: "a", heading: "b", body: "cde" });
    const corrupt = [
      new Uint8Array(0),
      new Uint8Array([1, 2]),
      // The size prefix says more, or less, than the stream holds.
      storedOf(good, good.length + 1),
      storedOf(good, good.length - 1),
      // Lengths past the end, short of it, or a count whose lengths are not there at all.
      storedOf(inflatedOf(1, [1, 1, 4], "abcde")),
      storedOf(inflatedOf(1, [1, 1, 2], "abcde")),
      storedOf(inflatedOf(1000, [1, 1, 3], "abcde")),
      storedOf(inflatedOf(1, [0xffffffff, 1, 3], "abcde")),
      storedOf(Buffer.from([1])),
    ];
    for (const stored of corrupt) expect(() => TextBlock.inflate(stored)).toThrow(CorruptTextBlockError);
    // Size prefixes of ~4 GiB before a few bytes: refused as the block's error (the chunk's cap, which spares
    // the allocation, does not change this outcome).
    for (const size of [0xfffffff0, 0xffffffff])
      expect(() => TextBlock.inflate(storedOf(good, size))).toThrow(CorruptTextBlockError);
    // 8 MiB of zeros under a prefix of 100 bytes: zlib stops past 101, it does not inflate the whole.
    const bomb = storedOf(Buffer.alloc(8 << 20), 100);
    const refused = (() => {
      try {
        TextBlock.inflate(bomb);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(CorruptTextBlockError);
    expect(String((refused as Error).cause)).toMatch(/larger than 101 bytes/);
    // Bytes that are no deflate stream at all.
    expect(() => TextBlock.inflate(new Uint8Array([5, 0, 0, 0, 0xff, 0xff, 0xff]))).toThrow(
      CorruptTextBlockError,
    );
  });

  it("changed the index's schema fingerprint with its layout, so a snapshot of JSON blocks is never restored", () => {
    const before = "CREATE TABLE passage_text (rowid INTEGER PRIMARY KEY, passages BLOB NOT NULL)";
    const fingerprintOf = (statements: readonly string[]) => {
      const db = new IndexDatabase(":memory:");
      try {
        for (const statement of statements) db.exec(statement);
        return schemaFingerprint(db);
      } finally {
        db.close();
      }
    };
    const now = fingerprintOf(schema);
    const old = fingerprintOf(schema.map((s) => (s.includes("passage_text") ? before : s)));
    expect(schema.filter((s) => s.includes("passage_text"))).toHaveLength(1);
    expect(old).not.toBe(now);
  });
});
