// Reading a team's sealed chunk runs into its in-memory index: all of them for a build, one document's for a
// catch-up. Storage and the index meet here, and nowhere else.

import type { IndexedDocument, PassageIndex } from "../index/passage-index.js";
import type { TeamKey } from "../seal/team-key.js";
import { type ChunkRun, chunkId, openChunkRun } from "../sealed/documents.js";
import type { ChunkRunRow } from "../store/documents.js";
import type { Storage } from "../store/storage.js";

/**
 * Reads, opens and indexes every chunk run, a page at a time. A page's runs are being opened (WebCrypto
 * works off the main thread) while the page before is inserted, so decryption and FTS5 overlap.
 */
export async function loadPassages(
  storage: Storage,
  key: TeamKey,
  index: PassageIndex,
  pageRows: number,
  onPage: (passagesSoFar: number) => void = () => {},
): Promise<void> {
  let current: IndexedDocument | null = null;
  const insert = (rows: ChunkRunRow[], runs: ChunkRun[]) => {
    const complete: IndexedDocument[] = [];
    rows.forEach((row, i) => {
      const run = runs[i];
      if (!run) return;
      // A document whose runs straddle a write racing the build may mix versions here; the catch-up that
      // ends the build replays that write and replaces the whole document.
      if (current?.id !== row.documentId) {
        if (current) complete.push(current);
        current = { id: row.documentId, title: run.title, path: run.path, passages: [] };
      }
      const passages = current.passages;
      run.chunks.forEach((chunk, j) => {
        const ordinal = row.firstOrdinal + j;
        passages.push({ chunkId: chunkId(row.documentId, row.version, ordinal), ordinal, ...chunk });
      });
    });
    index.apply(complete);
    onPage(index.counts().chunks);
  };
  let previous: { rows: ChunkRunRow[]; runs: Promise<ChunkRun[]> } | null = null;
  let after: { documentId: string; firstOrdinal: number } | null = null;
  for (;;) {
    const rows = await storage.documents.pageChunkRuns(key.teamId, after, pageRows);
    const opening = Promise.all(rows.map((row) => openChunkRun(key, row)));
    // Keep a failure of this page from surfacing as unhandled while the previous page is inserted.
    opening.catch(() => undefined);
    if (previous) insert(previous.rows, await previous.runs);
    previous = { rows, runs: opening };
    const last = rows.at(-1);
    if (!last || rows.length < pageRows) break;
    after = { documentId: last.documentId, firstOrdinal: last.firstOrdinal };
  }
  insert(previous.rows, await previous.runs);
  const tail = current as IndexedDocument | null;
  if (tail) index.apply([tail]);
}

/** One document as the index holds it, read from its current chunk runs; null when it no longer exists. */
export async function readDocument(
  storage: Storage,
  key: TeamKey,
  id: string,
): Promise<IndexedDocument | null> {
  const rows = await storage.documents.chunkRuns(key.teamId, id);
  if (rows.length === 0) return null;
  const runs = await Promise.all(rows.map((row) => openChunkRun(key, row)));
  const first = runs[0] as ChunkRun;
  return {
    id,
    title: first.title,
    path: first.path,
    passages: rows.flatMap((row, i) =>
      (runs[i]?.chunks ?? []).map((chunk, j) => ({
        chunkId: chunkId(id, row.version, row.firstOrdinal + j),
        ordinal: row.firstOrdinal + j,
        ...chunk,
      })),
    ),
  };
}
