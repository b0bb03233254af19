// What a team row's sealed blob holds, as a schema: a row that opens to anything else is as unreadable as one
// that does not decrypt, and is reported the same way.

import { z } from "zod";
import { DomainError } from "../errors.js";
import { openRow, sealRow, type TeamKey } from "../seal/team-key.js";

export const teamContentSchema = z.object({ name: z.string() });
export type TeamContent = z.infer<typeof teamContentSchema>;

/** The table name bound into each team seal's additional data; changing it makes every team unreadable. */
const TEAMS_TABLE = "teams";

export const sealTeam = (key: TeamKey, id: string, content: TeamContent) =>
  sealRow(key, TEAMS_TABLE, id, content);

export async function openTeam(key: TeamKey, id: string, sealed: Uint8Array): Promise<TeamContent> {
  const parsed = teamContentSchema.safeParse(await openRow(key, TEAMS_TABLE, id, sealed));
  if (!parsed.success)
    throw new DomainError("unreadable", `Stored teams row ${id} is not in the expected shape.`);
  return parsed.data;
}
