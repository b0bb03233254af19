// Row ids that sort like (document id, ordinal), so equal scores can be ordered by rowid inside FTS5 instead
// of by reading every tied row's stored document_id. At 90k passages a third of the query mix met a tie at its
// cut-off (path and title matches tie by the thousand), and the full tie-break cost ~17 ms each time: search
// p50 went 14.4 → 11.3 ms and p99 115 → 84 ms with ordered rowids.
//
// Each document holds a range of consecutive rowids, one per passage in ordinal order, and the ranges follow
// the documents' id order with a gap between neighbours. An index build meets documents in id order and
// places each a gap after the one before; a document added later goes in the middle of the free space
// between its neighbours. Ranges are packed because FTS5 stores rowid deltas as varints: keys spread over
// 2^62 made the 90k load ~12% slower than sequential rowids, and a gap under 2^14 keeps every delta within
// two bytes. A document that finds no room, or whose passages are not in ordinal order, gets unordered rowids,
// and the index orders ties the slow way while any such document exists, until the team's index is rebuilt
// in the background (src/live/repack.ts).

/** Free rowids left after each document at a build: room for several later documents of ordinary size. */
export const ROWID_GAP = 8192;
/** Unordered rowids are handed out from here, far above every ordered one and below 2^53. */
export const UNORDERED_ROWIDS_START = 2 ** 52;

/** Document ids in order, each with the range of rowids it holds. */
export class OrderedRanges {
  /** Free rowids left after each document placed at the end; tests pass a tiny one to run out of room. */
  readonly #gap: number;
  readonly #ids: string[] = [];
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];

  constructor(gap: number = ROWID_GAP) {
    this.#gap = gap;
  }

  /** The first rowid of a range of `count` for a document, or null when there is no room at its place. */
  place(id: string, count: number): number | null {
    const at = this.#position(id);
    if (this.#ids[at] === id) return null;
    const before = at > 0 ? (this.#ends[at - 1] ?? null) : null;
    const after = at < this.#starts.length ? (this.#starts[at] ?? null) : null;
    let start: number | null;
    if (before === null && after === null) start = this.#gap;
    else if (after === null) start = (before as number) + this.#gap;
    else {
      const floor = before ?? 0;
      const free = after - floor;
      start = free >= count + 2 ? floor + Math.floor((free - count) / 2) : null;
    }
    if (start === null || start < 1 || start + count >= UNORDERED_ROWIDS_START) return null;
    this.#ids.splice(at, 0, id);
    this.#starts.splice(at, 0, start);
    this.#ends.splice(at, 0, start + count);
    return start;
  }

  /** Puts back the ranges a snapshot recorded (PassageIndex.restore), in place of whatever this holds. */
  restore(ranges: readonly { id: string; first: number; count: number }[]): void {
    const sorted = [...ranges].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.#ids.length = 0;
    this.#starts.length = 0;
    this.#ends.length = 0;
    for (const range of sorted) {
      this.#ids.push(range.id);
      this.#starts.push(range.first);
      this.#ends.push(range.first + range.count);
    }
  }

  release(id: string): void {
    const at = this.#position(id);
    if (this.#ids[at] !== id) return;
    this.#ids.splice(at, 1);
    this.#starts.splice(at, 1);
    this.#ends.splice(at, 1);
  }

  /** The first index whose id is not below `id` (ids compare as SQLite's BINARY collation does for ASCII). */
  #position(id: string): number {
    let lo = 0;
    let hi = this.#ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#ids[mid] as string) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
