// Snippets for the passages a search returns, cut from a scratch FTS5 table that holds only those passages.
//
// snippet() needs a MATCH cursor. Built in the ranking statement, it ran for every matching row; run per
// returned row against the team's table, it cost ~0.4 ms a row (every phrase seeks through every segment),
// 8 of the 13 ms of a 20-hit search at 90k passages. snippet() looks only at its own row and the expression,
// so the same passages in a table of twenty rows give the same snippets, for a fraction of the cost. Same
// columns in the same order, so a passage matched only by its heading still gets its body's start.

import type { IndexDatabase, IndexStatement } from "../engine.js";
import { inTransaction, ScratchTable } from "../scratch-table.js";
import { asciiPhrases, asciiSnippet, TokenEdges } from "./ascii-snippet.js";
import { MATCH_CLOSE, MATCH_OPEN, renderSnippet, SNIPPET_ELLIPSIS, SNIPPET_TOKENS } from "./snippet.js";

export interface SnippetSource {
  heading: string;
  body: string;
  title: string;
  path: string;
}

export class SnippetTable {
  readonly #db: IndexDatabase;
  readonly #rows: ScratchTable;
  readonly #snippets: IndexStatement;
  /** The bodies cut in JS reuse one pair of token arrays (ascii-snippet.ts). */
  readonly #edges = new TokenEdges();

  /** Lives in the connection's temp schema of the team's own in-memory database: the text never leaves it. */
  constructor(db: IndexDatabase) {
    this.#db = db;
    this.#rows = new ScratchTable(db, "returned", ["heading", "body", "title", "path"]);
    this.#snippets = db.prepare(`SELECT rowid,
        snippet(returned, 1, '${MATCH_OPEN}', '${MATCH_CLOSE}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS}) AS snippet
      FROM temp.returned WHERE returned MATCH ?`);
  }

  /**
   * One rendered snippet per passage, in the given order, marking what `expression` matches in the body.
   * `matchedTerms`, when given, says `expression` is orExpression(matchedTerms, matchedTerms) and every passage
   * matches it (as the rows ranked by it do): then ASCII bodies are cut in JS (ascii-snippet.ts), to the same
   * bytes, and only the rest go through the table.
   */
  cut(passages: readonly SnippetSource[], expression: string, matchedTerms?: readonly string[]): string[] {
    const raw = passages.map(() => "");
    const phrases = matchedTerms ? asciiPhrases(matchedTerms) : null;
    const rest: number[] = [];
    // The bodies of one search share most of their words: each is stemmed once (asciiSnippet).
    const stemsOf = new Map<string, string>();
    for (const [i, p] of passages.entries()) {
      const cut = phrases ? asciiSnippet(p.body, phrases, stemsOf, this.#edges) : null;
      if (cut === null) rest.push(i);
      else raw[i] = cut;
    }
    if (rest.length > 0) {
      inTransaction(this.#db, () => {
        this.#rows.fill(
          rest.map((i) => {
            const p = passages[i];
            return [p?.heading ?? "", p?.body ?? "", p?.title ?? "", p?.path ?? ""];
          }),
        );
        for (const row of this.#snippets.all(expression) as { rowid: number; snippet: string }[]) {
          raw[rest[row.rowid] ?? -1] = row.snippet;
        }
        this.#rows.clear();
      });
    }
    return raw.map(renderSnippet);
  }
}
