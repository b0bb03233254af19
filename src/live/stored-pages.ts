// A team's chunk runs and entries, page by page in key order, read ahead from storage: what a build from rows and
// the check of a restored index (verify.ts) walk. Where each page begins is read first, in one query; the pages
// then come through pagesInOrder (pages-in-order.ts), the number read ahead set by where storage is.

import type { ChunkRunRow } from "../store/documents.js";
import type { EntryRow } from "../store/entries.js";
import type { Storage } from "../store/storage.js";
import { PAGES_AHEAD, pagesInOrder } from "./pages-in-order.js";

/** Rows one read may return, in pages: a range twice its usual size is read whole. */
const RANGE_LIMIT_PAGES = 2;

/**
 * Pages to read ahead from `storage`: none from a database in this process (a `file:` one, or an embedded
 * replica's copy), whose reads are answered here at once, so reading ahead only holds more rows. Measured on
 * a wake from rows of the same 20k passages on `file:`, eight wakes each: the same load time (2.05–2.86 s at
 * none, 2.05–2.66 s at four, on a machine busy with another bench), and RSS after the first answer 172–178 MiB
 * at none against 176–185 MiB at four.
 */
function pagesAhead(storage: Pick<Storage, "inProcess">): number {
  return storage.inProcess ? 0 : PAGES_AHEAD;
}

/** The team's chunk runs in (document, ordinal) order, about `pageRows` at a time. */
export async function* chunkRunPages(
  storage: Storage,
  teamId: string,
  pageRows: number,
): AsyncGenerator<ChunkRunRow[]> {
  const starts = await storage.documents.chunkRunPageStarts(teamId, pageRows);
  yield* pagesInOrder(starts, {
    read: (range, limit) => storage.documents.chunkRunsBetween(teamId, range, limit),
    keyOf: (row) => ({ documentId: row.documentId, firstOrdinal: row.firstOrdinal }),
    ahead: pagesAhead(storage),
    limit: pageRows * RANGE_LIMIT_PAGES,
  });
}

/** The team's entries oldest first (createdAt, then id), about `pageRows` at a time. */
export async function* entryPages(
  storage: Storage,
  teamId: string,
  pageRows: number,
): AsyncGenerator<EntryRow[]> {
  const starts = await storage.entries.pageStarts(teamId, pageRows);
  yield* pagesInOrder(starts, {
    read: (range, limit) => storage.entries.between(teamId, range, limit),
    keyOf: (row) => ({ createdAt: row.createdAt, id: row.id }),
    ahead: pagesAhead(storage),
    limit: pageRows * RANGE_LIMIT_PAGES,
  });
}
