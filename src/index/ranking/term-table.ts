// The stemmed tokens of a few passages, read back from FTS5 itself, for pseudo-relevance feedback
// (feedback.ts). A scratch FTS5 table with the passages' own tokenizer holds only the passages asked about, and
// an fts5vocab table over it lists every token instance, so the counts are exactly the terms the index matches
// on — no second stemmer in JavaScript that could disagree with FTS5's porter. It lives inside the team's own
// in-memory database, like the snippet table, and is emptied in the same transaction that fills it.

import type { IndexDatabase, IndexStatement } from "../engine.js";
import { inTransaction, ScratchTable } from "../scratch-table.js";
import type { SnippetSource } from "../snippets/snippet-table.js";
import { columnWeights } from "./weights.js";

/** What the term table reads of a passage: every column the index tokenizes for it. */
export type TermSource = SnippetSource;

const COLUMNS = ["heading", "body", "title", "path"] as const;

/** A token's instances in one column of one scratch row. */
interface InstanceCount {
  term: string;
  doc: number;
  col: string;
  n: number;
}

export class TermTable {
  readonly #db: IndexDatabase;
  readonly #rows: ScratchTable;
  readonly #instances: IndexStatement;
  readonly #instancesOf: IndexStatement;
  readonly #allInstances: IndexStatement;

  constructor(db: IndexDatabase) {
    this.#db = db;
    this.#rows = new ScratchTable(db, "returned_terms", COLUMNS);
    db.exec(
      "CREATE VIRTUAL TABLE temp.returned_terms_vocab USING fts5vocab(temp, returned_terms, 'instance')",
    );
    // The path is left out of the words feedback draws from: a folder name repeats into every passage of a
    // folder, and says where a passage is kept, not what it is about.
    // Counted in SQL, and in the vocabulary's own order (by token, then row), which is the order the counts
    // were summed in before and so the order feedback's model adds them up in (feedback.ts).
    this.#instances = db.prepare(
      `SELECT term, doc, count(*) AS n FROM temp.returned_terms_vocab WHERE col != 'path'
        GROUP BY term, doc ORDER BY term, doc`,
    );
    this.#allInstances = db.prepare("SELECT term, doc FROM temp.returned_terms_vocab");
    // Counted in SQL: a common word's every position is an instance, and one row per position handed to
    // JavaScript cost more than the count (measured on real manuals: ~600 instances a passage for "the").
    this.#instancesOf = db.prepare(
      `SELECT term, doc, col, count(*) AS n FROM temp.returned_terms_vocab
        WHERE term IN (SELECT value FROM json_each(?)) GROUP BY term, doc, col`,
    );
  }

  /**
   * Each passage's column-weighted frequency (bm25()'s f, weights.ts, every column) of each of `words`, a
   * word being the one token its quoted term matches; null when a word is not exactly one token (the caller
   * then lets FTS5 score it). The words are tokenized alone first, so a token is never confused with a
   * passage's. The table is empty again when this returns.
   */
  frequenciesOf(passages: readonly TermSource[], words: readonly string[]): Map<string, number>[] | null {
    const frequencies = passages.map(() => new Map<string, number>());
    let countable = true;
    inTransaction(this.#db, () => {
      const tokens = words.map(() => [] as string[]);
      for (const [j, word] of words.entries()) this.#rows.put(passages.length + j, ["", word, "", ""]);
      for (const row of this.#allInstances.all() as { term: string; doc: number }[]) {
        tokens[row.doc - passages.length]?.push(row.term);
      }
      // Two words may stem to one token ("run", "running"): each is its own phrase with the same frequency.
      const wordsOf = new Map<string, string[]>();
      for (const [j, found] of tokens.entries()) {
        const token = found[0];
        if (found.length !== 1 || token === undefined) countable = false;
        else wordsOf.set(token, [...(wordsOf.get(token) ?? []), words[j] ?? ""]);
      }
      if (countable) {
        for (const [i, p] of passages.entries()) this.#rows.put(i, [p.heading, p.body, p.title, p.path]);
        const all = JSON.stringify([...wordsOf.keys()]);
        for (const row of this.#instancesOf.all(all) as InstanceCount[]) {
          const map = frequencies[row.doc];
          // bm25() adds a column's weight once per instance; n times 3, 1 or 0.5 is that sum exactly.
          const weight = (columnWeights[row.col as keyof typeof columnWeights] ?? 0) * row.n;
          for (const word of map ? (wordsOf.get(row.term) ?? []) : [])
            map?.set(word, (map.get(word) ?? 0) + weight);
        }
      }
      this.#rows.clear();
    });
    return countable ? frequencies : null;
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
      for (const row of this.#instances.all() as { term: string; doc: number; n: number }[]) {
        if (row.doc === queryRow) {
          stems.add(row.term);
          continue;
        }
        const map = counts[row.doc];
        if (map) map.set(row.term, (map.get(row.term) ?? 0) + row.n);
      }
      chosen = choose(counts, stems);
      for (let i = top; i < passages.length; i++) put(i);
      const terms = JSON.stringify(chosen.map((t) => t.term));
      for (const row of this.#instancesOf.all(terms) as InstanceCount[]) {
        const map = frequencies[row.doc];
        const weight = columnWeights[row.col as keyof typeof columnWeights] ?? 0;
        if (map) map.set(row.term, (map.get(row.term) ?? 0) + weight * row.n);
      }
      this.#rows.clear();
    });
    return { chosen, frequencies };
  }
}
