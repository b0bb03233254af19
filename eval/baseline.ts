// The floor a ranking change must beat: the collection's own plain FTS5 baseline (../shared/eval/
// fts5_baseline.py), in process and in the same run. One FTS5 table (title, text) with the porter unicode61
// tokenizer, each query an OR of its quoted terms (repeats kept, as bag-of-words queries keep them), ranked by
// bm25 with equal column weights. The collection's README gives its figures on Cranfield (SQLite 3.40:
// nDCG@10 0.3623); this one runs on the SQLite memoria runs on, so the comparison is like for like.

import Database from "libsql";
import type { Collection } from "./collection.js";
import type { Retrieved } from "./metrics.js";

// The script's `[^\W_]+`: runs of Unicode letters and digits.
const TERM = /[\p{L}\p{N}]+/gu;

export function baselineExpression(text: string): string {
  return (text.match(TERM) ?? []).map((term) => `"${term}"`).join(" OR ");
}

export interface BaselineRun {
  run: Map<string, Retrieved[]>;
  buildMs: number;
  /** Each query's time, in query order. */
  queryMs: number[];
}

export function runBaseline(collection: Collection, limit: number): BaselineRun {
  const db = new Database(":memory:");
  try {
    db.exec("PRAGMA temp_store = MEMORY");
    db.exec("CREATE VIRTUAL TABLE t USING fts5(title, text, tokenize = 'porter unicode61')");
    const started = performance.now();
    const insert = db.prepare("INSERT INTO t (rowid, title, text) VALUES (?, ?, ?)");
    db.transaction(() => {
      collection.documents.forEach((doc, i) => {
        insert.run(i + 1, doc.title, doc.text);
      });
    })();
    const buildMs = performance.now() - started;
    const rank = db.prepare("SELECT rowid, bm25(t, 1.0, 1.0) AS s FROM t WHERE t MATCH ? ORDER BY s LIMIT ?");
    const run = new Map<string, Retrieved[]>();
    const queryMs: number[] = [];
    for (const query of collection.queries) {
      const expression = baselineExpression(query.text);
      const t0 = performance.now();
      const rows = expression === "" ? [] : (rank.all(expression, limit) as { rowid: number; s: number }[]);
      queryMs.push(performance.now() - t0);
      run.set(
        query.id,
        rows.map((row) => ({ docId: collection.documents[row.rowid - 1]?.id ?? "", score: -row.s })),
      );
    }
    return { run, buildMs, queryMs };
  } finally {
    db.close();
  }
}
