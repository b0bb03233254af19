// Applies the migrations this code knows, once, at start. Runs inside one write transaction that re-reads
// the applied version first, so several instances starting together apply each migration exactly once.

import type { Client } from "@libsql/client";
import { latestSchemaVersion, migrations } from "./migrations/index.js";

export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
}

export async function migrate(client: Client): Promise<{ from: number; to: number }> {
  await client.execute(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
  );
  const tx = await client.transaction("write");
  try {
    const row = (await tx.execute("SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations")).rows[0];
    const from = Number(row?.v ?? 0);
    if (from > latestSchemaVersion) {
      throw new SchemaTooNewError(
        `The database schema is version ${from}, newer than this memoria knows (${latestSchemaVersion}). ` +
          "Upgrade memoria before starting it on this database.",
      );
    }
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      for (const sql of migration.statements) await tx.execute(sql);
      await tx.execute({
        sql: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
        args: [migration.version, new Date().toISOString()],
      });
    }
    await tx.commit();
    return { from, to: Math.max(from, latestSchemaVersion) };
  } finally {
    tx.close();
  }
}
