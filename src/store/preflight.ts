// What a start reads from storage before it writes anything: the schema version, and the wrapped keys of
// the newest teams, so the master key can be tried against them before a migration or a new row commits
// the start to that key. Only SELECTs: a start refused here leaves storage byte for byte as it was.

import type { Client } from "@libsql/client";
import { blob, text } from "./client.js";
import { storedSchemaVersion } from "./migrate.js";

export interface StoredTeamKey {
  teamId: string;
  wrappedKey: Uint8Array;
}

export interface Preflight {
  schemaVersion: number;
  /** The newest teams' wrapped data keys, newest first; empty for a database with no teams. */
  teamKeys: StoredTeamKey[];
}

/**
 * Reads the preflight without writing. `teamSample` bounds the teams read: the check needs a few keys, not
 * every team's. The teams table exists from schema version 1 on, in the same shape, so an older schema is
 * read the same way before it is migrated.
 */
export async function readPreflight(client: Client, teamSample: number): Promise<Preflight> {
  const schemaVersion = await storedSchemaVersion(client);
  if (schemaVersion < 1) return { schemaVersion, teamKeys: [] };
  const rs = await client.execute({
    sql: "SELECT id, wrapped_key FROM teams ORDER BY created_at DESC, id DESC LIMIT ?",
    args: [teamSample],
  });
  return {
    schemaVersion,
    teamKeys: rs.rows.map((row) => ({ teamId: text(row.id), wrappedKey: blob(row.wrapped_key) })),
  };
}
