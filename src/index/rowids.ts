// Row ids that sort like (document id, ordinal), so equal scores can be ordered by rowid inside FTS5 instead
// of by reading every tied row's stored document_id (at 90k passages a third of the query mix met a tie at
// its cut-off, path and title matches tie by the thousand, and the full tie-break cost ~17 ms each).
//
// memoria's document ids are `d` and 16 base32 characters. The first 44 bits of those characters, in the
// characters' ASCII order, followed by an 18-bit ordinal, make a 62-bit integer whose order is the ids'
// string order, then the ordinal's. Two ids sharing those 44 bits (about one pair in 1e4 at 90k documents),
// an id of another shape, or a document past 2^18 passages get no ordered rowid; the index then falls back to
// ordering ties by reading the columns, so the answer is the same, only slower.

/** Bits of the ordinal; 262,144 passages is far past any document within the 5 MiB limit at ~1 KB each. */
export const ORDINAL_BITS = 18n;
/** Bits taken from the id: 8 characters × 5 bits, plus the top 4 bits of the ninth. */
const KEY_BITS = 44n;
export const MAX_ORDERED_ORDINAL = (1 << Number(ORDINAL_BITS)) - 1;
/** Rowids of documents without an ordered rowid start here, above every ordered one. */
export const UNORDERED_ROWIDS_START = 1n << (KEY_BITS + ORDINAL_BITS);

const canonicalId = /^d[a-z2-7]{16}$/;
// The base32 alphabet in ASCII order: digits sort before letters, so their values must too.
const asciiOrder = "234567abcdefghijklmnopqrstuvwxyz";

/** The ordered rowid of a document's first passage (ordinal 0), or null when the id has another shape. */
export function orderedRowidBase(documentId: string): bigint | null {
  if (!canonicalId.test(documentId)) return null;
  let key = 0n;
  for (let i = 1; i <= 9; i++) key = (key << 5n) | BigInt(asciiOrder.indexOf(documentId[i] as string));
  // Nine characters are 45 bits; the last one's lowest bit is dropped to keep 44.
  return (key >> 1n) << ORDINAL_BITS;
}

/** The id prefix an ordered rowid stands for, to detect two documents sharing it. */
export function rowidKey(base: bigint): bigint {
  return base >> ORDINAL_BITS;
}
