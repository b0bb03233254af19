// Pruning's clamped shares (src/index/ranking/pruned-ranking.ts, docs/decisions/0049-clamped-shares.md): the words in
// half of all rows or more are left out of FTS5's lists and their shares added afterwards, and the answer must
// still be the full expression's to the last bit. Checked against the full expression run by FTS5 itself, by
// the index's own engine over real text nobody here wrote (the README files the project's dependencies ship), with
// real counts from the scratch term table and FTS5's own records.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexDatabase } from "../../../src/index/engine.js";
import { rankByRowidSql, schema } from "../../../src/index/passages/passage-layout.js";
import { orExpression, queryTerms } from "../../../src/index/query.js";
import { ColumnSizes } from "../../../src/index/ranking/column-sizes.js";
import {
  canonicalOrder,
  prunedRanking,
  type RankedRow,
  type RankingSource,
} from "../../../src/index/ranking/pruned-ranking.js";
import { TermTable } from "../../../src/index/ranking/term-table.js";
import { type ReadmeRow, readmeRows } from "../../support/readme-rows.js";

type Row = ReadmeRow;

const root = join(import.meta.dirname, "../../../node_modules");

/** Enough rows that pruning adds clamped shares at every limit tested (it does above 64 × limit essential rows). */
const ROWS = 1500;

/** The dependencies' README files, in a fixed order: node_modules/<package> and node_modules/@scope/<package>. */
function readmeFiles(): { name: string; file: string }[] {
  const packages = readdirSync(root)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@") ? readdirSync(join(root, name)).map((inner) => `${name}/${inner}`) : [name],
    )
    .sort();
  return packages
    .map((name) => ({ name, file: join(root, name, "README.md") }))
    .filter(({ file }) => existsSync(file));
}

/** Sentences of 6–20 words from the same READMEs: questions in the words the text uses. */
function sentences(rows: readonly Row[]): string[] {
  return rows
    .flatMap((r) => r.body.split(/(?<=[.?!])\s+/))
    .filter((s) => {
      const n = queryTerms(s).length;
      return n >= 6 && n <= 20;
    });
}

/** An index of `rows` as the passage index lays it out, with the source pruning reads, counting its calls. */
function indexOf(rows: readonly Row[]) {
  const db = new IndexDatabase(":memory:");
  for (const sql of schema) db.exec(sql);
  const insert = db.prepare(
    "INSERT INTO passages (rowid, heading, body, title, path) VALUES (?, ?, ?, ?, ?)",
  );
  db.transaction(() => {
    for (const [i, r] of rows.entries()) insert.run(i + 1, r.heading, r.body, r.title, r.path);
  })();
  const rank = db.prepare(rankByRowidSql);
  const count = db.prepare("SELECT count(*) AS n FROM passages WHERE passages MATCH ?");
  const anyRow = db.prepare("SELECT 1 FROM passages WHERE passages MATCH ? LIMIT 1");
  const terms = new TermTable(db);
  const sizes = new ColumnSizes(db, "passages");
  const calls = { termCounts: 0, nearLists: 0, notLists: 0, andLists: 0 };
  const source: RankingSource = {
    rank: (expression, n) => {
      // The NEAR list; the full expression holds its NEAR group as an OR operand instead.
      if (expression.includes(") AND NEAR(")) calls.nearLists++;
      if (expression.includes(") NOT (")) calls.notLists++;
      if (expression.includes(") AND (")) calls.andLists++;
      return rank.all(expression, n) as RankedRow[];
    },
    matchingAtLeast: (term) => (count.get(`"${term}"`) as { n: number }).n,
    matchesAny: (expression) => anyRow.get(expression) !== undefined,
    passages: rows.length,
    termCounts: (rowids, words) => {
      calls.termCounts++;
      const frequencies = terms.frequenciesOf(
        rowids.map((rowid) => rows[rowid - 1] as Row),
        words,
      );
      return frequencies && { ...sizes.averages(), lengths: sizes.lengths(rowids), frequencies };
    },
  };
  /** The oracle: the full expression in the canonical order, run by FTS5 as it is. */
  const full = (q: readonly string[], limit: number) => {
    const ordered = canonicalOrder(q, new Map(q.map((t) => [t, source.matchingAtLeast(t)])));
    return source.rank(orExpression(ordered, ordered), limit);
  };
  return { db, source, full, calls };
}

describe("clamped shares added outside FTS5 (real README text)", () => {
  const rows = readmeRows(readmeFiles(), ROWS);
  // A few hundred questions keep the file to seconds on a loaded machine.
  const questions = sentences(rows)
    .filter((_, i) => i % 3 === 0)
    .slice(0, 200);

  it("answers every real sentence as the full expression does, scores to the last bit", () => {
    const { db, source, full, calls } = indexOf(rows);
    try {
      expect(rows.length).toBe(ROWS);
      expect(questions.length).toBeGreaterThan(100);
      for (const [i, q] of questions.entries()) {
        // Every other question also names the package folder ("node" is in every row's path): few README
        // words are in half of its paragraphs, and a word that is must be in the question to be added outside.
        const terms = queryTerms(i % 2 === 0 ? q : `${q} in node`);
        const limit = [1, 5, 10, 20, 30][i % 5] as number;
        expect(prunedRanking(terms, limit, source), q).toEqual(full(terms, limit));
      }
      // Not vacuous: the questions naming "node" add clamped shares outside FTS5.
      expect(calls.termCounts).toBeGreaterThan(questions.length / 4);
    } finally {
      db.close();
    }
  });

  it("property: the same over mixed words, repeats, words no row holds and exact ties at the cut", () => {
    // Every row repeated: each score is tied with its copy's, so the cut falls between ties.
    const doubled = [...rows, ...rows];
    const { db, source, full, calls } = indexOf(doubled);
    const words = [...new Set(questions.flatMap((q) => queryTerms(q)))];
    try {
      fc.assert(
        fc.property(
          fc.array(fc.oneof(fc.constantFrom(...words), fc.constantFrom("the", "node", "modules", "zzqx")), {
            minLength: 2,
            maxLength: 20,
          }),
          fc.integer({ min: 1, max: 30 }),
          (terms, limit) => {
            expect(prunedRanking(terms, limit, source), terms.join(" ")).toEqual(full(terms, limit));
          },
        ),
        { numRuns: 150 },
      );
      expect(calls.termCounts).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it("takes a rare word's threshold list for the NOT list, and still answers exactly, ties at the cut included", () => {
    // Every row twice, so scores tie at the cut. Two words, one rarer than the other, as a person asks: the
    // threshold query is the rarer word alone, which is also the only essential term when the other's bound
    // stays under the threshold, and then no NOT list is asked.
    const doubled = [...rows, ...rows];
    const { db, source, full, calls } = indexOf(doubled);
    const counted = [...new Set(questions.flatMap((q) => queryTerms(q.toLowerCase())))]
      .map((word) => ({ word, n: source.matchingAtLeast(word) }))
      .filter(({ n }) => n > 0)
      .sort((a, b) => a.n - b.n || (a.word < b.word ? -1 : 1));
    const rarer = counted.filter(({ n }) => n >= 40 && n <= 400).map(({ word }) => word);
    const common = counted.filter(({ n }) => n > 400).map(({ word }) => word);
    try {
      expect(rarer.length).toBeGreaterThan(10);
      expect(common.length).toBeGreaterThan(10);
      let pruned = 0;
      let withoutNot = 0;
      fc.assert(
        fc.property(
          fc.constantFrom(...rarer),
          fc.constantFrom(...common, "node", "the"),
          fc.boolean(),
          fc.integer({ min: 1, max: 30 }),
          (rare, other, rareFirst, limit) => {
            const terms = rareFirst ? [rare, other] : [other, rare];
            const before = { ...calls };
            expect(prunedRanking(terms, limit, source), terms.join(" ")).toEqual(full(terms, limit));
            // Split into an essential and a non-essential word, the AND list is asked; the NOT list with it,
            // unless the threshold list stood in for it. A non-essential word in every row asks none anyway.
            const everywhere = source.matchingAtLeast(other) >= doubled.length;
            if (calls.andLists > before.andLists && !everywhere) {
              pruned++;
              if (calls.notLists === before.notLists) withoutNot++;
            }
          },
        ),
        { numRuns: 200 },
      );
      // Not vacuous: most of these questions prune, and about half of those take the threshold list's place
      // (68–105 of 163–174 in ten runs; the others' threshold query also takes the commoner word, where the
      // rarer one's rows fall short of 8 × the limit). None would with the substitution off.
      expect(pruned).toBeGreaterThan(100);
      expect(withoutNot).toBeGreaterThan(pruned / 4);
    } finally {
      db.close();
    }
  });

  it("leaves a common word that is not plain ASCII in FTS5's lists, and still answers exactly", () => {
    // "straße" in every other row: clamped, but how unicode61 splits it is FTS5's business, so FTS5 scores
    // it; "node", in every row, comes after it in the canonical order and is added outside.
    const { db, source, full, calls } = indexOf(
      rows.map((r, i) => (i % 2 === 0 ? { ...r, path: `${r.path} straße` } : r)),
    );
    try {
      for (const q of questions.slice(0, 40)) {
        const terms = [...queryTerms(q), "straße", "node"];
        expect(prunedRanking(terms, 10, source), q).toEqual(full(terms, 10));
      }
      expect(calls.termCounts).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it("runs the NEAR list only where a row holds every term, and answers exactly with or without a NEAR match", () => {
    // Each question's words again in one row each: once as written (NEAR matches), once with three filler
    // words between every two (every term in one row, NEAR cannot match), so both sides of the every-term
    // check are taken.
    const asked = questions.slice(0, 30);
    const spread = (q: string) =>
      queryTerms(q)
        .map((word) => `${word} filler filler filler`)
        .join(" ");
    const extra = asked.flatMap((q) => [
      { heading: "", body: q, title: "", path: "node" },
      { heading: "", body: spread(q), title: "", path: "node" },
    ]);
    // Two words in one row each, so a question with them is rarest in them and never in one row with them.
    extra.push(
      { heading: "", body: "zzqx", title: "", path: "node" },
      { heading: "", body: "zzqy", title: "", path: "node" },
    );
    const { db, source, full, calls } = indexOf([...rows, ...extra]);
    try {
      let prunedNearLists = 0;
      for (const q of asked) {
        const terms = queryTerms(q);
        const expected = full(terms, 10);
        const before = calls.nearLists;
        expect(prunedRanking(terms, 10, source), q).toEqual(expected);
        prunedNearLists += calls.nearLists - before;
      }
      // Every question's words are in a row of their own: the check lets each through to the NEAR list.
      expect(prunedNearLists).toBeGreaterThanOrEqual(asked.length / 2);
      // A question's words and a word of another row: no row holds the rarest four, so the NEAR list is not
      // asked for.
      for (const q of asked) {
        const terms = [...queryTerms(q), "zzqx", "zzqy"];
        const expected = full(terms, 10);
        const before = calls.nearLists;
        expect(prunedRanking(terms, 10, source), terms.join(" ")).toEqual(expected);
        expect(calls.nearLists, terms.join(" ")).toBe(before);
      }
    } finally {
      db.close();
    }
  });
});
