// A scratch FTS5 table of one connection to a team's in-memory database: filled with a few passages, read, and
// emptied in one transaction, so the text never leaves the database and nothing stays between two calls. The
// snippet table and the feedback term table are both one. It lives in the connection's own temp schema (held
// in memory: passage-database.ts), so a search on a reader connection writes nothing the other connections
// share and never takes the shared database's write lock (docs/decisions/0044-search-threads.md).
//
// It takes its text from a plain table (external content), so emptying it is FTS5's 'delete-all', which drops
// the postings without tokenizing every row again as a DELETE would. Same tokenizer as the team's index, so
// what it matches and the tokens it holds are the index's own.

import type Database from "libsql";

/** Every scratch table's name starts so: a snapshot leaves them out by it (snapshot.ts). */
export const SCRATCH_PREFIX = "returned";

export class ScratchTable {
  readonly #insertRow: Database.Statement;
  readonly #insertIndex: Database.Statement;
  readonly #clearIndex: Database.Statement;
  readonly #clearRows: Database.Statement;

  /** `name` (which must start with SCRATCH_PREFIX) and `<name>_rows`, with these text columns in order. */
  constructor(db: Database.Database, name: string, columns: readonly string[]) {
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
export function inTransaction<T>(db: Database.Database, fill: () => T): T {
  return db.inTransaction ? fill() : db.transaction(fill)();
}
