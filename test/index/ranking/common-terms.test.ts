// PassageIndex.find leaves terms found in at least half of all passages out of the OR (their IDF is clamped
// to 1e-6, so they cannot move a score) and must answer exactly as the full expression would: same passages,
// same order, same snippets, scores equal to within the clamped terms' share.

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IndexedDocument, PassageIndex } from "../../../src/index/passages/passage-index.js";
import { matchQuery } from "../../../src/index/query.js";

// A word in every passage, one in about two thirds, then rarer and rarer ones: "the", "number", "phone" …
const vocabulary = [
  "the",
  "number",
  "phone",
  "office",
  "revenue",
  "june",
  "desk",
  "badge",
  "laptop",
  "walrus",
];
const shares = [1, 0.66, 0.3, 0.2, 0.12, 0.08, 0.05, 0.03, 0.02, 0.01];

function corpus(passages: number, seed: number): IndexedDocument[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const docs: IndexedDocument[] = [];
  for (let i = 0; i < passages; i++) {
    const words = vocabulary.filter((_, w) => random() < (shares[w] ?? 0));
    const filler = Array.from(
      { length: 8 + Math.floor(random() * 20) },
      (_, k) => `filler${(i * 7 + k) % 97}`,
    );
    const text = [...filler, ...words, ...words.slice(0, 2)].sort(() => random() - 0.5).join(" ");
    docs.push({
      id: `d${String(i).padStart(4, "0")}`,
      title: `Page ${i}`,
      path: [],
      passages: [{ chunkId: `c${i}`, ordinal: 0, heading: random() < 0.1 ? "Phone" : "", text }],
    });
  }
  return docs;
}

/**
 * The same answer as the full expression, up to the clamped terms' share of a score (~1e-5): as many hits,
 * the i-th hit's full score equal to the full answer's i-th score, each snippet the full search's snippet
 * for that passage, and the hits in the contract's order of their own scores.
 */
function expectSameAnswer(index: PassageIndex, q: string, limit: number) {
  const query = matchQuery(q);
  const found = index.find(query, limit);
  const full = index.search(query.expression, limit);
  const everything = new Map(index.search(query.expression, 100_000).map((h) => [h.chunkId, h]));
  expect(found).toHaveLength(full.length);
  for (const [i, hit] of found.entries()) {
    const own = everything.get(hit.chunkId);
    expect(own, `${hit.chunkId} is not a match of the full expression`).toBeDefined();
    expect(Math.abs((own?.score ?? 0) - (full[i]?.score ?? 0))).toBeLessThan(1e-4);
    expect(Math.abs((own?.score ?? 0) - hit.score)).toBeLessThan(1e-4);
    expect(hit.snippet).toBe(own?.snippet);
  }
  const order = [...found].sort(
    (a, b) => b.score - a.score || a.documentId.localeCompare(b.documentId) || a.ordinal - b.ordinal,
  );
  expect(found).toEqual(order);
}

describe("common terms", () => {
  let index: PassageIndex;
  beforeAll(() => {
    index = new PassageIndex();
    index.apply(corpus(400, 7));
  });
  afterAll(() => index.close());

  it("a query with a term in most passages answers as its full expression", () => {
    for (const q of ["office phone number", "the walrus", "number of the badge", "june revenue the number"]) {
      for (const limit of [3, 20]) expectSameAnswer(index, q, limit);
    }
  });

  it("when the rarer words find fewer passages than asked for, the weak matches of the common words still come back", () => {
    expect(index.find(matchQuery("the nonexistentword"), 50)).toHaveLength(50);
    expectSameAnswer(index, "the nonexistentword", 50);
  });

  it("highlights every word typed, including the common ones left out of the ranking expression", () => {
    const [top] = index.find(matchQuery("walrus the"), 5);
    expect(top?.snippet).toContain("<mark>walrus</mark>");
    expect(top?.snippet).toContain("<mark>the</mark>");
  });

  it("property: any query over the vocabulary answers as its full expression", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...vocabulary, "absentword", "the"), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(1, 5, 20, 100),
        (words, limit) => {
          expectSameAnswer(index, words.join(" "), limit);
        },
      ),
      // Each run also searches the full expression over all 2,800 passages with no limit: 300 runs took
      // 190 s in a full suite on a machine loaded far past its 2 cores, against a 30 s timeout. Queries of
      // up to 6 words from a small vocabulary at 4 limits repeat themselves long before 300; 100 keep it.
      { numRuns: 100 },
    );
  });

  it("frequencies follow writes: a term that stops being common is ranked by its real weight", () => {
    const own = new PassageIndex();
    const docs = corpus(60, 11);
    own.apply(docs);
    expectSameAnswer(own, "number walrus", 10);
    // Remove most passages holding "number": it is no longer in half of them.
    own.apply(
      [],
      docs
        .filter((d) => d.passages[0]?.text.includes("number"))
        .slice(0, 30)
        .map((d) => d.id),
    );
    expectSameAnswer(own, "number walrus", 10);
    own.close();
  });
});
