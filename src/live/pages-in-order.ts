// Pages of rows read ahead of their use, handed out in order. A build reads a team's rows a page at a time;
// with storage across a network, a page's keyset read could only be sent once the page before had arrived,
// so one read was in flight at a time and the build waited on the network: 2.5–2.9 s to load 20k passages
// from sqld 20 ms away over ws://, against 1.8 s near. Knowing where every page begins (one read of the key's
// index) makes the pages independent reads, several asked for at once.

import type { KeyRange } from "../store/page.js";

/**
 * Pages asked for beyond the one being handed out. Loading 20k passages of Debian's manuals (74 pages of 32
 * chunk runs, ~250 KB sealed each) from sqld 20 ms away, four wakes per setting, ws:// and http://: one read at
 * a time 2.50–2.76 and 4.24–4.38 s; two ahead 2.00–2.58 and 2.08–2.48 s; five 1.79–2.22 and 1.92–2.80 s; nine
 * 1.92–2.25 and 2.14–2.63 s. Past two, settings differ less than the wakes of one do; four is near the best and
 * keeps hiding the round trip for storage farther away, for four pages of sealed rows held (decision 0099).
 */
export const PAGES_AHEAD = 4;

export interface PageReads<Key, Row> {
  /** Reads at most `limit` rows of the range, in key order. */
  read: (range: KeyRange<Key>, limit: number) => Promise<Row[]>;
  keyOf: (row: Row) => Key;
  /** Pages asked for beyond the one handed out. */
  ahead: number;
  /**
   * The most rows one read returns. A range holds a page's rows as they were when the starts were read, plus
   * whatever writes racing the build have put into it since; a read that comes back full goes on from its
   * last row, before the next range is handed out, so no page held is larger than this however much is written
   * meanwhile.
   */
  limit: number;
}

/**
 * Yields the rows of the ranges [starts[i], starts[i + 1]) in order (the last runs to the end), at most `limit`
 * at a time, with the `ahead` ranges after the current one already asked for: at most `ahead` + 1 reads of
 * at most `limit` rows are held beyond what the caller keeps. `ahead` 0 reads one page at a time.
 */
export async function* pagesInOrder<Key, Row>(
  starts: readonly Key[],
  { read, keyOf, ahead, limit }: PageReads<Key, Row>,
): AsyncGenerator<Row[]> {
  const ask = (range: KeyRange<Key>) => {
    const reading = read(range, limit);
    // Awaited in turn below; kept from surfacing as unhandled if the caller stops before reaching it.
    reading.catch(() => undefined);
    return { range, reading };
  };
  const asked: ReturnType<typeof ask>[] = [];
  let next = 0;
  // The range being handed out: the ranges up to `current + ahead` are asked for before it is awaited.
  let current = 0;
  for (;;) {
    for (; next < starts.length && next <= current + ahead; next++)
      asked.push(ask({ from: starts[next] as Key, fromIncluded: true, before: starts[next + 1] ?? null }));
    const first = asked.shift();
    if (!first) return;
    const rows = await first.reading;
    const last = rows.at(-1);
    if (last !== undefined && rows.length >= limit) {
      // Full: the rest of this range comes next, asked for now, beside the ranges already asked.
      asked.unshift(ask({ from: keyOf(last), fromIncluded: false, before: first.range.before }));
    } else {
      current++;
    }
    // A range emptied by deletes since the starts were read has nothing to hand out.
    if (rows.length > 0) yield rows;
  }
}
