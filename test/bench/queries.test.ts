import { describe, expect, it } from "vitest";
import { loadVocabulary } from "../../bench/corpus.js";
import { plainOrExpression } from "../../bench/floor.js";
import { LONG_QUERY_COUNT, longQueryMix } from "../../bench/queries.js";

describe("longQueryMix", () => {
  const queries = longQueryMix();

  it("is a fixed, seeded mix of 200 queries of 10–20 distinct vocabulary words", () => {
    expect(queries).toHaveLength(LONG_QUERY_COUNT);
    expect(longQueryMix()).toEqual(queries);
    expect(longQueryMix(7)).toEqual(longQueryMix(7));
    expect(longQueryMix(7)).not.toEqual(queries);
    const vocabulary = new Set(loadVocabulary());
    for (const query of queries) {
      const words = query.split(" ");
      expect(words.length).toBeGreaterThanOrEqual(10);
      expect(words.length).toBeLessThanOrEqual(20);
      expect(new Set(words).size).toBe(words.length);
      for (const word of words) expect(vocabulary.has(word)).toBe(true);
    }
    const lengths = queries.map((q) => q.split(" ").length);
    expect(Math.min(...lengths)).toBe(10);
    expect(Math.max(...lengths)).toBe(20);
  });

  it("mixes common words found in most passages with mid-frequency and rare content words", () => {
    const rank = new Map(loadVocabulary().map((word, i) => [word, i + 1]));
    const ranks = queries.flatMap((q) => q.split(" ").map((w) => rank.get(w) ?? Number.NaN));
    const share = (test: (r: number) => boolean) => ranks.filter(test).length / ranks.length;
    expect(share((r) => r <= 100)).toBeGreaterThan(0.15);
    expect(share((r) => r > 100 && r <= 5_000)).toBeGreaterThan(0.3);
    expect(share((r) => r > 5_000)).toBeGreaterThan(0.1);
    // Nearly every long query carries a common word, which is what makes it expensive for a plain OR.
    const withCommon = queries.filter((q) => q.split(" ").some((w) => (rank.get(w) ?? Infinity) <= 100));
    expect(withCommon.length / queries.length).toBeGreaterThan(0.95);
  });
});

describe("plainOrExpression", () => {
  it("quotes each term and ORs them, so operators and punctuation stay inert", () => {
    expect(plainOrExpression("near the NOT-so big")).toBe('"near" OR "the" OR "NOT" OR "so" OR "big"');
    expect(plainOrExpression("…")).toBe("");
  });
});
