// What an in-memory index costs, estimated cheaply for the memory budget (src/live/ram-budget.ts): its database's
// pages, read from the header, plus a fixed overhead an index measured once. Shared by the passage and the
// entry index.

import type { IndexDatabase } from "./engine.js";

/**
 * What an empty index costs beyond its database pages: the SQLite connection, its page cache's slack and the
 * prepared statements. Measured once (200 empty passage + entry index pairs in one Node process, RSS before
 * and after, gc forced): ~375 KB a pair, of which 80 KB are their pages, so ~300 KB of overhead a pair,
 * counted as half each.
 */
export const INDEX_OVERHEAD_BYTES = 150 * 1024;

/** The bytes of a database's pages: page_count × page_size, two pragma reads of the header. */
export function databaseBytes(db: IndexDatabase): number {
  const count = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
  const size = (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
  return count * size;
}
