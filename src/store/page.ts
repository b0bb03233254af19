// Keyset paging, newest first, shared by every list: a page is the rows after a (createdAt, id) cursor, and
// the next cursor is the last row of a page that had more behind it.

/** A position in a newest-first list: the last row of the previous page. */
export interface PageCursor {
  createdAt: string;
  id: string;
}

/**
 * Cuts rows read with `limit + 1` to a page of `limit`, with the cursor of the next page when the extra row
 * showed there is one.
 */
export function pageOf<T extends PageCursor>(
  rows: readonly T[],
  limit: number,
): { page: T[]; next: PageCursor | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null };
}

/**
 * A stretch of rows in key order, for reads that split a table into pages ahead of time (an index build):
 * from `from` (included, or not when going on past a page's last row) up to `before` (excluded; null for the
 * end).
 */
export interface KeyRange<Key> {
  from: Key;
  fromIncluded: boolean;
  before: Key | null;
}
