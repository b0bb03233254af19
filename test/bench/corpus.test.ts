import { describe, expect, it } from "vitest";
import {
  corpusPassages,
  generateCorpus,
  loadVocabulary,
  PATH_SEPARATOR,
  queryMix,
  SECTION_MAX_CHARS,
  SECTION_MIN_CHARS,
} from "../../bench/corpus.js";
import { measureFloor } from "../../bench/floor.js";
import { IndexDatabase } from "../../src/index/engine.js";

/** A sentence: capitalised first word, lowercase words after it, a full stop. */
const SENTENCE = "[A-Z][a-z]*(?: [a-z]+)*\\.";
const PARAGRAPH = new RegExp(`^${SENTENCE}(?: ${SENTENCE})*$`);

// Large enough for frequency statistics, small enough to generate in well under a second.
const corpus = generateCorpus({ chunks: 1_000, seed: 42 });
const passages = corpusPassages(corpus);

describe("generateCorpus", () => {
  it("is deterministic for a seed and changes with it", () => {
    expect(generateCorpus({ chunks: 50, seed: 42 })).toEqual(generateCorpus({ chunks: 50, seed: 42 }));
    expect(generateCorpus({ chunks: 50 })).toEqual(generateCorpus({ chunks: 50 }));
    expect(generateCorpus({ chunks: 50, seed: 43 })).not.toEqual(generateCorpus({ chunks: 50, seed: 42 }));
    // A smaller corpus is a prefix of a larger one with the same seed and shape.
    expect(generateCorpus({ chunks: 50, seed: 42 })).toEqual(corpus.slice(0, 5));
  });

  it("has exactly the requested number of sections", () => {
    expect(passages).toHaveLength(1_000);
    expect(corpus).toHaveLength(100);
    const uneven = generateCorpus({ chunks: 95, sectionsPerDocument: 7 });
    expect(corpusPassages(uneven)).toHaveLength(95);
    expect(uneven).toHaveLength(14);
    expect(uneven.at(-1)?.content.match(/^## /gm)).toHaveLength(95 - 13 * 7);
    expect(generateCorpus({ chunks: 0 })).toEqual([]);
    expect(() => generateCorpus({ chunks: -1 })).toThrow(RangeError);
    expect(() => generateCorpus({ chunks: 10, sectionsPerDocument: 0 })).toThrow(RangeError);
  });

  it("writes markdown documents with titles, H2 sections and paths from a small folder set", () => {
    const folders = new Set<string>();
    for (const doc of corpus) {
      expect(doc.title.split(" ").length).toBeGreaterThanOrEqual(2);
      expect(doc.title.split(" ").length).toBeLessThanOrEqual(5);
      expect(doc.content.startsWith(`# ${doc.title}\n\n## `)).toBe(true);
      expect(doc.path.length).toBeLessThanOrEqual(3);
      expect(new Set(doc.path).size).toBe(doc.path.length);
      for (const folder of doc.path) folders.add(folder);
    }
    expect(folders.size).toBeGreaterThan(20);
    expect(folders.size).toBeLessThanOrEqual(30);
    // Paths repeat across documents, as in a real folder tree.
    const paths = corpus.map((doc) => doc.path.join(PATH_SEPARATOR));
    expect(new Set(paths).size).toBeLessThan(paths.length);
  });

  it("keeps every section at about 1 KB of 2–4 paragraphs of sentences", () => {
    for (const p of passages) {
      expect(p.body.length).toBeGreaterThanOrEqual(SECTION_MIN_CHARS);
      expect(p.body.length).toBeLessThanOrEqual(SECTION_MAX_CHARS);
      const paragraphs = p.body.split("\n\n");
      expect(paragraphs.length).toBeGreaterThanOrEqual(2);
      expect(paragraphs.length).toBeLessThanOrEqual(4);
      for (const paragraph of paragraphs) expect(paragraph).toMatch(PARAGRAPH);
      expect(p.heading).toMatch(/^[A-Z][a-z]*(?: [a-z]+){1,3}$/);
    }
  });

  it("gives the plaintext of each section with its document's title and path", () => {
    const doc = corpus[3];
    if (doc === undefined) throw new Error("corpus too small");
    const own = passages.slice(30, 40);
    for (const p of own) {
      expect(p.title).toBe(doc.title);
      expect(p.path).toBe(doc.path.join(PATH_SEPARATOR));
      expect(doc.content).toContain(`\n## ${p.heading}\n\n${p.body}\n`);
    }
  });

  it("draws words with Zipf-like frequencies", () => {
    const vocabulary = loadVocabulary();
    expect(vocabulary).toHaveLength(50_000);
    expect(new Set(vocabulary).size).toBe(50_000);
    for (const word of vocabulary.slice(0, 1_000)) expect(word).toMatch(/^[a-z]{2,12}$/);
    // Ranks are shuffled, not alphabetical.
    expect([...vocabulary.slice(0, 100)].sort()).not.toEqual(vocabulary.slice(0, 100));

    const counts = new Map<string, number>();
    for (const p of passages) {
      for (const word of p.body.toLowerCase().match(/[a-z]+/g) ?? [])
        counts.set(word, (counts.get(word) ?? 0) + 1);
    }
    const byFrequency = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    expect(byFrequency[0]?.[0]).toBe(vocabulary[0]);
    const first = byFrequency[0]?.[1] ?? 0;
    const thousandth = byFrequency[999]?.[1] ?? 0;
    // Zipf with s ≈ 1.07 predicts a ratio near 1000^1.07 ≈ 1600.
    expect(first).toBeGreaterThan(100 * thousandth);
    // Fit the exponent from how much more often ranks 1–10 occur than ranks 91–100: the ratio of those two
    // sums grows with the exponent, so bisection finds the exponent that predicts the observed ratio.
    const total = (from: number, to: number) =>
      vocabulary.slice(from, to).reduce((sum, word) => sum + (counts.get(word) ?? 0), 0);
    const observed = total(0, 10) / total(90, 100);
    const predicted = (s: number) => {
      let head = 0;
      let tail = 0;
      for (let r = 1; r <= 10; r++) head += r ** -s;
      for (let r = 91; r <= 100; r++) tail += r ** -s;
      return head / tail;
    };
    let low = 0.5;
    let high = 2;
    for (let i = 0; i < 40; i++) {
      const mid = (low + high) / 2;
      if (predicted(mid) < observed) low = mid;
      else high = mid;
    }
    expect(low).toBeGreaterThan(1.0);
    expect(low).toBeLessThan(1.15);
  });
});

describe("queryMix", () => {
  const queries = queryMix();

  it("is a fixed, seeded mix of 200 queries of 1–6 distinct lowercase words", () => {
    expect(queries).toHaveLength(200);
    expect(queryMix()).toEqual(queries);
    expect(queryMix(7)).toEqual(queryMix(7));
    expect(queryMix(7)).not.toEqual(queries);
    for (const query of queries) {
      const words = query.split(" ");
      expect(words.length).toBeGreaterThanOrEqual(1);
      expect(words.length).toBeLessThanOrEqual(6);
      expect(new Set(words).size).toBe(words.length);
      for (const word of words) expect(word).toMatch(/^[a-z]{2,12}$/);
    }
    const lengths = new Set(queries.map((q) => q.split(" ").length));
    expect(lengths.size).toBe(6);
  });

  it("uses mostly mid-frequency words, some common, some rare, some absent", () => {
    const rank = new Map(loadVocabulary().map((word, i) => [word, i + 1]));
    const words = queries.flatMap((q) => q.split(" "));
    const ranks = words.map((w) => rank.get(w));
    const share = (test: (r: number | undefined) => boolean) => ranks.filter(test).length / ranks.length;
    expect(share((r) => r !== undefined && r >= 100 && r <= 5_000)).toBeGreaterThan(0.5);
    expect(share((r) => r !== undefined && r < 100)).toBeGreaterThan(0.05);
    expect(share((r) => r !== undefined && r > 5_000)).toBeGreaterThan(0.05);
    const withAbsent = queries.filter((q) => q.split(" ").some((w) => !rank.has(w)));
    expect(withAbsent).toHaveLength(20);
    for (const q of withAbsent) expect(q.split(" ").filter((w) => !rank.has(w))).toHaveLength(1);
  });

  it("has absent words that the index's stemmer cannot match in the corpus", () => {
    const vocabulary = new Set(loadVocabulary());
    const absent = queries.flatMap((q) => q.split(" ")).filter((w) => !vocabulary.has(w));
    const db = new IndexDatabase(":memory:");
    try {
      db.exec(
        "CREATE VIRTUAL TABLE passages USING fts5(heading, body, title, path, tokenize = 'porter unicode61')",
      );
      const insert = db.prepare("INSERT INTO passages (heading, body, title, path) VALUES (?, ?, ?, ?)");
      db.transaction(() => {
        for (const p of passages) insert.run(p.heading, p.body, p.title, p.path);
        // Every word a larger corpus could hold, so the check does not depend on this corpus's size.
        insert.run("", [...vocabulary].join(" "), "", "");
      })();
      // The count is read by name: the row's shape is the same on every engine the floor has run on.
      const match = db.prepare("SELECT count(*) AS n FROM passages WHERE passages MATCH ?");
      const count = (query: string) => (match.get(query) as { n: number }).n;
      for (const word of absent) expect(count(`"${word}"`)).toBe(0);
      // The check has teeth: the corpus's most common word is found.
      expect(count(`"${loadVocabulary()[0]}"`)).toBeGreaterThan(1);
    } finally {
      db.close();
    }
  });
});

describe("measureFloor", () => {
  it("times loading passages into a fresh FTS5 table", () => {
    const { ms } = measureFloor(passages.slice(0, 200));
    expect(ms).toBeGreaterThan(0);
    expect(Number.isFinite(ms)).toBe(true);
  });
});
