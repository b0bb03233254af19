// Reading a team's sealed chunk runs into its in-memory index: all of them for a build, one document's for a
// catch-up. Storage and the index meet here, and nowhere else. A document with a run that does not open is
// left out whole and counted (see unreadable.ts), never fatal: the rest of the team stays searchable.

import type { IndexedDocument, PassageIndex } from "../index/passages/passage-index.js";
import { blocksFit, type PackedBlock } from "../index/passages/passage-text.js";
import type { TeamKey } from "../seal/team-key.js";
import { type ChunkRun, chunkId, openChunkRun } from "../sealed-rows/documents.js";
import { openOrNull } from "../sealed-rows/readable.js";
import type { ChunkRunRow } from "../store/documents.js";
import type { Storage } from "../store/storage.js";
import { chunkRunPages } from "./stored-pages.js";
import { type Reread, UnreadableRows } from "./unreadable.js";

/**
 * Packs documents' text blocks as the index stores them (packDocumentText), on another thread: the chunk
 * pool's worker in the server (runtime/chunk-pool.ts). Null: not now, the caller packs them itself; a
 * rejection: the packer failed.
 */
export type TextPacker = (documents: readonly IndexedDocument[]) => Promise<readonly PackedBlock[][] | null>;

/**
 * Pages opened and packed ahead of the page being inserted. While the request thread inserts a page, the
 * pages after it are being opened (WebCrypto decrypts off the main thread) and packed on the packer's thread.
 * Measured on a wake from rows of 20,024 passages on `file:` (decision 0108): the request thread waited for a
 * packed page 418–446 ms in all with two ahead, 362–367 with four and 229–251 with eight, but the first answer
 * came no sooner at eight than at four (20k and 87k), so four, holding half of eight's text. A page is up to
 * twice BUILD_PAGE_ROWS runs (a range read whole, stored-pages.ts), typically ~0.3 MB of text.
 */
export const PAGES_OPENED_AHEAD = 4;

export interface LoadPassagesOptions {
  /** Called after each page goes in, with the passages loaded so far. */
  onPage?: (passagesSoFar: number) => void;
  /** Where the text blocks are packed; in the index when absent. */
  packText?: TextPacker;
  /** Called once if the packer fails; the rest of the load then packs in the index. */
  onPackFailed?: (error: unknown) => void;
}

/**
 * Reads, opens and indexes every chunk run, a page at a time. A page's runs are being opened (WebCrypto
 * works off the main thread) while the pages before are packed and inserted, so decryption, packing and FTS5
 * overlap, and later pages are being read meanwhile (stored-pages.ts). With a `packText`, the text blocks are
 * packed there; a page it does not take, or blocks that do not fit their passages, are packed in the index, and
 * a packer that fails is not asked again. Returns the documents left out because a run of theirs did not open.
 */
export async function loadPassages(
  storage: Storage,
  key: TeamKey,
  index: PassageIndex,
  pageRows: number,
  options: LoadPassagesOptions = {},
): Promise<UnreadableRows> {
  const { onPage = () => {}, onPackFailed = () => {} } = options;
  let packText = options.packText;
  const unreadable = new UnreadableRows();
  // The document being gathered (its runs may span pages), the chunks its rows hold, and whether one of
  // its runs failed to open.
  let current: { document: IndexedDocument; chunks: number; failed: boolean } | null = null;
  const finish = (complete: IndexedDocument[]) => {
    if (!current) return;
    if (current.failed) unreadable.mark(current.document.id, current.chunks);
    else complete.push(current.document);
  };
  // The documents a page completes, in order: a page's runs always go after the page before.
  const gather = (rows: ChunkRunRow[], runs: (ChunkRun | null)[]): IndexedDocument[] => {
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
    return complete;
  };
  const packed = async (documents: IndexedDocument[]): Promise<IndexedDocument[]> => {
    const packer = packText;
    if (!packer || documents.length === 0) return documents;
    let blocks: readonly PackedBlock[][] | null;
    try {
      blocks = await packer(documents);
    } catch (error) {
      if (packText === packer) {
        packText = undefined;
        onPackFailed(error);
      }
      return documents;
    }
    if (!blocks || blocks.length !== documents.length) return documents;
    return documents.map((doc, i) => {
      const own = blocks[i];
      return own && blocksFit(own, doc.passages.length) ? { ...doc, packed: own } : doc;
    });
  };
  const insert = (documents: IndexedDocument[]) => {
    index.apply(documents);
    onPage(index.counts().chunks);
  };
  const pages = chunkRunPages(storage, key.teamId, pageRows);
  const ahead: Promise<IndexedDocument[]>[] = [];
  let gathered: Promise<unknown> = Promise.resolve();
  for await (const rows of pages) {
    const opening = Promise.all(rows.map((row) => openOrNull(openChunkRun(key, row))));
    // Keep a failure of this page's opening from surfacing as unhandled before its turn to be gathered comes
    // (or if a page before it fails and that turn never comes); gathering it rethrows it.
    opening.catch(() => undefined);
    const documents = gathered.then(async () => gather(rows, await opening));
    gathered = documents;
    const page = documents.then(packed);
    // Keep a failure of this page from surfacing as unhandled while the pages before are inserted.
    page.catch(() => undefined);
    ahead.push(page);
    if (ahead.length > PAGES_OPENED_AHEAD) insert(await (ahead.shift() as Promise<IndexedDocument[]>));
  }
  for (const page of ahead.splice(0)) insert(await page);
  const tail: IndexedDocument[] = [];
  finish(tail);
  if (tail.length > 0) insert(await packed(tail));
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
