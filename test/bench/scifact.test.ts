import { describe, expect, it } from "vitest";
import { corpusPassages, generateCorpus } from "../../bench/corpus.js";
import { ABSTRACT_BOUNDS, generateSciFactCorpus, SECOND_SECTION_BOUNDS } from "../../bench/scifact.js";
import { generateShape } from "../../bench/shapes.js";
import { chunkDocument } from "../../src/ingest/chunk.js";

const corpus = generateSciFactCorpus({ chunks: 2_000, seed: 42 });
const passages = corpusPassages(corpus);

describe("generateSciFactCorpus", () => {
  it("is deterministic for a seed and changes with it", () => {
    expect(generateSciFactCorpus({ chunks: 50, seed: 42 })).toEqual(
      generateSciFactCorpus({ chunks: 50, seed: 42 }),
    );
    expect(generateSciFactCorpus({ chunks: 50 })).toEqual(generateSciFactCorpus({ chunks: 50 }));
    expect(generateSciFactCorpus({ chunks: 50, seed: 43 })).not.toEqual(
      generateSciFactCorpus({ chunks: 50, seed: 42 }),
    );
    // Not the ten-section corpus's text under another layout.
    expect(corpusPassages(generateSciFactCorpus({ chunks: 5, seed: 42 }))[0]?.body).not.toBe(
      corpusPassages(generateCorpus({ chunks: 5, seed: 42 }))[0]?.body,
    );
  });

  it("holds exactly the requested passages, about 1.1 a document", () => {
    expect(passages).toHaveLength(2_000);
    for (const chunks of [0, 1, 2, 3, 37]) {
      expect(corpusPassages(generateSciFactCorpus({ chunks, seed: 7 }))).toHaveLength(chunks);
    }
    const perDocument = passages.length / corpus.length;
    expect(perDocument).toBeGreaterThan(1.05);
    expect(perDocument).toBeLessThan(1.15);
    expect(() => generateSciFactCorpus({ chunks: -1 })).toThrow(RangeError);
  });

  it("writes ~1.5 KB abstracts as untitled passages, and the odd headed section", () => {
    const abstracts = passages.filter((p) => p.heading === "");
    expect(abstracts).toHaveLength(corpus.length);
    for (const p of abstracts) {
      expect(p.body.length).toBeGreaterThanOrEqual(ABSTRACT_BOUNDS.minChars);
      expect(p.body.length).toBeLessThanOrEqual(ABSTRACT_BOUNDS.maxChars);
    }
    const mean = abstracts.reduce((sum, p) => sum + p.body.length, 0) / abstracts.length;
    expect(mean).toBeGreaterThan(1_350);
    expect(mean).toBeLessThan(1_650);
    for (const p of passages.filter((p) => p.heading !== "")) {
      expect(p.body.length).toBeGreaterThanOrEqual(SECOND_SECTION_BOUNDS.minChars);
      expect(p.body.length).toBeLessThanOrEqual(SECOND_SECTION_BOUNDS.maxChars);
    }
  });

  it("gives the passages memoria's chunker makes of the same documents", () => {
    // The bench checks memoria indexed exactly as many passages as the floor loaded; this is why they agree.
    const sample = corpus.slice(0, 300);
    const ours = corpusPassages(sample);
    const chunked = sample.flatMap((doc) => chunkDocument({ ...doc, format: "markdown" }));
    expect(chunked.map((p) => ({ heading: p.heading, body: p.text }))).toEqual(
      ours.map((p) => ({ heading: p.heading, body: p.body })),
    );
  });
});

describe("generateShape", () => {
  it("gives each shape exactly the passages asked for", () => {
    expect(corpusPassages(generateShape("sections", 95))).toHaveLength(95);
    expect(corpusPassages(generateShape("scifact", 95))).toHaveLength(95);
    expect(generateShape("sections", 100)).toHaveLength(10);
    expect(generateShape("scifact", 100).length).toBeGreaterThan(85);
  });
});
