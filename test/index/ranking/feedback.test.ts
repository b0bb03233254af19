// Pseudo-relevance feedback (src/index/ranking/feedback.ts, term-table.ts, PassageIndex.find): the pure choice of
// expansion words and the rescoring arithmetic, pinned on hand-computed cases; and the index's rescoring
// against an oracle — FTS5's own bm25() of the first pass and of the expansion words' OR, added up for the
// first pass's candidates — over a generated corpus large enough for feedback to act.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import {
  type IndexedDocument,
  type PassageHit,
  PassageIndex,
} from "../../../src/index/passages/passage-index.js";
import { matchQuery, orExpression } from "../../../src/index/query.js";
import { phraseIdf, phraseShare } from "../../../src/index/ranking/bm25.js";
import { ColumnSizes } from "../../../src/index/ranking/column-sizes.js";
import {
  expansionTerms,
  FEEDBACK,
  type FeedbackParameters,
  type FeedbackPassage,
  feedbackScore,
} from "../../../src/index/ranking/feedback.js";
import { columnWeights } from "../../../src/index/ranking/weights.js";
import { decodePage, encodePage } from "../../../src/index/snapshots/snapshot.js";
import { applyAlongAnotherHistory } from "../../support/history.js";
import { TOPICS, topicCorpus, topicWord } from "../../support/topics.js";

const params: FeedbackParameters = { ...FEEDBACK, terms: 3, expansionLevels: 2, minCorpus: 100 };
/** Feedback as it ships, but on questions of any length: the mechanics below are pinned on short ones too. */
const AT_ANY_LENGTH: FeedbackParameters = { ...FEEDBACK, minQueryTerms: 1 };

describe("expansionTerms", () => {
  const top: FeedbackPassage[] = [
    {
      score: 10,
      termCounts: new Map([
        ["wing", 2],
        ["slipstream", 3],
        ["lift", 1],
        ["the", 4],
        ["42", 2],
      ]),
    },
    {
      score: 10 - Math.log(3),
      termCounts: new Map([
        ["slipstream", 1],
        ["propel", 2],
        ["ab", 5],
      ]),
    },
  ];
  const counts = new Map([
    ["slipstream", 5],
    ["lift", 20],
    ["propel", 8],
    ["the", 900],
    ["wing", 40],
  ]);
  const passagesWith = (term: string) => counts.get(term) ?? 0;

  it("weights a word by the relevance model times its IDF, heaviest first", () => {
    const terms = expansionTerms(top, new Set(["wing"]), passagesWith, 1000, params);
    // P(passage): e^0 / (1 + 1/3) = 0.75 and 0.25; lengths 12 and 8.
    const idf = (n: number) => Math.log((1000 - n + 0.5) / (n + 0.5));
    const slipstream = (0.75 * 3) / 12 + (0.25 * 1) / 8;
    const propel = (0.25 * 2) / 8;
    const lift = (0.75 * 1) / 12;
    expect(terms.map((t) => t.term)).toEqual(["slipstream", "propel", "lift"]);
    expect(terms[0]?.weight).toBeCloseTo(slipstream * idf(5), 12);
    expect(terms[1]?.weight).toBeCloseTo(propel * idf(8), 12);
    expect(terms[2]?.weight).toBeCloseTo(lift * idf(20), 12);
    // Two levels: the heaviest twice, the rest by their share of it, never fewer than once.
    expect(terms.map((t) => t.repeats)).toEqual([2, 1, 1]);
  });

  it("leaves out the query's stems, digits, short tokens, words too common and words the corpus lacks", () => {
    const terms = expansionTerms(top, new Set(["slipstream"]), passagesWith, 1000, { ...params, terms: 10 });
    const chosen = terms.map((t) => t.term);
    expect(chosen).not.toContain("slipstream");
    expect(chosen).not.toContain("42");
    expect(chosen).not.toContain("ab");
    expect(chosen).not.toContain("the");
    expect(expansionTerms(top, new Set(), () => 0, 1000, params)).toEqual([]);
  });

  it("adds nothing below the smallest corpus it trusts", () => {
    expect(expansionTerms(top, new Set(), passagesWith, 99, params)).toEqual([]);
    expect(expansionTerms(top, new Set(), passagesWith, 100, params)).not.toEqual([]);
  });

  it("property: the same passages give the same words whatever order their counts were gathered in", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            score: fc.double({ min: 0, max: 30, noNaN: true }),
            counts: fc.dictionary(fc.stringMatching(/^[a-z]{3,6}$/), fc.integer({ min: 1, max: 5 })),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (passages) => {
          const forward = passages.map((p) => ({
            score: p.score,
            termCounts: new Map(Object.entries(p.counts)),
          }));
          const backward = passages.map((p) => ({
            score: p.score,
            termCounts: new Map(Object.entries(p.counts).reverse()),
          }));
          const df = (term: string) => 1 + (term.charCodeAt(0) % 7);
          const a = expansionTerms(forward, new Set(), df, 1000, { ...params, terms: 20 });
          const b = expansionTerms(backward, new Set(), df, 1000, { ...params, terms: 20 });
          expect(b.map((t) => [t.term, t.repeats])).toEqual(a.map((t) => [t.term, t.repeats]));
          for (const [i, t] of a.entries())
            if (i > 0) expect(t.weight).toBeLessThanOrEqual(a[i - 1]?.weight ?? 0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("rescores a candidate: its first-pass score plus the expansion words' bm25 shares over queryRepeats", () => {
    const expansion = [
      { term: "slipstream", weight: 2, repeats: 2 },
      { term: "lift", weight: 1, repeats: 1 },
      { term: "propel", weight: 0.5, repeats: 1 },
    ];
    const corpus = { passages: 1000, averageLength: 50, passagesWith };
    const candidate = {
      score: 7,
      length: 100,
      frequencies: new Map([
        ["slipstream", 3],
        ["lift", 0.5],
      ]),
    };
    // bm25's share, k1 1.2 and b 0.75: idf·f·2.2 / (f + 1.2·(0.25 + 0.75·100/50)).
    const share = (n: number, f: number) => (phraseIdf(1000, n) * f * 2.2) / (f + 1.2 * (0.25 + 1.5));
    const expected = 7 + (2 * share(5, 3) + share(20, 0.5)) / 3;
    expect(feedbackScore(candidate, expansion, corpus, { ...params, queryRepeats: 3 })).toBeCloseTo(
      expected,
      12,
    );
    // A candidate holding no expansion word keeps its first-pass score: the scale is the first pass's.
    const bare = { score: 7, length: 100, frequencies: new Map<string, number>() };
    expect(feedbackScore(bare, expansion, corpus, { ...params, queryRepeats: 3 })).toBe(7);
  });
});

const view = (hits: PassageHit[]) => hits.map((h) => ({ ...h, score: Math.round(h.score * 1e9) }));

describe("PassageIndex with feedback", () => {
  const docs = topicCorpus(7, 1200);
  const questions = [
    "the flow of t3w1 and t3w4",
    "t5w0 model",
    "t17w2 t17w9 t17w11 result of the model",
    "t8w3",
    "absent words only",
  ];

  const corpora = [
    ["bodies and titles", docs],
    ["headings, bodies, titles and paths", topicCorpus(8, 1200, true)],
  ] as const;
  it.each(corpora)(
    "answers as the oracle: FTS5's scores of the first pass and of the expansion, added up (%s)",
    (_, corpus) => {
      const index = new PassageIndex({ feedback: AT_ANY_LENGTH });
      try {
        index.apply([...corpus]);
        let expanded = 0;
        let moved = 0;
        for (const q of questions) {
          const match = matchQuery(q);
          const expansion = index.expansionOf(match);
          const hits = index.find(match, 20);
          const first = index.search(match.expression, Math.max(20, FEEDBACK.candidates));
          if (expansion.length === 0) {
            expect(view(hits), q).toEqual(view(first.slice(0, 20)));
            continue;
          }
          expanded++;
          // FTS5 sums a repeated phrase's share, so the OR with each word its repeats is the expansion's part.
          const words = expansion.flatMap((t) => Array.from({ length: t.repeats }, () => t.term));
          const shares = new Map(
            index.search(orExpression(words, []), 1_000_000).map((h) => [h.chunkId, h.score] as const),
          );
          const expected = first
            .map((h) => ({ ...h, score: h.score + (shares.get(h.chunkId) ?? 0) / FEEDBACK.queryRepeats }))
            .sort(
              (a, b) =>
                b.score - a.score ||
                (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : a.ordinal - b.ordinal),
            )
            .slice(0, 20);
          expect(
            hits.map((h) => h.chunkId),
            q,
          ).toEqual(expected.map((h) => h.chunkId));
          for (const [i, hit] of hits.entries()) {
            // Computed in JavaScript against FTS5's C: equal to the last few bits.
            expect(Math.abs(hit.score - (expected[i]?.score ?? 0)), q).toBeLessThan(1e-9 * hit.score);
            // The snippet is the one a plain search cuts for the passage: marking only what was typed.
            expect(hit.snippet).toBe(first.find((h) => h.chunkId === hit.chunkId)?.snippet);
          }
          if (hits.map((h) => h.chunkId).join() !== first.map((h) => h.chunkId).join()) moved++;
          // The snippets mark the person's words only.
          const typed = new Set(match.terms);
          for (const hit of hits) {
            for (const [, marked] of hit.snippet.matchAll(/<mark>(.*?)<\/mark>/g)) {
              expect(typed.has((marked ?? "").toLowerCase()), `${q}: ${marked}`).toBe(true);
            }
          }
        }
        // Every question with a topic word is expanded; the one without any is not; the expansion reorders.
        expect(expanded).toBe(questions.length - 1);
        expect(moved).toBeGreaterThan(0);
      } finally {
        index.close();
      }
    },
  );

  it("rescores only the first pass's candidates: a passage it did not return never enters", () => {
    const index = new PassageIndex({ feedback: AT_ANY_LENGTH });
    try {
      index.apply(docs);
      for (const q of questions) {
        const match = matchQuery(q);
        for (const limit of [1, 5, 20, 60]) {
          const pool = new Set(
            index.search(match.expression, Math.max(limit, FEEDBACK.candidates)).map((h) => h.chunkId),
          );
          const hits = index.find(match, limit);
          expect(hits.length, q).toBe(Math.min(limit, pool.size));
          for (const hit of hits) expect(pool.has(hit.chunkId), `${q} @${limit}`).toBe(true);
        }
      }
    } finally {
      index.close();
    }
  });

  it("counts an expansion word's passages by its own token, which porter would stem again differently", () => {
    // "dimensional" is held as the token "dimension", which a query stems on to "dimens" — the token of
    // "dimensions". Counted through a query, the word would seem to be in the 200 passages about dimensions
    // (over a tenth of the corpus, so never chosen); it is in the five about flutter.
    const passage = (id: string, text: string): IndexedDocument => ({
      id,
      title: id,
      path: [],
      passages: [{ chunkId: `${id}.0`, ordinal: 0, heading: "", text }],
    });
    const filler = (i: number) =>
      `record ${Array.from({ length: 12 }, (_, j) => `w${(i * 7 + j) % 500}`).join(" ")}`;
    const docs = [
      ...Array.from({ length: 5 }, (_, i) =>
        passage(
          `flutter${i}`,
          `aeroelastic flutter dimensional dimensional dimensional analysis ${filler(i)}`,
        ),
      ),
      ...Array.from({ length: 200 }, (_, i) => passage(`dims${i}`, `dimensions of ${filler(i + 5)}`)),
      ...Array.from({ length: 1000 }, (_, i) => passage(`other${i}`, filler(i + 205))),
    ];
    const index = new PassageIndex({ feedback: AT_ANY_LENGTH });
    try {
      index.apply(docs);
      // The premise: on this SQLite, the quoted word finds the other token's passages, not its own.
      const quoted = index.search('"dimension"', 1000).map((h) => h.documentId);
      expect(quoted.length).toBe(200);
      expect(quoted.some((id) => id.startsWith("flutter"))).toBe(false);
      const match = matchQuery("aeroelastic flutter");
      const expansion = index.expansionOf(match);
      expect(expansion.map((t) => t.term)).toContain("dimension");

      // And rescoring weighs the word by those five passages: the scores against a rescoring done here from
      // scratch, over a table of the same rows, with every count read from FTS5's vocabulary of tokens.
      const db = new IndexDatabase(":memory:");
      try {
        db.exec(
          `CREATE VIRTUAL TABLE t USING fts5(heading, body, title, path, tokenize = 'porter unicode61')`,
        );
        db.exec("CREATE VIRTUAL TABLE t_rows USING fts5vocab(t, 'row')");
        db.exec("CREATE VIRTUAL TABLE t_instances USING fts5vocab(t, 'instance')");
        const insert = db.prepare(
          "INSERT INTO t (rowid, heading, body, title, path) VALUES (?, '', ?, ?, '')",
        );
        const rowidOf = new Map(docs.map((d, i) => [d.id, i + 1]));
        db.transaction(() => {
          for (const d of docs) insert.run(rowidOf.get(d.id), d.passages[0]?.text, d.title);
        })();
        const sizes = new ColumnSizes(db, "t");
        const { rows, averageLength } = sizes.averages();
        const rowsWith = db.prepare("SELECT doc FROM t_rows WHERE term = ?");
        const instances = db.prepare("SELECT col FROM t_instances WHERE term = ? AND doc = ?");
        const first = new Map(index.search(match.expression, 20).map((h) => [h.chunkId, h.score] as const));
        const hits = index.find(match, 20).filter((h) => h.documentId.startsWith("flutter"));
        expect(hits.length).toBe(5);
        for (const hit of hits) {
          const rowid = rowidOf.get(hit.documentId) as number;
          const length = sizes.lengths([rowid]).get(rowid) ?? 0;
          let shares = 0;
          for (const t of expansion) {
            const cols = instances.all(t.term, rowid) as { col: keyof typeof columnWeights }[];
            const frequency = cols.reduce((sum, c) => sum + columnWeights[c.col], 0);
            if (frequency === 0) continue;
            const n = (rowsWith.get(t.term) as { doc: number }).doc;
            shares += t.repeats * phraseShare(phraseIdf(rows, n), frequency, length, averageLength);
          }
          const expected = (first.get(hit.chunkId) ?? 0) + shares / FEEDBACK.queryRepeats;
          expect(Math.abs(hit.score - expected), hit.documentId).toBeLessThan(1e-9 * expected);
        }
      } finally {
        db.close();
      }
    } finally {
      index.close();
    }
  });

  it("expands with the query's topic words", () => {
    const index = new PassageIndex({ feedback: AT_ANY_LENGTH });
    try {
      index.apply(docs);
      const expansion = index.expansionOf(matchQuery("t3w1 t3w4"));
      expect(expansion.length).toBeGreaterThan(0);
      expect(expansion.every((t) => t.term.startsWith("t3w"))).toBe(true);
    } finally {
      index.close();
    }
  });

  it("expands the same data the same way whatever its history (a restarted server included)", () => {
    const once = new PassageIndex({ feedback: AT_ANY_LENGTH });
    const rewritten = new PassageIndex({ feedback: AT_ANY_LENGTH });
    try {
      once.apply(docs);
      applyAlongAnotherHistory(rewritten, docs);
      expect(rewritten.unorderedDocuments()).toBeGreaterThan(0);
      for (const q of questions) {
        const match = matchQuery(q);
        expect(rewritten.expansionOf(match), q).toEqual(once.expansionOf(match));
        // To the last bit: the rewritten index has documents out of rowid order and answers unpruned.
        expect(JSON.stringify(rewritten.find(match, 20)), q).toBe(JSON.stringify(once.find(match, 20)));
      }
    } finally {
      once.close();
      rewritten.close();
    }
  });

  it("answers from a restored snapshot byte for byte as from the index it was taken from", () => {
    // Rescoring reads FTS5's length records, which a restore writes back as copied rows.
    const original = new PassageIndex({ feedback: AT_ANY_LENGTH });
    let copy: PassageIndex | null = null;
    try {
      original.apply(docs);
      const snapshot = original.snapshot(50);
      const restore = PassageIndex.restore({ feedback: AT_ANY_LENGTH });
      for (const page of snapshot.pages) restore.write(decodePage(encodePage(page)));
      copy = restore.finish(JSON.parse(JSON.stringify(snapshot.state())));
      for (const q of questions) {
        const match = matchQuery(q);
        for (const limit of [3, 20, 40]) {
          expect(JSON.stringify(copy.find(match, limit)), q).toBe(
            JSON.stringify(original.find(match, limit)),
          );
        }
      }
    } finally {
      original.close();
      copy?.close();
    }
  });

  it("is off below the smallest corpus it trusts, and unless asked for", () => {
    const small = new PassageIndex({ feedback: AT_ANY_LENGTH });
    const off = new PassageIndex();
    try {
      small.apply(docs.slice(0, FEEDBACK.minCorpus - 1));
      off.apply(docs);
      for (const q of questions) {
        const match = matchQuery(q);
        expect(small.expansionOf(match)).toEqual([]);
        expect(view(small.find(match, 20))).toEqual(view(small.search(match.expression, 20)));
        expect(off.expansionOf(match)).toEqual([]);
        expect(view(off.find(match, 20))).toEqual(view(off.search(match.expression, 20)));
      }
    } finally {
      small.close();
      off.close();
    }
  });

  it("answers a question of fewer than minQueryTerms words by the first pass alone, and expands longer ones", () => {
    const index = new PassageIndex({ feedback: FEEDBACK });
    try {
      index.apply(docs);
      const short = matchQuery(`${topicWord(3, 1)} ${topicWord(3, 4)}`);
      expect(short.terms.length).toBeLessThan(FEEDBACK.minQueryTerms);
      expect(index.expansionOf(short)).toEqual([]);
      expect(view(index.find(short, 20))).toEqual(view(index.search(short.expression, 20)));
      const longer = matchQuery(`${topicWord(3, 1)} ${topicWord(3, 4)} ${topicWord(3, 2)}`);
      expect(longer.terms.length).toBeGreaterThanOrEqual(FEEDBACK.minQueryTerms);
      expect(index.expansionOf(longer).length).toBeGreaterThan(0);
    } finally {
      index.close();
    }
  });

  it("takes any query a person might type: 64 terms, other scripts, FTS5's own words, digits", () => {
    const index = new PassageIndex({ feedback: AT_ANY_LENGTH });
    try {
      index.apply(docs);
      const hostile = [
        Array.from({ length: 80 }, (_, i) => topicWord(i % TOPICS, i % 30)).join(" "),
        'NEAR AND OR NOT t3w1 "t3w2" (t3w4) * ^',
        "日本語の文章 t3w1 Ελληνικά кириллица t3w1 t3w1",
        "0 00 000 12345 t9w3",
        "x",
      ];
      for (const q of hostile) {
        const match = matchQuery(q);
        const hits = index.find(match, 20);
        expect(hits.length, q).toBeLessThanOrEqual(20);
        for (const [i, hit] of hits.entries())
          if (i > 0) expect(hit.score).toBeLessThanOrEqual(hits[i - 1]?.score ?? 0);
      }
    } finally {
      index.close();
    }
  });
});
