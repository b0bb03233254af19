// Keyset paging, newest first, shared by every list: a page is the rows after a (createdAt, id) cursor, and
// the next cursor is the last row of a page that had more behind it. Beside it, the reads that split a team's
// rows into ranges ahead of time, in key order (an index build).

import type { InStatement, InValue } from "@libsql/client";

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

/** A table's key of two columns, for the range reads: the columns' names in key order and a key's values. */
export interface KeyColumns<Key> {
  names: readonly [string, string];
  values(key: Key): [InValue, InValue];
}

/**
 * The key of every `pageRows`-th of the team's rows in key order (the 1st, the (pageRows + 1)th, …): one read
 * of the key's covering index, so a build asks where every page begins at once.
 */
export function pageStartsStatement<Key>(
  table: string,
  key: KeyColumns<Key>,
  teamId: string,
  pageRows: number,
): InStatement {
  const names = key.names.join(", ");
  return {
    sql: `SELECT ${names} FROM (
            SELECT ${names}, row_number() OVER (ORDER BY ${names}) - 1 AS position
            FROM ${table} WHERE team_id = ?)
          WHERE position % ? = 0 ORDER BY ${names}`,
    args: [teamId, pageRows],
  };
}

/** At most `limit` of the team's rows (`columns` of them) in `range`, in key order. */
export function keyRangeStatement<Key>(
  columns: string,
  table: string,
  key: KeyColumns<Key>,
  teamId: string,
  range: KeyRange<Key>,
  limit: number,
): InStatement {
  const names = `(${key.names.join(", ")})`;
  const until = range.before ? `AND ${names} < (?, ?)` : "";
  return {
    sql: `SELECT ${columns} FROM ${table}
          WHERE team_id = ? AND ${names} ${range.fromIncluded ? ">=" : ">"} (?, ?) ${until}
          ORDER BY ${key.names.join(", ")} LIMIT ?`,
    args: [teamId, ...key.values(range.from), ...(range.before ? key.values(range.before) : []), limit],
  };
}
