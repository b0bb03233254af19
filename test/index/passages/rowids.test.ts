// Ordered rowids let FTS5 break score ties by rowid; they must sort exactly like (document id, ordinal), and
// anything that cannot get one must still answer in that order through the slower path.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newId } from "../../../src/ids.js";
import {
  type IndexedDocument,
  type PassageHit,
  PassageIndex,
} from "../../../src/index/passages/passage-index.js";
import { OrderedRanges, ROWID_GAP } from "../../../src/index/passages/rowids.js";
import { matchQuery } from "../../../src/index/query.js";

const base32 = "abcdefghijklmnopqrstuvwxyz234567";
const canonicalId = fc
  .array(fc.constantFrom(...base32), { minLength: 16, maxLength: 16 })
  .map((chars) => `d${chars.join("")}`);

/** Identical passages in every document: every hit ties, so the order is the tie-break alone. */
function tiedCorpus(ids: string[], passagesEach = 3): IndexedDocument[] {
  return ids.map((id) => ({
    id,
    title: "Weekly rota",
    path: ["Operations"],
    passages: Array.from({ length: passagesEach }, (_, ordinal) => ({
      chunkId: `${id}.${ordinal}`,
      ordinal,
      heading: "",
      text: "The weekend rota is on the wiki.",
    })),
  }));
}

/** The contract's order, worked out by brute force over every hit. */
function oracle(index: PassageIndex, q: string, limit: number): string[] {
  return index
    .search(matchQuery(q).expression, 100_000)
    .sort(
      (a, b) =>
        b.score - a.score ||
        (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : a.ordinal - b.ordinal),
    )
    .slice(0, limit)
    .map((h) => h.chunkId);
}

const chunkIds = (hits: PassageHit[]) => hits.map((h) => h.chunkId);

describe("ordered rowids", () => {
  it("ranges sort like the ids they belong to and never overlap, whatever order ids arrive and leave in", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.oneof(canonicalId, fc.string({ minLength: 1, maxLength: 6 })),
            fc.integer({ min: 1, max: 3000 }),
          ),
          {
            minLength: 1,
            maxLength: 80,
          },
        ),
        fc.array(fc.nat(), { maxLength: 40 }),
        (docs, removals) => {
          const ranges = new OrderedRanges();
          const held = new Map<string, [number, number]>();
          for (const [id, count] of docs) {
            if (held.has(id)) continue;
            const start = ranges.place(id, count);
            if (start !== null) held.set(id, [start, start + count]);
          }
          for (const r of removals) {
            const id = docs[r % docs.length]?.[0] as string;
            ranges.release(id);
            held.delete(id);
          }
          const byId = [...held.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          for (let i = 1; i < byId.length; i++) {
            expect((byId[i]?.[1][0] ?? 0) >= (byId[i - 1]?.[1][1] ?? 0)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("a build's documents, met in id order, are placed a gap apart", () => {
    const ranges = new OrderedRanges();
    const ids = Array.from({ length: 50 }, () => newId("d")).sort();
    const starts = ids.map((id) => ranges.place(id, 10) as number);
    for (let i = 1; i < starts.length; i++)
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBe(10 + ROWID_GAP);
  });

  it("runs out of room between two neighbours, and says so", () => {
    const ranges = new OrderedRanges();
    ranges.place("a", 10);
    ranges.place("b", 10);
    const between = Array.from({ length: 20 }, (_, i) => `a${String.fromCharCode(122 - i)}`);
    const results = between.map((id) => ranges.place(id, 1000));
    expect(results.filter((k) => k === null).length).toBeGreaterThan(0);
    expect(results[0]).not.toBeNull();
  });

  it("tied hits come back by document id, then ordinal, at any limit", () => {
    const index = new PassageIndex();
    index.apply(tiedCorpus(Array.from({ length: 60 }, () => newId("d"))));
    for (const limit of [1, 7, 20, 200]) {
      expect(chunkIds(index.find(matchQuery("weekend rota"), limit))).toEqual(
        oracle(index, "weekend rota", limit),
      );
    }
    index.close();
  });

  it("documents that found no room are ordered the slow way, with the same answer", () => {
    const index = new PassageIndex();
    const ids = Array.from({ length: 40 }, () => newId("d")).sort();
    index.apply(tiedCorpus(ids));
    // Crowd one gap until keys run out there.
    const first = ids[0] as string;
    const crowd = Array.from({ length: 24 }, (_, i) => `${first}${String.fromCharCode(122 - i)}`);
    index.apply(tiedCorpus(crowd));
    for (const limit of [1, 9, 30, 200]) {
      expect(chunkIds(index.find(matchQuery("weekend rota"), limit))).toEqual(
        oracle(index, "weekend rota", limit),
      );
    }
    // Once they are gone the index orders by rowid again, and still answers the same.
    index.apply([], crowd);
    expect(chunkIds(index.find(matchQuery("weekend rota"), 25))).toEqual(oracle(index, "weekend rota", 25));
    index.close();
  });

  it("property: any mix of ids and removals answers in the contract's order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(canonicalId, fc.string({ minLength: 1, maxLength: 4 })), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.nat(),
        fc.integer({ min: 1, max: 40 }),
        (ids, removeSeed, limit) => {
          const unique = [...new Set(ids)];
          const index = new PassageIndex();
          index.apply(tiedCorpus(unique, 2));
          const removed = unique.filter((_, i) => (removeSeed >> (i % 30)) & 1);
          index.apply([], removed);
          expect(chunkIds(index.find(matchQuery("weekend rota"), limit))).toEqual(
            oracle(index, "weekend rota", limit),
          );
          index.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});
