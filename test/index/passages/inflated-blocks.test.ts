// The inflated blocks a searcher keeps between searches (inflated-blocks.ts): the same passages as inflating
// afresh, never a kept block for bytes it was not inflated from, and no more text kept than its limit.

import { describe, expect, it } from "vitest";
import { InflatedBlocks } from "../../../src/index/passages/inflated-blocks.js";
import { PassageIndex } from "../../../src/index/passages/passage-index.js";
import {
  packBlock,
  type StoredPassage,
  textBlocks,
  unpackBlock,
} from "../../../src/index/passages/passage-text.js";
import { matchQuery } from "../../../src/index/query.js";
import { chunkDocument } from "../../../src/ingest/chunk.js";
import { gitManualTexts, needs, outside } from "../../support/outside.js";

/** Git's manuals as Debian installs them (.ci/run installs git-doc), cut into blocks as the index cuts them. */
function realBlocks(): StoredPassage[][] {
  return gitManualTexts().flatMap(({ name, content }) => {
    const passages: StoredPassage[] = chunkDocument({ title: name, content, format: "text" }).map((p, i) => ({
      chunkId: `${name}-${i}`,
      heading: p.heading,
      body: p.text,
    }));
    return textBlocks(passages);
  });
}

describe("inflated blocks", () => {
  needs(outside.gitManuals).it(
    "gives every real block's passages as they were stored, the first time and when kept",
    () => {
      const blocks = realBlocks();
      expect(blocks.length).toBeGreaterThan(50);
      const packed = blocks.map(packBlock);
      const inflated = new InflatedBlocks();
      for (let round = 0; round < 2; round++) {
        for (const [rowid, block] of packed.entries()) {
          expect(inflated.blockOf(rowid, block).passages()).toEqual(blocks[rowid]);
        }
      }
    },
  );

  it("inflates a block again when its rowid now holds other bytes, and keeps it when they are the same", () => {
    const inflated = new InflatedBlocks();
    const before = packBlock([{ chunkId: "a", heading: "Old", body: "the old walrus text" }]);
    const after = packBlock([{ chunkId: "b", heading: "New", body: "the new walrus text" }]);
    const first = inflated.blockOf(7, before);
    expect(inflated.blockOf(7, Uint8Array.from(before))).toBe(first);
    expect(inflated.blockOf(7, after).passages()).toEqual([
      { chunkId: "b", heading: "New", body: "the new walrus text" },
    ]);
    expect(inflated.blockOf(7, before)).not.toBe(first);
  });

  it("is not fooled when the buffer it was handed is overwritten after the call", () => {
    const inflated = new InflatedBlocks();
    const a = packBlock([{ chunkId: "a", heading: "", body: "first text" }]);
    const b = packBlock([{ chunkId: "b", heading: "", body: "other text" }]);
    const shared = new Uint8Array(Math.max(a.length, b.length));
    shared.set(a);
    inflated.blockOf(1, shared.subarray(0, a.length));
    shared.fill(0);
    shared.set(b);
    expect(inflated.blockOf(1, shared.subarray(0, b.length)).passages()).toEqual(unpackBlock(b));
  });

  it("keeps no more text than its limit: the least recently used block goes first, a block above it never stays", () => {
    const body = "x".repeat(1000);
    const block = (id: string) => packBlock([{ chunkId: id, heading: "", body }]);
    const inflated = new InflatedBlocks(2500);
    const blocks = ["a", "b", "c"].map(block);
    const [a, b, c] = blocks.map((packed, rowid) => ({ packed, rowid }));
    if (!a || !b || !c) throw new Error("three blocks");
    const first = inflated.blockOf(a.rowid, a.packed);
    const second = inflated.blockOf(b.rowid, b.packed);
    expect(inflated.blockOf(a.rowid, a.packed)).toBe(first); // a is now the latest used
    inflated.blockOf(c.rowid, c.packed); // over 2500 characters: b, the least recently used, goes
    expect(inflated.blockOf(a.rowid, a.packed)).toBe(first);
    expect(inflated.blockOf(b.rowid, b.packed)).not.toBe(second);
    const huge = packBlock([{ chunkId: "h", heading: "", body: "y".repeat(3000) }]);
    const once = inflated.blockOf(9, huge);
    expect(inflated.blockOf(9, huge)).not.toBe(once);
  });

  it("shows a replaced document's new text to the searcher that showed its old text", () => {
    const index = new PassageIndex();
    try {
      const version = (body: string) => ({
        id: "doc_walrus",
        title: "Walrus",
        path: ["Zoo"],
        passages: [{ chunkId: "c1", ordinal: 0, heading: "Walrus", text: body }],
      });
      index.apply([version("The walrus sleeps on the ice floe.")]);
      expect(index.find(matchQuery("walrus"), 5)[0]?.snippet).toContain("ice floe");
      index.apply([version("The walrus swims under the pack ice.")]);
      const hits = index.find(matchQuery("walrus"), 5);
      expect(hits).toHaveLength(1);
      expect(hits[0]?.snippet).toContain("pack ice");
    } finally {
      index.close();
    }
  });
});
