// Ordered rowids let FTS5 break score ties by rowid; they must sort exactly like (document id, ordinal), and
// anything that cannot get one must still answer in that order through the slower path.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { type IndexedDocument, type PassageHit, PassageIndex } from "../../src/index/passage-index.js";
import { matchQuery } from "../../src/index/query.js";
import { orderedRowidBase } from "../../src/index/rowids.js";

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
  it("sort like the ids they come from", () => {
    fc.assert(
      fc.property(canonicalId, canonicalId, (a, b) => {
        const [x, y] = [orderedRowidBase(a), orderedRowidBase(b)];
        if (x === null || y === null) throw new Error("canonical ids always get a rowid");
        if (a < b) expect(x <= y).toBe(true);
        if (a > b) expect(x >= y).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("are given only to memoria's own id shape", () => {
    expect(orderedRowidBase(newId("d"))).not.toBeNull();
    for (const id of ["d_a", "doc_marketing", "D234567abcdefghijk", `${newId("d")}x`]) {
      expect(orderedRowidBase(id)).toBeNull();
    }
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

  it("documents without ordered rowids (another id shape, a shared prefix) are ordered the slow way, the same", () => {
    const index = new PassageIndex();
    const ids = Array.from({ length: 40 }, () => newId("d"));
    const twin = `${(ids[0] as string).slice(0, 10)}${"z".repeat(7)}`;
    index.apply(tiedCorpus([...ids, "d_odd", twin]));
    for (const limit of [1, 9, 30]) {
      expect(chunkIds(index.find(matchQuery("weekend rota"), limit))).toEqual(
        oracle(index, "weekend rota", limit),
      );
    }
    // Once they are gone the index orders by rowid again, and still answers the same.
    index.apply([], ["d_odd", twin]);
    expect(chunkIds(index.find(matchQuery("weekend rota"), 25))).toEqual(oracle(index, "weekend rota", 25));
    index.close();
  });

  it("property: any mix of ids and removals answers in the contract's order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(canonicalId, fc.constantFrom("d_a", "d_b", "x1")), { minLength: 1, maxLength: 30 }),
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
