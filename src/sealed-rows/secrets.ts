// What a source secret's sealed blob holds (one secret per row, bound to its kind: a sealed Notion token
// copied into the webhook secret's row fails to open), as a schema.

import { z } from "zod";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import type { SourceKind } from "../store/sources.js";
import { openAs } from "./open-as.js";

/** The table name bound into each secret seal's additional data; changing it makes every secret unreadable. */
const SOURCES_TABLE = "sources";
const secretSchema = z.object({ value: z.string() });

export const sealSecret = (key: TeamKey, kind: SourceKind, value: string) =>
  sealRow(key, SOURCES_TABLE, kind, { value });

export async function openSecret(key: TeamKey, kind: SourceKind, sealed: Uint8Array): Promise<string> {
  return (await openAs(secretSchema, key, SOURCES_TABLE, kind, sealed)).value;
}
