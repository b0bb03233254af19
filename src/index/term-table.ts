// The stemmed tokens of a few passages, read back from FTS5 itself, for pseudo-relevance feedback
// (feedback.ts). A scratch FTS5 table with the passages' own tokenizer holds only the passages asked about, and
// an fts5vocab table over it lists every token instance, so the counts are exactly the terms the index matches
// on — no second stemmer in JavaScript that could disagree with FTS5's porter. It lives inside the team's own
// in-memory database, like the snippet table, and is emptied in the same transaction that fills it.

import type Database from "libsql";
import { inTransaction, ScratchTable } from "./scratch-table.js";
import type { SnippetSource } from "./snippet-table.js";
import { columnWeights } from "./weights.js";

/** What the term table reads of a passage: every column the index tokenizes for it. */
export type TermSource = SnippetSource;

const COLUMNS = ["heading", "body", "title", "path"] as const;

export class TermTable {
  readonly #db: Database.Database;
  readonly #rows: ScratchTable;
  readonly #instances: Database.Statement;
  readonly #instancesOf: Database.Statement;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#rows = new ScratchTable(db, "returned_terms", COLUMNS);
    db.exec(
      "CREATE VIRTUAL TABLE temp.returned_terms_vocab USING fts5vocab(temp, returned_terms, 'instance')",
    );
    // The path is left out of the words feedback draws from: a folder name repeats into every passage of a
    // folder, and says where a passage is kept, not what it is about.
    this.#instances = db.prepare("SELECT term, doc FROM temp.returned_terms_vocab WHERE col != 'path'");
    this.#instancesOf = db.prepare(
      "SELECT term, doc, col FROM temp.returned_terms_vocab WHERE term IN (SELECT value FROM json_each(?))",
    );
  }

  /**
   * Holds `passages` and the query's words for one transaction. `choose` gets the token counts of the first
   * `counted` passages (heading, body and title) and the stems of `words` (the query's terms as typed,
   * tokenized the same way), and picks words; then every passage's column-weighted frequency of each picked
   * word (bm25()'s f, weights.ts) is read. The table is empty again when this returns.
   */
  read<T extends { term: string }>(
    passages: readonly TermSource[],
    words: readonly string[],
    counted: number,
    choose: (counts: Map<string, number>[], stems: Set<string>) => T[],
  ): { chosen: T[]; frequencies: Map<string, number>[] } {
    const top = Math.min(counted, passages.length);
    const counts = Array.from({ length: top }, () => new Map<string, number>());
    const frequencies = passages.map(() => new Map<string, number>());
    const stems = new Set<string>();
    const queryRow = passages.length;
    let chosen: T[] = [];
    const put = (i: number) => {
      const p = passages[i];
      if (p) this.#rows.put(i, [p.heading, p.body, p.title, p.path]);
    };
    inTransaction(this.#db, () => {
      // The counted passages first, alone with the query: listing every token instance of every passage costs
      // more than tokenizing the rest afterwards (measured at 50 passages of ~1.2 KB: 3.6 ms, against ~2).
      for (let i = 0; i < top; i++) put(i);
      this.#rows.put(queryRow, ["", words.join(" "), "", ""]);
      for (const row of this.#instances.all() as { term: string; doc: number }[]) {
        if (row.doc === queryRow) {
          stems.add(row.term);
          continue;
        }
        const map = counts[row.doc];
        if (map) map.set(row.term, (map.get(row.term) ?? 0) + 1);
      }
      chosen = choose(counts, stems);
      for (let i = top; i < passages.length; i++) put(i);
      const terms = JSON.stringify(chosen.map((t) => t.term));
      for (const row of this.#instancesOf.all(terms) as { term: string; doc: number; col: string }[]) {
        const map = frequencies[row.doc];
        const weight = columnWeights[row.col as keyof typeof columnWeights] ?? 0;
        if (map) map.set(row.term, (map.get(row.term) ?? 0) + weight);
      }
      this.#rows.clear();
    });
    return { chosen, frequencies };
  }
}
