// Reading a team's sealed entries into its in-memory entry index: all of them for a build, one for a
// catch-up. An entry that does not open is left out and counted (see unreadable.ts), never fatal.

import type { EntryIndex, IndexedEntry } from "../index/entry-index.js";
import type { TeamKey } from "../seal/team-key.js";
import { openEntry } from "../sealed-rows/entries.js";
import { openOrNull } from "../sealed-rows/readable.js";
import type { EntryRow } from "../store/entries.js";
import type { Storage } from "../store/storage.js";
import { entryPages } from "./stored-pages.js";
import { type Reread, UnreadableRows } from "./unreadable.js";

async function indexedEntry(key: TeamKey, row: EntryRow): Promise<IndexedEntry | null> {
  const content = await openOrNull(openEntry(key, row.id, row.sealed));
  return content ? { id: row.id, createdAt: row.createdAt, ...content } : null;
}

/**
 * Reads, opens and indexes every entry of the team, oldest first, a page at a time, later pages read
 * meanwhile (stored-pages.ts). Returns the entries that did not open.
 */
export async function loadEntries(
  storage: Storage,
  key: TeamKey,
  index: EntryIndex,
  pageRows: number,
): Promise<UnreadableRows> {
  const unreadable = new UnreadableRows();
  const pages = entryPages(storage, key.teamId, pageRows);
  for await (const rows of pages) {
    const opened = await Promise.all(rows.map((row) => indexedEntry(key, row)));
    rows.forEach((row, i) => {
      if (!opened[i]) unreadable.mark(row.id, 1);
    });
    index.apply(opened.filter((entry): entry is IndexedEntry => entry !== null));
  }
  return unreadable;
}

/** One entry as the index holds it, gone, or unreadable. */
export async function readEntry(storage: Storage, key: TeamKey, id: string): Promise<Reread<IndexedEntry>> {
  const row = await storage.entries.get(key.teamId, id);
  if (!row) return { kind: "gone" };
  const entry = await indexedEntry(key, row);
  return entry ? { kind: "stored", value: entry } : { kind: "unreadable", weight: 1 };
}
