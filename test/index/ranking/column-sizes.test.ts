// FTS5's own token counts read from its records (src/index/ranking/column-sizes.ts) and bm25()'s arithmetic redone in
// JavaScript (src/index/ranking/bm25.ts), both checked against bm25() itself over real text nobody here wrote: the
// README files the project's dependencies ship, read at test time.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import { clampedShare, IDF_FLOOR, phraseIdf, phraseShare } from "../../../src/index/ranking/bm25.js";
import { ColumnSizes, readVarints } from "../../../src/index/ranking/column-sizes.js";
import { bm25Weights, columnWeights } from "../../../src/index/ranking/weights.js";
import { readmeRows } from "../../support/readme-rows.js";

describe("readVarints", () => {
  it("reads SQLite's varints: seven bits a byte, high bit on all but the last", () => {
    expect(readVarints(new Uint8Array([]))).toEqual([]);
    expect(readVarints(new Uint8Array([0x00, 0x7f]))).toEqual([0, 127]);
    expect(readVarints(new Uint8Array([0x81, 0x00]))).toEqual([128]);
    expect(readVarints(new Uint8Array([0x82, 0x80, 0x01, 0x05]))).toEqual([2 * 16384 + 1, 5]);
    expect(readVarints(new Uint8Array([0x81, 0x7f, 0x03]))).toEqual([255, 3]);
  });

  it("stops at the end of a record cut short, rather than reading past it", () => {
    expect(readVarints(new Uint8Array([0x05, 0x81]))).toEqual([5, 1]);
  });
});

const root = join(import.meta.dirname, "../../../node_modules");
const readmes = ["hono", "zod", "fast-check", "vitest", "typescript", "@libsql/client", "tsx", "libsql"]
  .map((name) => ({ name, file: join(root, name, "README.md") }))
  .filter(({ file }) => existsSync(file));

describe.skipIf(readmes.length === 0)(
  `ColumnSizes and phraseShare against bm25() (${readmes.length} READMEs)`,
  () => {
    it("give every row's length and the table's average exactly, and bm25()'s score to a part in a trillion", () => {
      const db = new IndexDatabase(":memory:");
      try {
        db.exec(`CREATE VIRTUAL TABLE passages USING fts5(heading, body, title, path, content = '',
        tokenize = 'porter unicode61')`);
        db.exec("CREATE VIRTUAL TABLE temp.instances USING fts5vocab(main, passages, 'instance')");
        const rows = readmeRows(readmes);
        expect(rows.length).toBeGreaterThan(100);
        const insert = db.prepare(
          "INSERT INTO passages (rowid, heading, body, title, path) VALUES (?, ?, ?, ?, ?)",
        );
        db.transaction(() => {
          for (const [i, r] of rows.entries()) insert.run(i + 1, r.heading, r.body, r.title, r.path);
        })();
        // A removal, as a replaced document makes: the totals must follow it.
        const removed = rows[0] as (typeof rows)[number];
        db.prepare(
          "INSERT INTO passages (passages, rowid, heading, body, title, path) VALUES ('delete', 1, ?, ?, ?, ?)",
        ).run(removed.heading, removed.body, removed.title, removed.path);

        // Every token instance, by row and column: the oracle for lengths and frequencies.
        const instances = db.prepare("SELECT term, doc, col FROM temp.instances").all() as {
          term: string;
          doc: number;
          col: keyof typeof columnWeights;
        }[];
        const lengthOf = new Map<number, number>();
        const frequency = new Map<string, Map<number, number>>();
        for (const { term, doc, col } of instances) {
          lengthOf.set(doc, (lengthOf.get(doc) ?? 0) + 1);
          const byRow = frequency.get(term) ?? new Map<number, number>();
          frequency.set(term, byRow);
          byRow.set(doc, (byRow.get(doc) ?? 0) + columnWeights[col]);
        }

        const sizes = new ColumnSizes(db, "passages");
        const rowids = Array.from({ length: rows.length }, (_, i) => i + 1);
        const lengths = sizes.lengths(rowids);
        expect(lengths.has(1)).toBe(false);
        for (const rowid of rowids.slice(1))
          expect(lengths.get(rowid) ?? 0, `row ${rowid}`).toBe(lengthOf.get(rowid) ?? 0);
        const averages = sizes.averages();
        expect(averages.rows).toBe(rows.length - 1);
        expect(averages.averageLength).toBeCloseTo(instances.length / (rows.length - 1), 12);

        // Terms across the range of rarity, each a one-phrase query bm25() scores.
        const terms = [...frequency.keys()].filter((t) => /^[a-z]{4,}$/.test(t)).sort();
        const sampled = terms.filter((_, i) => i % Math.max(1, Math.floor(terms.length / 60)) === 0);
        const score = db.prepare(
          `SELECT rowid, bm25(passages, ${bm25Weights.join(", ")}) AS rank FROM passages WHERE passages MATCH ?`,
        );
        let compared = 0;
        for (const term of sampled) {
          const byRow = frequency.get(term) as Map<number, number>;
          // A quoted term is stemmed again; only tokens porter leaves alone are their own query.
          const scored = score.all(`"${term}"`) as { rowid: number; rank: number }[];
          if (scored.length !== byRow.size || !scored.every((r) => byRow.has(r.rowid))) continue;
          const idf = phraseIdf(averages.rows, byRow.size);
          for (const { rowid, rank } of scored) {
            const share = phraseShare(
              idf,
              byRow.get(rowid) ?? 0,
              lengths.get(rowid) ?? 0,
              averages.averageLength,
            );
            expect(Math.abs(share + rank), `${term} in row ${rowid}`).toBeLessThan(
              1e-12 * Math.max(1, share),
            );
            compared++;
          }
        }
        expect(compared).toBeGreaterThan(100);

        // Tokens in half of all rows or more ("node" and "modules" of every row's path): FTS5 clamps their
        // IDF, and clampedShare is bm25()'s own bits, not within a part in a trillion.
        let clamped = 0;
        for (const [term, byRow] of frequency) {
          if (2 * byRow.size < averages.rows || !/^[a-z]+$/.test(term)) continue;
          const scored = score.all(`"${term}"`) as { rowid: number; rank: number }[];
          if (scored.length !== byRow.size) continue;
          expect(phraseIdf(averages.rows, byRow.size)).toBe(IDF_FLOOR);
          for (const { rowid, rank } of scored) {
            const share = clampedShare(
              byRow.get(rowid) ?? 0,
              lengths.get(rowid) ?? 0,
              averages.averageLength,
            );
            expect(-share, `${term} in row ${rowid}`).toBe(rank);
            clamped++;
          }
        }
        expect(clamped).toBeGreaterThan(100);
      } finally {
        db.close();
      }
    });
  },
);
