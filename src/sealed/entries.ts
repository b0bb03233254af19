// What an entry's sealed blob holds, as a schema: a row that opens to anything else is as unreadable as one
// that does not decrypt, and is reported the same way.

import { z } from "zod";
import { DomainError } from "../errors.js";
import { blindIndex, openRow, sealRow, type TeamKey } from "../seal/team-key.js";

export const entryContentSchema = z.object({
  project: z.string().nullable(),
  type: z.string().nullable(),
  title: z.string(),
  impact: z.string().nullable(),
  body: z.string().nullable(),
});
export type EntryContent = z.infer<typeof entryContentSchema>;

/** The table name bound into each entry seal's additional data; changing it makes every entry unreadable. */
const ENTRIES_TABLE = "entries";

export const sealEntry = (key: TeamKey, id: string, content: EntryContent) =>
  sealRow(key, ENTRIES_TABLE, id, content);

export async function openEntry(key: TeamKey, id: string, sealed: Uint8Array): Promise<EntryContent> {
  const parsed = entryContentSchema.safeParse(await openRow(key, ENTRIES_TABLE, id, sealed));
  if (!parsed.success)
    throw new DomainError("unreadable", `Stored entries row ${id} opened but is not in the expected shape.`);
  return parsed.data;
}

/**
 * The project's blind index. Prefixed so it can never equal the blind index of some other kind of value
 * with the same text.
 */
export const projectRef = (key: TeamKey, project: string) => blindIndex(key, `project:${project}`);
