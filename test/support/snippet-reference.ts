// The straightforward way to cut snippets, kept as the reference the snippet table's faster fill is compared
// against: its own FTS5 table holding the passages as content (the index's four columns, its tokenizer), one
// INSERT a row, snippet() of the body for every row the expression matches, and "" for a row it does not.

import { IndexDatabase } from "../../src/index/engine.js";
import {
  MATCH_CLOSE,
  MATCH_OPEN,
  renderSnippet,
  SNIPPET_ELLIPSIS,
  SNIPPET_TOKENS,
} from "../../src/index/snippets/snippet.js";
import type { SnippetSource } from "../../src/index/snippets/snippet-table.js";

export function referenceSnippets(passages: readonly SnippetSource[], expression: string): string[] {
  const db = new IndexDatabase(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE ref USING fts5(heading, body, title, path, tokenize = 'porter unicode61')");
    const insert = db.prepare("INSERT INTO ref (rowid, heading, body, title, path) VALUES (?, ?, ?, ?, ?)");
    for (const [i, p] of passages.entries()) insert.run(i, p.heading, p.body, p.title, p.path);
    const raw = passages.map(() => "");
    const rows = db
      .prepare(
        `SELECT rowid, snippet(ref, 1, '${MATCH_OPEN}', '${MATCH_CLOSE}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS}) AS s
         FROM ref WHERE ref MATCH ?`,
      )
      .all(expression) as { rowid: number; s: string }[];
    for (const row of rows) raw[row.rowid] = row.s;
    return raw.map(renderSnippet);
  } finally {
    db.close();
  }
}
