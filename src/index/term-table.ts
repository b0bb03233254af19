// The stemmed tokens of a few passages, read back from FTS5 itself, for pseudo-relevance feedback
// (feedback.ts). A scratch FTS5 table with the passages' own tokenizer holds only the passages asked about, and
// an fts5vocab table over it lists every token instance, so the counts are exactly the terms the index matches
// on — no second stemmer in JavaScript that could disagree with FTS5's porter. It lives inside the team's own
// in-memory database, like the snippet table, and is emptied in the same transaction that fills it.

import type Database from "libsql";
import { ScratchTable } from "./scratch-table.js";
import type { SnippetSource } from "./snippet-table.js";

/** What the term table reads of a passage: the columns the index tokenizes for it, path aside. */
export type TermSource = Pick<SnippetSource, "heading" | "body" | "title">;

export class TermTable {
  readonly #db: Database.Database;
  readonly #rows: ScratchTable;
  readonly #instances: Database.Statement;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#rows = new ScratchTable(db, "returned_terms", ["heading", "body", "title"]);
    db.exec("CREATE VIRTUAL TABLE returned_terms_vocab USING fts5vocab(returned_terms, 'instance')");
    this.#instances = db.prepare("SELECT term, doc FROM returned_terms_vocab");
  }

  /**
   * Each passage's tokens with their counts, in the given order, and the stems of `words` (the query's terms
   * as typed), tokenized the same way.
   */
  count(
    passages: readonly TermSource[],
    words: readonly string[],
  ): { counts: Map<string, number>[]; stems: Set<string> } {
    const counts = passages.map(() => new Map<string, number>());
    const stems = new Set<string>();
    const queryRow = passages.length;
    this.#db.transaction(() => {
      for (const [i, p] of passages.entries()) this.#rows.put(i, [p.heading, p.body, p.title]);
      this.#rows.put(queryRow, ["", words.join(" "), ""]);
      for (const row of this.#instances.all() as { term: string; doc: number }[]) {
        if (row.doc === queryRow) {
          stems.add(row.term);
          continue;
        }
        const map = counts[row.doc];
        if (map) map.set(row.term, (map.get(row.term) ?? 0) + 1);
      }
      this.#rows.clear();
    })();
    return { counts, stems };
  }
}
