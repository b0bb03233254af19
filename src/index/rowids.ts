// Row ids that sort like (document id, ordinal), so equal scores can be ordered by rowid inside FTS5 instead
// of by reading every tied row's stored document_id. At 90k passages a third of the query mix met a tie at its
// cut-off (path and title matches tie by the thousand), and the full tie-break cost ~17 ms each time: search
// p50 went 14.4 → 11.3 ms and p99 115 → 84 ms with ordered rowids.
//
// A rowid is a document's key times 2^18 plus the passage's ordinal. Keys follow the documents' id order and
// are handed out densely: an index build meets documents in id order and gives each the previous key plus
// KEY_SPACING; a document added later takes the midpoint of its neighbours' keys. Dense keys matter because
// FTS5 stores rowid deltas as varints: keys spread over the whole 2^63 range made the 90k load ~12% slower,
// spaced keys cost ~4%. A document that finds no room between its neighbours, or has more than 2^18
// passages, gets an unordered rowid, and the index orders ties the slow way while any such document exists.

/** Bits of the ordinal: 262,144 passages is far past any document within the 5 MiB limit at ~1 KB each. */
export const ORDINAL_BITS = 18;
export const MAX_ORDERED_ORDINAL = 2 ** ORDINAL_BITS - 1;
/** Room left between two documents' keys at a build: eight halvings before a later insert finds none. */
export const KEY_SPACING = 256;
/** Keys stay below 2^34 so every rowid stays below 2^52, exact as a JavaScript number. */
const MAX_KEY = 2 ** 34 - 1;
/** Where keys start, leaving room for documents whose ids sort before the first one. */
const FIRST_KEY = 2 ** 20;
/** Unordered rowids are handed out from here, above every ordered one and still below 2^53. */
export const UNORDERED_ROWIDS_START = 2 ** 52;

export function rowidOf(key: number, ordinal: number): number {
  return key * 2 ** ORDINAL_BITS + ordinal;
}

/** Document ids in order, each with a key that sorts the same way. */
export class OrderedKeys {
  readonly #ids: string[] = [];
  readonly #keys: number[] = [];

  /** A key for a document not yet holding one, or null when there is no room at its place in the order. */
  assign(id: string): number | null {
    const at = this.#position(id);
    if (this.#ids[at] === id) return this.#keys[at] ?? null;
    const before = at > 0 ? (this.#keys[at - 1] ?? null) : null;
    const after = at < this.#keys.length ? (this.#keys[at] ?? null) : null;
    let key: number | null;
    if (before === null && after === null) key = FIRST_KEY;
    else if (after === null)
      key = (before as number) + KEY_SPACING <= MAX_KEY ? (before as number) + KEY_SPACING : null;
    else if (before === null)
      key = after >= KEY_SPACING ? after - KEY_SPACING : after > 0 ? Math.floor(after / 2) : null;
    else key = after - before >= 2 ? before + Math.floor((after - before) / 2) : null;
    if (key === null) return null;
    this.#ids.splice(at, 0, id);
    this.#keys.splice(at, 0, key);
    return key;
  }

  release(id: string): void {
    const at = this.#position(id);
    if (this.#ids[at] !== id) return;
    this.#ids.splice(at, 1);
    this.#keys.splice(at, 1);
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
