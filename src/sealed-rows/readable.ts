// Opening sealed rows where one that does not open must not sink the rest (a row copied in from another
// team, a row altered behind memoria's back): the readable ones, and how many were not. Anything other than
// `unreadable` (storage failing, a bug) still fails the call.

import { isDomainError } from "../errors.js";

/** `opening`'s value, or null when the row did not open; any other failure is rethrown. */
export async function openOrNull<T>(opening: Promise<T>): Promise<T | null> {
  try {
    return await opening;
  } catch (error) {
    if (isDomainError(error, "unreadable")) return null;
    throw error;
  }
}

export interface Readable<V> {
  /** The rows that opened, in the order given. */
  values: V[];
  /** How many did not open. */
  unreadable: number;
}

/** Opens every row; the ones that do not open are counted, not thrown. Opened values are never null. */
export async function openReadable<R, V extends {}>(
  rows: readonly R[],
  open: (row: R) => Promise<V>,
): Promise<Readable<V>> {
  const opened: (V | null)[] = await Promise.all(rows.map((row) => openOrNull(open(row))));
  const values = opened.filter((value): value is V => value !== null);
  return { values, unreadable: opened.length - values.length };
}
