import { afterEach, describe, expect, it } from "vitest";
import { openClient } from "../../src/store/client.js";
import { migrate, SchemaTooNewError } from "../../src/store/migrate.js";
import { latestSchemaVersion, migrations } from "../../src/store/migrations/index.js";
import { openStorage } from "../../src/store/storage.js";
import { tempDir } from "../support/app.js";

describe("migrations", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("applies every migration once, and a second start applies nothing", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const client = await openClient({ url: tmp.dbUrl });
    expect(await migrate(client)).toEqual({ from: 0, to: latestSchemaVersion });
    expect(await migrate(client)).toEqual({ from: latestSchemaVersion, to: latestSchemaVersion });
    const tables = await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    expect(tables.rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(["api_keys", "changes", "chunks", "documents", "schema_migrations", "teams"]),
    );
    client.close();
  });

  it("applies pending migrations all or none: one that fails leaves the schema as it was", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const client = await openClient({ url: tmp.dbUrl });
    const first = { version: 1, statements: ["CREATE TABLE first (id INTEGER PRIMARY KEY)"] };
    const second = { version: 2, statements: ["CREATE TABLE second (id INTEGER PRIMARY KEY)"] };
    const third = { version: 3, statements: ["CREATE TABLE third (id INTEGER PRIMARY KEY)"] };
    const broken = { version: 3, statements: [...third.statements, "INSERT INTO missing VALUES (1)"] };
    expect(await migrate(client, [first])).toEqual({ from: 0, to: 1 });
    await expect(migrate(client, [first, second, broken])).rejects.toThrow(/no such table: missing/);
    const tables = await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    expect(tables.rows.map((r) => r.name)).toEqual(["first", "schema_migrations"]);
    const versions = await client.execute("SELECT version FROM schema_migrations");
    expect(versions.rows.map((r) => r.version)).toEqual([1]);
    // Mended, the same start applies both.
    expect(await migrate(client, [first, second, third])).toEqual({ from: 1, to: 3 });
    client.close();
  });

  it("a schema newer than the code is a clear startup error", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const client = await openClient({ url: tmp.dbUrl });
    await migrate(client);
    await client.execute({
      sql: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
      args: [latestSchemaVersion + 1, new Date().toISOString()],
    });
    client.close();
    await expect(openStorage({ url: tmp.dbUrl })).rejects.toThrow(SchemaTooNewError);
    await expect(openStorage({ url: tmp.dbUrl })).rejects.toThrow(/newer than this memoria knows/);
  });

  it("several instances starting together apply the schema once", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const storages = await Promise.all([1, 2, 3].map(() => openStorage({ url: tmp.dbUrl })));
    const rows = await storages[0]?.client.execute("SELECT COUNT(*) AS n FROM schema_migrations");
    expect(rows?.rows[0]?.n).toBe(migrations.length);
    for (const s of storages) s.close();
  });
});
