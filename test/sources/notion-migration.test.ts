// Migration 004 on a database v1 left behind: the verification tokens that came through the open bare
// webhook path are forgotten (anyone knowing a team id could have claimed one), and so are page event
// times that froze a page (one dated far ahead) or outlived their team's Notion token; everything else
// stays as it was.

import { afterEach, describe, expect, it } from "vitest";
import { openClient } from "../../src/store/client.js";
import { migrate } from "../../src/store/migrate.js";
import { migrations } from "../../src/store/migrations/index.js";
import { tempDir } from "../support/app.js";

describe("migration 004 (secret Notion webhook paths)", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("forgets v1 verification tokens and frozen or orphaned page times, and keeps the rest", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const client = await openClient({ url: tmp.dbUrl });
    cleanups.push(() => client.close());
    // The schema as v1 (version 3) left it.
    await client.execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
    );
    for (const migration of migrations.filter((m) => m.version <= 3)) {
      await client.batch(
        [
          {
            sql: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
            args: [migration.version, "x"],
          },
          ...migration.statements,
        ],
        "write",
      );
    }
    const sealed = new Uint8Array([1, 2, 3]);
    const source = (teamId: string, kind: string) => ({
      sql: "INSERT INTO sources (team_id, kind, updated_at, sealed) VALUES (?, ?, ?, ?)",
      args: [teamId, kind, "2025-03-01T10:00:00.000Z", sealed],
    });
    const page = (teamId: string, ref: number, eventAt: string) => ({
      sql: "INSERT INTO source_pages (team_id, page_ref, event_at) VALUES (?, ?, ?)",
      args: [teamId, new Uint8Array([ref]), eventAt],
    });
    await client.batch(
      [
        source("t_kept", "notion.token"),
        source("t_kept", "notion.verification"),
        source("t_kept", "webhook.secret"),
        page("t_kept", 1, "2025-03-01T10:00:00.000Z"),
        page("t_kept", 2, "9999-12-31T00:00:00.000Z"),
        // Deleted with v1's DELETE, which left its page times behind.
        page("t_gone", 3, "2025-03-01T10:00:00.000Z"),
      ],
      "write",
    );

    expect(await migrate(client)).toMatchObject({ from: 3 });
    const kinds = await client.execute("SELECT team_id, kind FROM sources ORDER BY kind");
    expect(kinds.rows.map((r) => `${r.team_id} ${r.kind}`)).toEqual([
      "t_kept notion.token",
      "t_kept webhook.secret",
    ]);
    const pages = await client.execute("SELECT team_id, event_at FROM source_pages");
    expect(pages.rows.map((r) => `${r.team_id} ${r.event_at}`)).toEqual(["t_kept 2025-03-01T10:00:00.000Z"]);
  });
});
