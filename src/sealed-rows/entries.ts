// What an entry's sealed blob holds, as a schema: a row that opens to anything else is as unreadable as one
// that does not decrypt, and is reported the same way.

import { z } from "zod";
import { blindIndex, sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

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

export const openEntry = (key: TeamKey, id: string, sealed: Uint8Array): Promise<EntryContent> =>
  openAs(entryContentSchema, key, ENTRIES_TABLE, id, sealed);

/**
 * The project's blind index. Prefixed so it can never equal the blind index of some other kind of value
 * with the same text.
 */
export const projectRef = (key: TeamKey, project: string) => blindIndex(key, `project:${project}`);
