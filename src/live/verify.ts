// Checking an index restored from a snapshot against the rows it stands for. A snapshot holds the index's
// plaintext as it was when written; a row altered, or copied in from elsewhere, since then no longer opens,
// yet the restored index would go on serving the snapshot's copy of it. So the reindex ping opens every
// chunk run and entry of a restored team once — the rows a build from rows reads — and drops from the
// index, and counts as unreadable, each document or entry that fails; afterwards the index holds what a
// build from rows would. See docs/decisions/0030-restored-indexes-and-log-bound.md.

import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import { openChunkRun } from "../sealed-rows/documents.js";
import { openEntry } from "../sealed-rows/entries.js";
import { openOrNull } from "../sealed-rows/readable.js";
import type { Storage } from "../store/storage.js";
import { readDocument } from "./load-passages.js";
import { chunkRunPages, entryPages } from "./stored-pages.js";
import type { LiveTeam } from "./team.js";

/**
 * Chunk runs opened per storage round trip: each is up to 32 chunks (~0.3 MB typical), so a page stays a few
 * MB in memory, as a build's pages do (build.ts reads 32; opening without indexing allows a little more).
 */
const VERIFY_PAGE_RUNS = 64;
/** Entries opened per round trip: each is one small sealed row (~1 KB), as a build reads them. */
const VERIFY_PAGE_ENTRIES = 1024;

export interface VerifyDeps {
  storage: Storage;
  logger: Logger;
}

/** What a verification found: rows newly dropped, and rows left out before that now open and were put back. */
export interface Verified {
  dropped: { documents: number; entries: number };
  restored: number;
}

/** Every document whose chunk runs do not all open, with the chunks storage counts for it. */
async function failingDocuments(storage: Storage, key: TeamKey): Promise<Map<string, number>> {
  const failing = new Map<string, number>();
  let current: { id: string; chunks: number; failed: boolean } | null = null;
  const finish = () => {
    if (current?.failed) failing.set(current.id, current.chunks);
  };
  // Pages read ahead as a build reads them (stored-pages.ts): this runs in the team's queue, so over remote
  // storage a round trip a page would hold the team's writes back for all of them.
  const pages = chunkRunPages(storage, key.teamId, VERIFY_PAGE_RUNS);
  for await (const rows of pages) {
    const runs = await Promise.all(rows.map((row) => openOrNull(openChunkRun(key, row))));
    rows.forEach((row, i) => {
      if (current?.id !== row.documentId) {
        finish();
        current = { id: row.documentId, chunks: 0, failed: false };
      }
      current.chunks += row.count;
      if (runs[i] === null) current.failed = true;
    });
  }
  finish();
  return failing;
}

/** Every entry that does not open. */
async function failingEntries(storage: Storage, key: TeamKey): Promise<Set<string>> {
  const failing = new Set<string>();
  const pages = entryPages(storage, key.teamId, VERIFY_PAGE_ENTRIES);
  for await (const rows of pages) {
    const opened = await Promise.all(rows.map((row) => openOrNull(openEntry(key, row.id, row.sealed))));
    rows.forEach((row, i) => {
      if (opened[i] === null) failing.add(row.id);
    });
  }
  return failing;
}

/**
 * Opens every chunk run and entry of the team, drops from its indexes those that fail and counts them as
 * unreadable; a document the snapshot had left out that opens now is read and put back. Runs in the team's
 * queue, on ready indexes. Rows written meanwhile by another instance are replayed by the catch-up after it.
 */
export async function verifyRestored(deps: VerifyDeps, key: TeamKey, team: LiveTeam): Promise<Verified> {
  const { storage, logger } = deps;
  const passages = team.passages;
  const entries = team.entries;
  if (!passages || !entries) return { dropped: { documents: 0, entries: 0 }, restored: 0 };

  const documents = await failingDocuments(storage, key);
  const droppedDocuments = [...documents].filter(([id]) => !team.unreadableDocuments.has(id));
  // Left out by the snapshot, opening now: put back, as a catch-up of a write to them would.
  const healed = team.unreadableDocuments
    .entries()
    .map(([id]) => id)
    .filter((id) => !documents.has(id));
  const reread = await Promise.all(healed.map((id) => readDocument(storage, key, id)));
  const put = reread.flatMap((row) => (row.kind === "stored" ? [row.value] : []));
  passages.apply(
    put,
    droppedDocuments.map(([id]) => id),
  );
  for (const [id, chunks] of droppedDocuments) team.unreadableDocuments.mark(id, chunks);
  reread.forEach((row, i) => {
    if (row.kind !== "unreadable") team.unreadableDocuments.clear(healed[i] as string);
  });

  const failing = await failingEntries(storage, key);
  const droppedEntries = [...failing].filter((id) => !team.unreadableEntries.has(id));
  entries.apply([], droppedEntries);
  for (const id of droppedEntries) team.unreadableEntries.mark(id, 1);

  const verified: Verified = {
    dropped: { documents: droppedDocuments.length, entries: droppedEntries.length },
    restored: put.length,
  };
  if (droppedDocuments.length + droppedEntries.length > 0) {
    // Counts only, as every log of unreadable rows: which rows they are is for an operator with the database.
    logger.warn("restored index held rows that no longer open; dropped them", {
      teamId: key.teamId,
      documents: droppedDocuments.length,
      entries: droppedEntries.length,
    });
  }
  return verified;
}
