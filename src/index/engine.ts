// The SQL engine every in-memory index runs on, and the one place that opens it: SQLite 3.53 through
// @photostructure/sqlite (node:sqlite's API, with its own build of SQLite), not libSQL's synchronous engine.
//
// Why: libSQL's build keeps SQLite's memory statistics on, so every allocation of every connection, on every
// thread, enters one process-wide mutex, and two search threads spend their time handing it back and forth
// (decision 0078). This build has them off (SQLITE_DEFAULT_MEMSTATUS=0), opens URI filenames and registers
// memdb, so the search threads still read one copy of a team's index (decision 0044). Measured with
// bench/engine-threads.ts over 20,002 passages of Debian's manuals, the plain FTS5 OR statement on two
// threads sharing one memdb database: 1.92–2.05× one thread's questions a second here, 1.49–1.66× on libSQL;
// and one thread answers a long question in 33.3 ms against 37.0, a two-word one in 0.61 against 0.76–0.85
// (docs/decisions/0089-index-engine-without-memory-statistics.md). Storage stays on libSQL (@libsql/client):
// only the indexes, which never touch a file, run here.
//
// The rest of index/ is written against the small part of the API below: `exec`, `prepare` and its
// statements (node:sqlite's StatementSync), and better-sqlite3's `transaction(fn)` shape, which index/ used
// before and which SQLite's own nesting rules need (a transaction inside one is a savepoint).

import { DatabaseSync, type DatabaseSyncInstance, type StatementSyncInstance } from "@photostructure/sqlite";

export type IndexStatement = StatementSyncInstance;

/** SQLite's primary result codes that index/ tells apart (sqlite3.h). */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_FULL = 13;

export class IndexDatabase {
  readonly #db: DatabaseSyncInstance;
  /** Prepared once: every search is a read transaction, and exec() parses its SQL each time. */
  readonly #begin: IndexStatement;
  readonly #commit: IndexStatement;
  readonly #rollback: IndexStatement;
  #savepoints = 0;

  /** `filename` is ":memory:" or a memdb URI (passage-database.ts); index/ opens nothing else. */
  constructor(filename: string) {
    // Not defensive: a snapshot's restore writes FTS5's shadow tables itself (snapshot.ts), which the
    // defensive flag forbids.
    this.#db = new DatabaseSync(filename, { defensive: false });
    // This build's default for temporary tables and sort space is a file (SQLITE_TEMP_STORE=1; libSQL's was
    // memory), and an index's sort spills plaintext: every connection starts with them in memory.
    this.#db.exec("PRAGMA temp_store = MEMORY");
    this.#begin = this.#db.prepare("BEGIN");
    this.#commit = this.#db.prepare("COMMIT");
    this.#rollback = this.#db.prepare("ROLLBACK");
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  prepare(sql: string): IndexStatement {
    return this.#db.prepare(sql);
  }

  /** A statement whose rows come back as arrays of values, integers as bigints: rows copied as they are. */
  prepareRaw(sql: string): IndexStatement {
    const statement = this.#db.prepare(sql);
    statement.setReturnArrays(true);
    statement.setReadBigInts(true);
    return statement;
  }

  /**
   * `fill` wrapped in a transaction: committed when it returns, rolled back when it throws. Called inside
   * another transaction it runs in a savepoint of it, so its own failure undoes only its own writes.
   */
  transaction<A extends unknown[], T>(fill: (...args: A) => T): (...args: A) => T {
    return (...args: A): T => {
      if (!this.#db.isTransaction) {
        this.#begin.run();
        try {
          const result = fill(...args);
          this.#commit.run();
          return result;
        } catch (error) {
          if (this.#db.isTransaction) this.#rollback.run();
          throw error;
        }
      }
      const name = `memoria_${++this.#savepoints}`;
      this.#db.exec(`SAVEPOINT ${name}`);
      try {
        const result = fill(...args);
        this.#db.exec(`RELEASE ${name}`);
        return result;
      } catch (error) {
        if (this.#db.isTransaction) {
          this.#db.exec(`ROLLBACK TO ${name}`);
          this.#db.exec(`RELEASE ${name}`);
        }
        throw error;
      } finally {
        this.#savepoints--;
      }
    };
  }

  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  get open(): boolean {
    return this.#db.isOpen;
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}

/** SQLite's primary result code of an error the engine threw, or undefined for any other error. */
function primaryCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

/** Whether SQLite refused a statement because another connection held the lock past the busy timeout. */
export function isBusy(error: unknown): boolean {
  const code = primaryCode(error);
  return code === SQLITE_BUSY || code === SQLITE_LOCKED;
}

/** Whether the database reached memdb's size bound (SQLITE_MEMDB_DEFAULT_MAXSIZE, 1 GiB). */
export function isFull(error: unknown): boolean {
  return primaryCode(error) === SQLITE_FULL;
}

/** SQLite's name for the error ("SQLITE_BUSY"), for a reason logged without the message's text. */
export function engineErrorCode(error: unknown): string | undefined {
  const name = (error as { sqliteCodeName?: unknown } | null)?.sqliteCodeName;
  return typeof name === "string" ? name : undefined;
}
