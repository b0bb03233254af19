// A scratch FTS5 table of one connection to a team's in-memory database: filled with a few passages, read, and
// emptied in one transaction, so the text never leaves the database and nothing stays between two calls. The
// snippet table and the feedback term table are both one. It lives in the connection's own temp schema (held
// in memory: passage-database.ts), so a search on a reader connection writes nothing the other connections
// share and never takes the shared database's write lock (docs/decisions/0044-search-threads.md).
//
// It takes its text from a plain table (external content), so emptying it is FTS5's 'delete-all', which drops
// the postings without tokenizing every row again as a DELETE would. Same tokenizer as the team's index, so
// what it matches and the tokens it holds are the index's own.
//
// A caller that has all its rows at once fills it with `fill`: one multi-row INSERT into the plain table, then
// FTS5's 'rebuild', which indexes every row of it in one statement. Against two single-row INSERTs a row, it
// takes 7–15% off cutting twenty hits' snippets (docs/decisions/0055-short-questions.md).

import type { IndexDatabase, IndexStatement } from "./engine.js";

/** Rows a multi-row INSERT carries: a search's 20 hits in one, and few statements prepared for any limit. */
const ROWS_PER_INSERT = 25;

/** Every scratch table's name starts so: a snapshot leaves them out by it (snapshot.ts). */
export const SCRATCH_PREFIX = "returned";

export class ScratchTable {
  readonly #insertRow: IndexStatement;
  readonly #insertIndex: IndexStatement;
  readonly #clearIndex: IndexStatement;
  readonly #clearRows: IndexStatement;
  readonly #rebuildIndex: IndexStatement;
  readonly #db: IndexDatabase;
  readonly #name: string;
  readonly #columns: readonly string[];
  /** INSERTs of n rows at once into the plain table, by n, prepared when first needed. */
  readonly #insertRowsOf = new Map<number, IndexStatement>();

  /** `name` (which must start with SCRATCH_PREFIX) and `<name>_rows`, with these text columns in order. */
  constructor(db: IndexDatabase, name: string, columns: readonly string[]) {
    if (!name.startsWith(SCRATCH_PREFIX))
      throw new RangeError(`a scratch table's name starts ${SCRATCH_PREFIX}`);
    db.exec(
      `CREATE TABLE temp.${name}_rows (rowid INTEGER PRIMARY KEY, ${columns.map((c) => `${c} TEXT`).join(", ")})`,
    );
    db.exec(`CREATE VIRTUAL TABLE temp.${name} USING fts5(${columns.join(", ")},
      content = '${name}_rows', tokenize = 'porter unicode61')`);
    const insert = `(rowid, ${columns.join(", ")}) VALUES (?, ${columns.map(() => "?").join(", ")})`;
    this.#insertRow = db.prepare(`INSERT INTO temp.${name}_rows ${insert}`);
    this.#insertIndex = db.prepare(`INSERT INTO temp.${name} ${insert}`);
    this.#clearIndex = db.prepare(`INSERT INTO temp.${name} (${name}) VALUES ('delete-all')`);
    this.#clearRows = db.prepare(`DELETE FROM temp.${name}_rows`);
    this.#rebuildIndex = db.prepare(`INSERT INTO temp.${name} (${name}) VALUES ('rebuild')`);
    this.#db = db;
    this.#name = name;
    this.#columns = columns;
  }

  /**
   * Fills the empty table with `rows` (each its values in the columns' order), row i at rowid i. Call inside
   * the caller's transaction.
   */
  fill(rows: readonly (readonly string[])[]): void {
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const batch = rows.slice(start, start + ROWS_PER_INSERT);
      const values: (string | number)[] = [];
      for (const [i, row] of batch.entries()) values.push(start + i, ...row);
      this.#insertRows(batch.length).run(...values);
    }
    this.#rebuildIndex.run();
  }

  #insertRows(count: number): IndexStatement {
    let statement = this.#insertRowsOf.get(count);
    if (!statement) {
      const row = `(?, ${this.#columns.map(() => "?").join(", ")})`;
      statement = this.#db.prepare(
        `INSERT INTO temp.${this.#name}_rows (rowid, ${this.#columns.join(", ")}) VALUES ${Array.from({ length: count }, () => row).join(", ")}`,
      );
      this.#insertRowsOf.set(count, statement);
    }
    return statement;
  }

  /** Adds one row; its values in the columns' order. Call inside the caller's transaction. */
  put(rowid: number, values: readonly string[]): void {
    this.#insertRow.run(rowid, ...values);
    this.#insertIndex.run(rowid, ...values);
  }

  /** Empties the table, in the same transaction that filled it. */
  clear(): void {
    this.#clearIndex.run();
    this.#clearRows.run();
  }
}

/**
 * Runs `fill` in a transaction: the caller's, when a search already holds one open (its read of the index and
 * its scratch rows then end together), or one of its own.
 */
export function inTransaction<T>(db: IndexDatabase, fill: () => T): T {
  return db.inTransaction ? fill() : db.transaction(fill)();
}
