// Where a team's passage index lives: one named in-memory database (SQLite's memdb VFS) that every connection
// of this process can open by its name, the main thread's writer and each search thread's reader alike, so
// searches on several threads read one copy of the index (docs/decisions/0044-search-threads.md).
//
// FTS5 keeps its postings in plaintext, so nothing of it may reach a file. memdb holds the main database in
// memory, but hands every other file SQLite opens (a rollback journal, a temporary table's file, sort space) to
// the default VFS, which writes to disk. So every connection is opened here and nowhere else, and refused
// unless its journal and its temporary store are in memory (decision 0045).

import { randomBytes } from "node:crypto";
import { IndexDatabase } from "../engine.js";

/** The memdb VFS's name for a database (the engine's build registers it, engine.ts). */
const MEMDB_PREFIX = "file:/memoria-passages-";

/**
 * A fresh database's name: 128 random bits, so no code of this process can open another team's index by
 * guessing, and two indexes never meet. The name is a key into memdb's list of this process's databases,
 * never a path: memdb opens no file for it.
 */
export function passageDatabaseName(): string {
  return `${MEMDB_PREFIX}${randomBytes(16).toString("hex")}?vfs=memdb`;
}

/** Whether `name` is one passageDatabaseName() gives: a worker opens nothing else. */
export function isPassageDatabaseName(name: string): boolean {
  return /^file:\/memoria-passages-[0-9a-f]{32}\?vfs=memdb$/.test(name);
}

export interface PassageConnectionOptions {
  /**
   * How long a statement waits for a lock before it fails SQLITE_BUSY: a writer's commit waits for the
   * searches reading, and a search waits for a commit.
   */
  busyTimeoutMs: number;
}

/** Why a connection was refused: SQLite did not take a setting the one rule needs. */
export class UnsafeConnectionError extends Error {
  override readonly name = "UnsafeConnectionError";
}

/**
 * One connection to the named database, with its journal and temporary store in memory. memdb's databases
 * start in journal_mode MEMORY, but a connection may switch it to DELETE (a journal FILE of old pages): it is
 * set, and read back, on every connection.
 */
export function openPassageConnection(name: string, options: PassageConnectionOptions): IndexDatabase {
  if (!isPassageDatabaseName(name)) throw new RangeError("not a passage database's name");
  const db = new IndexDatabase(name);
  try {
    // First: every later statement reads the schema, which waits for a writer's commit like any read.
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
    const journal = db.prepare("PRAGMA journal_mode = MEMORY").get() as { journal_mode: string };
    // A large sort or a temporary table would otherwise spill to a temporary file: IndexDatabase sets them in
    // memory as it opens, and the setting is read back here.
    const temp = (db.prepare("PRAGMA temp_store").get() as { temp_store: number }).temp_store;
    if (journal.journal_mode !== "memory" || temp !== 2)
      throw new UnsafeConnectionError("the passage database's journal or temporary store is not in memory");
    // A writer whose page cache fills would otherwise write its changed pages out before the commit, which
    // on memdb takes the exclusive lock early and holds every search off for the rest of the transaction.
    db.exec("PRAGMA cache_spill = OFF");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Gives the connection's page cache back to malloc (SQLite's shrink_memory). On memdb those pages are copies:
 * the database's own pages stay in memdb's buffer, and a later read copies what it needs again (one memcpy a
 * page). SQLite frees only pages no statement holds, so this is safe between any two statements. Worth
 * 1.13–1.18× of the server's RSS a byte of text, measured beside a server without it (decision 0111).
 */
export function releasePageCache(db: IndexDatabase): void {
  db.exec("PRAGMA shrink_memory");
}
