// Reading a team's sealed entries into its in-memory entry index: all of them for a build, one for a
// catch-up.

import type { EntryIndex, IndexedEntry } from "../index/entry-index.js";
import type { TeamKey } from "../seal/team-key.js";
import { openEntry } from "../sealed/entries.js";
import type { EntryCursor, EntryRow } from "../store/entries.js";
import type { Storage } from "../store/storage.js";

async function indexedEntry(key: TeamKey, row: EntryRow): Promise<IndexedEntry> {
  return { id: row.id, createdAt: row.createdAt, ...(await openEntry(key, row.id, row.sealed)) };
}

/** Reads, opens and indexes every entry of the team, oldest first, a page at a time. */
export async function loadEntries(
  storage: Storage,
  key: TeamKey,
  index: EntryIndex,
  pageRows: number,
): Promise<void> {
  let after: EntryCursor | null = null;
  for (;;) {
    const rows = await storage.entries.page(key.teamId, after, pageRows);
    index.apply(await Promise.all(rows.map((row) => indexedEntry(key, row))));
    const last = rows.at(-1);
    if (!last || rows.length < pageRows) return;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** One entry as the index holds it; null when it no longer exists. */
export async function readEntry(storage: Storage, key: TeamKey, id: string): Promise<IndexedEntry | null> {
  const row = await storage.entries.get(key.teamId, id);
  return row ? indexedEntry(key, row) : null;
}
