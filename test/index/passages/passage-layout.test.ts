// The index holds no text in FTS5: postings in a contentless table, each passage's text deflated in blocks
// beside it (docs/decisions/0023-index-memory-layout.md). These tests hold it to what a plain FTS5 table
// holding the text answers — same hits, same order, same scores, same snippets — and check that a removed
// or replaced document leaves none of its text behind.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import {
  type IndexedDocument,
  type PassageHit,
  PassageIndex,
  TRAIL_SEPARATOR,
} from "../../../src/index/passages/passage-index.js";
import {
  packBlock,
  type StoredPassage,
  TEXT_BLOCK_CHARS,
  textBlocks,
  unpackBlock,
} from "../../../src/index/passages/passage-text.js";
import { matchQuery } from "../../../src/index/query.js";
import { bm25Weights } from "../../../src/index/ranking/weights.js";
import {
  MATCH_CLOSE,
  MATCH_OPEN,
  renderSnippet,
  SNIPPET_ELLIPSIS,
  SNIPPET_TOKENS,
  withoutMarkers,
} from "../../../src/index/snippets/snippet.js";
import { checkedTotals, storedRows } from "../../support/passage-probe.js";

/** The earlier layout, as the reference: one FTS5 table holding every column's text, built from scratch. */
function oracleSearch(docs: readonly IndexedDocument[], expression: string, limit: number): PassageHit[] {
  const db = new IndexDatabase(":memory:");
  try {
    db.exec(`CREATE VIRTUAL TABLE passages USING fts5(heading, body, title, path,
      chunk_id UNINDEXED, document_id UNINDEXED, ordinal UNINDEXED,
      tokenize = 'porter unicode61')`);
    const insert = db.prepare(
      "INSERT INTO passages (heading, body, title, path, chunk_id, document_id, ordinal) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    db.transaction(() => {
      for (const d of docs) {
        for (const p of d.passages) {
          insert.run(
            p.heading,
            withoutMarkers(p.text),
            d.title,
            d.path.join(TRAIL_SEPARATOR),
            p.chunkId,
            d.id,
            p.ordinal,
          );
        }
      }
    })();
    const rows = db
      .prepare(
        `SELECT chunk_id, document_id, ordinal, heading, bm25(passages, ${bm25Weights.join(", ")}) AS rank,
          snippet(passages, 1, '${MATCH_OPEN}', '${MATCH_CLOSE}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS}) AS snippet
        FROM passages WHERE passages MATCH ? ORDER BY rank, document_id, ordinal LIMIT ?`,
      )
      .all(expression, limit) as {
      chunk_id: string;
      document_id: string;
      ordinal: number;
      heading: string;
      rank: number;
      snippet: string;
    }[];
    // Title and path as given: the index has always answered them from its map of documents, not from SQLite.
    const byId = new Map(docs.map((d) => [d.id, d]));
    return rows.map((r) => ({
      chunkId: r.chunk_id,
      documentId: r.document_id,
      ordinal: r.ordinal,
      title: byId.get(r.document_id)?.title ?? "",
      heading: r.heading,
      path: byId.get(r.document_id)?.path ?? [],
      snippet: renderSnippet(r.snippet),
      score: -r.rank,
    }));
  } finally {
    db.close();
  }
}

const words = ["ledger", "payroll", "audit", "invoice", "pension", "rota", "courier", "the", "of", "walrus"];
const sentence = fc
  .array(fc.constantFrom(...words, "—", "naïve", "東京", "<b>", '"q"', "\u0002x\u0003", "lone\ud800"), {
    minLength: 1,
    maxLength: 12,
  })
  .map((ws) => `${ws.join(" ")}.`);
// Bodies from a few words to ~3 KB, so a document of several passages spans several text blocks.
const body = fc.oneof(
  sentence,
  fc.array(sentence, { minLength: 20, maxLength: 60 }).map((ss) => ss.join(" ")),
);
const passages = fc.array(fc.record({ heading: fc.oneof(fc.constant(""), sentence), text: body }), {
  minLength: 0,
  maxLength: 8,
});
const documentArb = fc.record({
  id: fc.constantFrom("d_a", "d_b", "d_c", "d_d", "d_e", "d_f"),
  title: sentence,
  path: fc.array(fc.constantFrom("Ops", "Finance", "東京", "lone\udc00"), { maxLength: 2 }),
  passages,
  shuffled: fc.boolean(),
});
type Generated = typeof documentArb extends fc.Arbitrary<infer T> ? T : never;

function indexed(g: Generated, version: number): IndexedDocument {
  const ordinals = g.passages.map((_, i) => i);
  // Out-of-order ordinals get unordered rowids, whose ties take the statement that reads passage_rows.
  if (g.shuffled && ordinals.length > 1) ordinals.reverse();
  return {
    id: g.id,
    title: g.title,
    path: g.path,
    passages: g.passages.map((p, i) => ({
      chunkId: `${g.id}.${version}.${ordinals[i]}`,
      ordinal: ordinals[i] ?? i,
      heading: p.heading,
      text: p.text,
    })),
  };
}

describe("the passage layout", () => {
  it("property: answers as a plain FTS5 table holding the text, after any puts and removes", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(documentArb, fc.constantFrom("d_a", "d_b", "d_c")), {
          minLength: 1,
          maxLength: 14,
        }),
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.constantFrom(undefined, 3),
        (ops, queries, rowidGap) => {
          const index = new PassageIndex({ rowidGap });
          const held = new Map<string, IndexedDocument>();
          try {
            for (const [version, op] of ops.entries()) {
              if (typeof op === "string") {
                index.apply([], [op]);
                held.delete(op);
              } else {
                const doc = indexed(op, version);
                index.apply([doc]);
                held.set(doc.id, doc);
              }
            }
            const docs = [...held.values()];
            for (const q of queries) {
              const expression = matchQuery(q.join(" ")).expression;
              expect(index.search(expression, 10)).toEqual(oracleSearch(docs, expression, 10));
            }
            const passagesHeld = docs.reduce((n, d) => n + d.passages.length, 0);
            expect(storedRows(index).passages).toBe(passagesHeld);
          } finally {
            index.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps none of a removed document's text, and only the new version's of a replaced one", () => {
    const long = (id: string, n: number, word: string): IndexedDocument => ({
      id,
      title: `Title of ${id}`,
      path: ["Ops"],
      passages: Array.from({ length: n }, (_, ordinal) => ({
        chunkId: `${id}.1.${ordinal}`,
        ordinal,
        heading: `Part ${ordinal}`,
        // ~3 KB a passage: a block closes after two or three.
        text: `${word} ${"filler text of the runbook ".repeat(110)}`,
      })),
    });
    const index = new PassageIndex();
    try {
      index.apply([long("d_keep", 2, "kept"), long("d_gone", 9, "zeppelin"), long("d_swap", 9, "pelican")]);
      const blocksOf = (n: number) =>
        textBlocks(long("x", n, "w").passages.map((p) => ({ ...p, body: p.text }))).length;
      expect(blocksOf(9)).toBeGreaterThan(2);
      expect(storedRows(index)).toEqual({ passages: 20, textBlocks: blocksOf(2) + 2 * blocksOf(9) });

      index.apply([long("d_swap", 1, "albatross")], ["d_gone"]);
      expect(storedRows(index)).toEqual({ passages: 3, textBlocks: blocksOf(2) + 1 });
      expect(index.search('"zeppelin"', 10)).toEqual([]);
      expect(index.search('"pelican"', 10)).toEqual([]);
      const swapped = index.search('"albatross"', 10);
      expect(swapped.map((h) => h.chunkId)).toEqual(["d_swap.1.0"]);
      expect(swapped[0]?.snippet).toContain("<mark>albatross</mark>");

      index.apply([], ["d_keep", "d_swap"]);
      expect(storedRows(index)).toEqual({ passages: 0, textBlocks: 0 });
    } finally {
      index.close();
    }
  });

  it("removes passages with lone surrogates at their fields' edges as they went in: totals and answers of a fresh build", () => {
    const odd = (id: string, word: string): IndexedDocument => ({
      id,
      title: "T\ud800",
      path: ["\udc00P"],
      passages: [
        {
          chunkId: `${id}.1.0\ud800`,
          ordinal: 0,
          heading: `\udc00${word} head\ud800`,
          text: `\udc00${word} body\ud83d`,
        },
        { chunkId: `\ude00${id}.1.1`, ordinal: 1, heading: "\ud83d", text: `\ude00${word} second \udbff` },
      ],
    });
    const index = new PassageIndex();
    const fresh = new PassageIndex();
    try {
      index.apply([odd("d_a", "walrus"), odd("d_b", "walrus")]);
      index.apply([odd("d_a", "narwhal")], ["d_b"]);
      fresh.apply([odd("d_a", "narwhal")]);
      expect(checkedTotals(index)).toBe(checkedTotals(fresh));
      expect(index.search('"walrus"', 10)).toEqual([]);
      for (const expression of ['"narwhal"', '"head"', '"body"', '"second"'])
        expect(index.search(expression, 10)).toEqual(fresh.search(expression, 10));
      const [hit] = index.search('"head"', 1);
      expect(hit?.heading).toBe("\ufffdnarwhal head\ufffd");
      expect(hit?.chunkId).toBe("d_a.1.0\ufffd");
    } finally {
      index.close();
      fresh.close();
    }
  });

  it("returns each passage of a document spanning many blocks with its own id, heading and snippet", () => {
    const passagesOf = Array.from({ length: 30 }, (_, ordinal) => ({
      chunkId: `d_big.4.${ordinal}`,
      ordinal,
      heading: `Section ${ordinal}`,
      text: `marker${ordinal} ${"the ledger of the month ".repeat(60 + ordinal * 7)}`,
    }));
    const doc: IndexedDocument = { id: "d_big", title: "Big", path: ["Finance"], passages: passagesOf };
    const index = new PassageIndex();
    try {
      index.apply([doc]);
      expect(storedRows(index).textBlocks).toBeGreaterThan(5);
      for (const p of passagesOf) {
        const expression = `"marker${p.ordinal}"`;
        const [hit] = index.search(expression, 1);
        expect(hit).toEqual(oracleSearch([doc], expression, 1)[0]);
        expect(hit?.chunkId).toBe(p.chunkId);
        expect(hit?.heading).toBe(p.heading);
      }
    } finally {
      index.close();
    }
  });
});

describe("text blocks", () => {
  // Strings of whole characters come back exactly; binary ones may hold lone surrogates, which come back as
  // U+FFFD, as they did from SQLite (the property below compares well-formed strings).
  const stored = fc.record({
    chunkId: fc.string({ unit: "grapheme", maxLength: 30 }),
    heading: fc.string({ unit: "grapheme", maxLength: 40 }),
    body: fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 400 }),
      fc.string({ unit: "grapheme", maxLength: 4000 }),
    ),
  });

  it("property: a packed block unpacks to exactly the passages it was given", () => {
    fc.assert(
      fc.property(fc.array(stored, { minLength: 1, maxLength: 12 }), (ps: StoredPassage[]) => {
        expect(unpackBlock(packBlock(ps))).toEqual(ps);
      }),
    );
  });

  it("property: blocks keep every passage in order, and close once they pass the block size", () => {
    fc.assert(
      fc.property(fc.array(stored, { maxLength: 40 }), (ps: StoredPassage[]) => {
        const blocks = textBlocks(ps);
        expect(blocks.flat()).toEqual(ps);
        for (const block of blocks) {
          expect(block.length).toBeGreaterThan(0);
          const chars = block.reduce((n, p) => n + p.body.length, 0);
          // Only a block of one passage may exceed the size: a passage is never split.
          if (block.length > 1) expect(chars).toBeLessThanOrEqual(TEXT_BLOCK_CHARS);
        }
      }),
    );
  });

  it("hands back a lone surrogate as U+FFFD, as SQLite did when FTS5 held the text", () => {
    const [p] = unpackBlock(
      packBlock([{ chunkId: "d.1.0", heading: "a\ud800b", body: "\udc00 x \ud83d\ude00" }]),
    );
    expect(p).toEqual({ chunkId: "d.1.0", heading: "a\ufffdb", body: "\ufffd x \ud83d\ude00" });
  });

  it("stores the text deflated: a block of ordinary prose is well under half its size", () => {
    const prose = "The payroll export runs on the last working day of the month, after the audit. ";
    const ps = [{ chunkId: "d.1.0", heading: "Payroll", body: prose.repeat(80) }];
    expect(packBlock(ps).length).toBeLessThan(JSON.stringify(ps).length / 2);
  });
});
