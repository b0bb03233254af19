// What a team row's sealed blob holds, as a schema: a row that opens to anything else is as unreadable as one
// that does not decrypt, and is reported the same way.

import { z } from "zod";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

export const teamContentSchema = z.object({ name: z.string() });
export type TeamContent = z.infer<typeof teamContentSchema>;

/** The table name bound into each team seal's additional data; changing it makes every team unreadable. */
const TEAMS_TABLE = "teams";

export const sealTeam = (key: TeamKey, id: string, content: TeamContent) =>
  sealRow(key, TEAMS_TABLE, id, content);

export const openTeam = (key: TeamKey, id: string, sealed: Uint8Array): Promise<TeamContent> =>
  openAs(teamContentSchema, key, TEAMS_TABLE, id, sealed);
