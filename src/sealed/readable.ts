// Opening many sealed rows where one that does not open must not sink the rest (a row copied in from
// another team, a row altered behind memoria's back): the readable ones, and how many were not. Anything
// other than `unreadable` (storage failing, a bug) still fails the whole call.

import { isDomainError } from "../errors.js";

export interface Readable<V> {
  /** The rows that opened, in the order given. */
  values: V[];
  /** How many did not open. */
  unreadable: number;
}

export async function openReadable<R, V>(
  rows: readonly R[],
  open: (row: R) => Promise<V>,
): Promise<Readable<V>> {
  const opened = await Promise.all(
    rows.map(async (row) => {
      try {
        return { ok: true as const, value: await open(row) };
      } catch (error) {
        if (isDomainError(error, "unreadable")) return { ok: false as const };
        throw error;
      }
    }),
  );
  const values: V[] = [];
  for (const result of opened) if (result.ok) values.push(result.value);
  return { values, unreadable: opened.length - values.length };
}
