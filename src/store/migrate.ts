// Applies the migrations this code knows, at start. Every migration's first statement records its version.
// All pending migrations go first as one batch (one transaction): a fresh database is migrated with one commit
// instead of one a migration (12 commits took ~15 ms of a ~235 ms start on `file:`, and a round trip each on
// remote storage). If another instance applied any of them first, a version insert fails on the primary key,
// the whole batch rolls back, and this instance goes on one migration a batch, skipping those already there.
// A batch never holds a transaction across an await, so instances in one process cannot deadlock on each
// other either.

import type { Client, InStatement, ResultSet } from "@libsql/client";
import { latestSchemaVersion, type Migration, migrations } from "./migrations/index.js";

export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
}

/**
 * The schema version storage holds, read without writing: 0 for a database memoria has never migrated
 * (no schema_migrations table yet), so a start can look before it migrates.
 */
export async function storedSchemaVersion(client: Client): Promise<number> {
  const table = await client.execute(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
  );
  return table.rows.length === 0 ? 0 : appliedVersion(client);
}

/** Refuses a schema newer than this code, whose tables it might misread or break. */
export function assertSchemaKnown(version: number): void {
  if (version > latestSchemaVersion) {
    throw new SchemaTooNewError(
      `The database schema is version ${version}, newer than this memoria knows (${latestSchemaVersion}). ` +
        "Upgrade memoria before starting it on this database.",
    );
  }
}

/** The newest migration applied, as `v`; 0 when the table is empty. */
export const APPLIED_VERSION = "SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations";

/** The `v` a read of APPLIED_VERSION returned. */
export function versionOf(rs: ResultSet | undefined): number {
  return Number(rs?.rows[0]?.v ?? 0);
}

async function appliedVersion(client: Client): Promise<number> {
  return versionOf(await client.execute(APPLIED_VERSION));
}

function isDuplicateVersion(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed: schema_migrations\.version/.test(error.message);
}

/** Applies `list` (this code's migrations unless given) past the version storage holds. */
export async function migrate(
  client: Client,
  list: readonly Migration[] = migrations,
): Promise<{ from: number; to: number }> {
  await client.execute(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
  );
  const from = await appliedVersion(client);
  assertSchemaKnown(from);
  const pending = list.filter((migration) => migration.version > from);
  try {
    if (pending.length > 0) await client.batch(pending.flatMap(applying), "write");
    return { from, to: Math.max(from, ...pending.map((migration) => migration.version)) };
  } catch (error) {
    if (!isDuplicateVersion(error)) throw error;
  }
  for (const migration of pending) {
    try {
      await client.batch(applying(migration), "write");
    } catch (error) {
      if (!isDuplicateVersion(error)) throw error;
    }
  }
  return { from, to: Math.max(from, await appliedVersion(client)) };
}

/** A migration's statements, after the insert of its version that makes a second application fail. */
function applying(migration: Migration): InStatement[] {
  return [
    {
      sql: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
      args: [migration.version, new Date().toISOString()],
    },
    ...migration.statements,
  ];
}
