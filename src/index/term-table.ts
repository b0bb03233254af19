// The stemmed tokens of a few passages, read back from FTS5 itself, for pseudo-relevance feedback
// (feedback.ts). A scratch FTS5 table with the passages' own tokenizer holds only the passages asked about, and
// an fts5vocab table over it lists every token instance, so the counts are exactly the terms the index matches
// on — no second stemmer in JavaScript that could disagree with FTS5's porter. It lives inside the team's own
// in-memory database, like the snippet table, and is emptied in the same transaction that fills it; its names
// start with `returned`, so a snapshot leaves it out with the snippet table (snapshot.ts).

import type Database from "libsql";

export interface TermSource {
  heading: string;
  body: string;
  title: string;
}

const schema = [
  "CREATE TABLE returned_terms_rows (rowid INTEGER PRIMARY KEY, heading TEXT, body TEXT, title TEXT)",
  `CREATE VIRTUAL TABLE returned_terms USING fts5(heading, body, title,
     content = 'returned_terms_rows', tokenize = 'porter unicode61')`,
  "CREATE VIRTUAL TABLE returned_terms_vocab USING fts5vocab(returned_terms, 'instance')",
];

export class TermTable {
  readonly #db: Database.Database;
  readonly #insertRow: Database.Statement;
  readonly #insertIndex: Database.Statement;
  readonly #instances: Database.Statement;
  readonly #clearIndex: Database.Statement;
  readonly #clearRows: Database.Statement;

  constructor(db: Database.Database) {
    this.#db = db;
    for (const sql of schema) db.exec(sql);
    const columns = "(rowid, heading, body, title) VALUES (?, ?, ?, ?)";
    this.#insertRow = db.prepare(`INSERT INTO returned_terms_rows ${columns}`);
    this.#insertIndex = db.prepare(`INSERT INTO returned_terms ${columns}`);
    this.#instances = db.prepare("SELECT term, doc FROM returned_terms_vocab");
    this.#clearIndex = db.prepare("INSERT INTO returned_terms (returned_terms) VALUES ('delete-all')");
    this.#clearRows = db.prepare("DELETE FROM returned_terms_rows");
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
      for (const [i, p] of passages.entries()) {
        this.#insertRow.run(i, p.heading, p.body, p.title);
        this.#insertIndex.run(i, p.heading, p.body, p.title);
      }
      const typed = words.join(" ");
      this.#insertRow.run(queryRow, "", typed, "");
      this.#insertIndex.run(queryRow, "", typed, "");
      for (const row of this.#instances.all() as { term: string; doc: number }[]) {
        if (row.doc === queryRow) {
          stems.add(row.term);
          continue;
        }
        const map = counts[row.doc];
        if (map) map.set(row.term, (map.get(row.term) ?? 0) + 1);
      }
      this.#clearIndex.run();
      this.#clearRows.run();
    })();
    return { counts, stems };
  }
}
