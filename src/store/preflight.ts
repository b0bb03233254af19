// What a start reads from storage before it writes anything: the schema version, and the wrapped keys of
// the newest teams, so the master key can be tried against them before a migration or a new row commits
// the start to that key. Only SELECTs: a start refused here leaves storage byte for byte as it was.

import type { Client, ResultSet } from "@libsql/client";
import { blob, text } from "./client.js";
import { APPLIED_VERSION, storedSchemaVersion, versionOf } from "./migrate.js";

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
 *
 * A database memoria has migrated answers both reads in one batch: one round trip where a start paid three
 * (whether the version table exists, the version, the teams), ~40 ms of a start with storage 20 ms away.
 * One where either table is missing (never migrated, or its first migration never committed) is read
 * step by step.
 */
export async function readPreflight(client: Client, teamSample: number): Promise<Preflight> {
  let found: ResultSet[];
  try {
    found = await client.batch([APPLIED_VERSION, { sql: TEAM_KEYS, args: [teamSample] }], "read");
  } catch (error) {
    if (!isMissingTable(error)) throw error;
    return readPreflightStepByStep(client, teamSample);
  }
  const [version, teams] = found;
  return { schemaVersion: versionOf(version), teamKeys: teamKeysOf(teams) };
}

const TEAM_KEYS = "SELECT id, wrapped_key FROM teams ORDER BY created_at DESC, id DESC LIMIT ?";

function isMissingTable(error: unknown): boolean {
  // libSQL wraps SQLite's message, locally and from sqld alike.
  return error instanceof Error && /no such table/.test(`${error.message} ${String(error.cause ?? "")}`);
}

function teamKeysOf(rs: ResultSet | undefined): StoredTeamKey[] {
  return (rs?.rows ?? []).map((row) => ({ teamId: text(row.id), wrappedKey: blob(row.wrapped_key) }));
}

async function readPreflightStepByStep(client: Client, teamSample: number): Promise<Preflight> {
  const schemaVersion = await storedSchemaVersion(client);
  if (schemaVersion < 1) return { schemaVersion, teamKeys: [] };
  const rs = await client.execute({ sql: TEAM_KEYS, args: [teamSample] });
  return { schemaVersion, teamKeys: teamKeysOf(rs) };
}
