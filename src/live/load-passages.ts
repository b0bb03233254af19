// Reading a team's sealed chunk runs into its in-memory index: all of them for a build, one document's for a
// catch-up. Storage and the index meet here, and nowhere else. A document with a run that does not open is
// left out whole and counted (see unreadable.ts), never fatal: the rest of the team stays searchable.

import type { IndexedDocument, PassageIndex } from "../index/passage-index.js";
import type { TeamKey } from "../seal/team-key.js";
import { type ChunkRun, chunkId, openChunkRun } from "../sealed/documents.js";
import { openOrNull } from "../sealed/readable.js";
import type { ChunkRunRow } from "../store/documents.js";
import type { Storage } from "../store/storage.js";
import { chunkRunPages } from "./stored-pages.js";
import { type Reread, UnreadableRows } from "./unreadable.js";

/**
 * Reads, opens and indexes every chunk run, a page at a time. A page's runs are being opened (WebCrypto
 * works off the main thread) while the page before is inserted, so decryption and FTS5 overlap, and later
 * pages are being read meanwhile (stored-pages.ts). Returns the documents left out because a run of
 * theirs did not open.
 */
export async function loadPassages(
  storage: Storage,
  key: TeamKey,
  index: PassageIndex,
  pageRows: number,
  onPage: (passagesSoFar: number) => void = () => {},
): Promise<UnreadableRows> {
  const unreadable = new UnreadableRows();
  // The document being gathered (its runs may span pages), the chunks its rows hold, and whether one of
  // its runs failed to open.
  let current: { document: IndexedDocument; chunks: number; failed: boolean } | null = null;
  const finish = (complete: IndexedDocument[]) => {
    if (!current) return;
    if (current.failed) unreadable.mark(current.document.id, current.chunks);
    else complete.push(current.document);
  };
  const insert = (rows: ChunkRunRow[], runs: (ChunkRun | null)[]) => {
    const complete: IndexedDocument[] = [];
    rows.forEach((row, i) => {
      const run = runs[i] ?? null;
      // A document whose runs straddle a write racing the build may mix versions here; the catch-up that
      // ends the build replays that write and replaces the whole document.
      if (current?.document.id !== row.documentId) {
        finish(complete);
        current = {
          document: {
            id: row.documentId,
            title: run?.title ?? "",
            path: run?.path ?? [],
            tags: run?.tags ?? [],
            passages: [],
          },
          chunks: 0,
          failed: false,
        };
      }
      current.chunks += row.count;
      if (!run) {
        current.failed = true;
        return;
      }
      const passages = current.document.passages;
      run.chunks.forEach((chunk, j) => {
        const ordinal = row.firstOrdinal + j;
        passages.push({ chunkId: chunkId(row.documentId, row.version, ordinal), ordinal, ...chunk });
      });
    });
    index.apply(complete);
    onPage(index.counts().chunks);
  };
  const pages = chunkRunPages(storage, key.teamId, pageRows);
  let previous: { rows: ChunkRunRow[]; runs: Promise<(ChunkRun | null)[]> } | null = null;
  for await (const rows of pages) {
    const opening = Promise.all(rows.map((row) => openOrNull(openChunkRun(key, row))));
    // Keep a failure of this page from surfacing as unhandled while the previous page is inserted.
    opening.catch(() => undefined);
    if (previous) insert(previous.rows, await previous.runs);
    previous = { rows, runs: opening };
  }
  if (previous) insert(previous.rows, await previous.runs);
  const tail: IndexedDocument[] = [];
  finish(tail);
  if (tail.length > 0) index.apply(tail);
  return unreadable;
}

/** One document as the index holds it, read from its current chunk runs; gone, or unreadable. */
export async function readDocument(
  storage: Storage,
  key: TeamKey,
  id: string,
): Promise<Reread<IndexedDocument>> {
  const rows = await storage.documents.chunkRuns(key.teamId, id);
  if (rows.length === 0) return { kind: "gone" };
  const runs = await Promise.all(rows.map((row) => openOrNull(openChunkRun(key, row))));
  const first = runs[0];
  if (!first || runs.some((run) => run === null)) {
    return { kind: "unreadable", weight: rows.reduce((sum, row) => sum + row.count, 0) };
  }
  return {
    kind: "stored",
    value: {
      id,
      title: first.title,
      path: first.path,
      tags: first.tags ?? [],
      passages: rows.flatMap((row, i) =>
        (runs[i]?.chunks ?? []).map((chunk, j) => ({
          chunkId: chunkId(id, row.version, row.firstOrdinal + j),
          ordinal: row.firstOrdinal + j,
          ...chunk,
        })),
      ),
    },
  };
}
