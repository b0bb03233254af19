// Opening a sealed row as the shape it must hold: a row that opens to anything else is as unreadable as one
// that does not decrypt, and is reported the same way (never as an empty value).

import type { z } from "zod";
import { DomainError } from "../errors.js";
import { openRow, type TeamKey } from "../seal/team-key.js";

export async function openAs<T>(
  schema: z.ZodType<T>,
  key: TeamKey,
  table: string,
  id: string,
  sealed: Uint8Array,
): Promise<T> {
  const parsed = schema.safeParse(await openRow(key, table, id, sealed));
  if (!parsed.success)
    throw new DomainError("unreadable", `Stored ${table} row ${id} opened but is not in the expected shape.`);
  return parsed.data;
}
