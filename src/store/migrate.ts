// Applies the migrations this code knows, at start. Each migration is one batch (one transaction) whose first
// statement records its version: if another instance applied it first, that insert fails on the primary
// key, the whole batch rolls back, and this instance moves on. A batch never holds a transaction across an
// await, so instances in one process cannot deadlock on each other either.

import type { Client } from "@libsql/client";
import { latestSchemaVersion, migrations } from "./migrations/index.js";

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

async function appliedVersion(client: Client): Promise<number> {
  const rs = await client.execute("SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations");
  return Number(rs.rows[0]?.v ?? 0);
}

function isDuplicateVersion(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed: schema_migrations\.version/.test(error.message);
}

export async function migrate(client: Client): Promise<{ from: number; to: number }> {
  await client.execute(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
  );
  const from = await appliedVersion(client);
  assertSchemaKnown(from);
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    try {
      await client.batch(
        [
          {
            sql: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
            args: [migration.version, new Date().toISOString()],
          },
          ...migration.statements,
        ],
        "write",
      );
    } catch (error) {
      if (!isDuplicateVersion(error)) throw error;
    }
  }
  return { from, to: Math.max(from, await appliedVersion(client)) };
}
