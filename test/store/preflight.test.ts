// What a start reads before it writes: the schema version and the newest teams' wrapped keys, read with
// SELECTs only, and a refusal in openStorage's beforeWriting hook that leaves the file byte for byte as it was.

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { importMasterKeys, wrapTeamKey } from "../../src/seal/master.js";
import { generateTeamKeyMaterial } from "../../src/seal/team-key.js";
import { openClient } from "../../src/store/client.js";
import { latestSchemaVersion, migrations } from "../../src/store/migrations/index.js";
import { readPreflight } from "../../src/store/preflight.js";
import { openStorage, PREFLIGHT_TEAM_SAMPLE } from "../../src/store/storage.js";
import { newMasterKey, tempDir } from "../support/app.js";

function fileHash(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

class Refused extends Error {}

describe("the preflight a start reads before writing", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  function database() {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    return { ...tmp, file: tmp.dbUrl.slice("file:".length) };
  }

  /** A database at schema version 1 only (as an old memoria left it), holding `teams` teams. */
  async function oldDatabase(teams: number) {
    const db = database();
    const client = await openClient({ url: db.dbUrl });
    const first = migrations[0];
    if (!first) throw new Error("no migrations");
    await client.batch(
      [
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
        { sql: "INSERT INTO schema_migrations VALUES (1, ?)", args: [new Date().toISOString()] },
        ...first.statements,
      ],
      "write",
    );
    const master = await importMasterKeys(newMasterKey());
    for (let i = 0; i < teams; i++) {
      const id = `t-${String(i).padStart(3, "0")}`;
      await client.execute({
        sql: "INSERT INTO teams (id, created_at, wrapped_key, sealed) VALUES (?, ?, ?, ?)",
        args: [
          id,
          new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          await wrapTeamKey(master, id, generateTeamKeyMaterial()),
          new Uint8Array([1]),
        ],
      });
    }
    client.close();
    return db;
  }

  it("reads a database memoria never migrated as version 0 with no teams, and creates nothing", async () => {
    const db = database();
    const client = await openClient({ url: db.dbUrl });
    expect(await readPreflight(client, PREFLIGHT_TEAM_SAMPLE)).toEqual({ schemaVersion: 0, teamKeys: [] });
    const tables = await client.execute("SELECT name FROM sqlite_master");
    expect(tables.rows).toEqual([]);
    client.close();
  });

  it("reads a database whose first migration never committed as version 0, and creates nothing", async () => {
    const db = database();
    const client = await openClient({ url: db.dbUrl });
    await client.execute(
      "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
    );
    expect(await readPreflight(client, PREFLIGHT_TEAM_SAMPLE)).toEqual({ schemaVersion: 0, teamKeys: [] });
    const tables = await client.execute("SELECT name FROM sqlite_master");
    expect(tables.rows.map((r) => r.name)).toEqual(["schema_migrations"]);
    client.close();
  });

  it("reads a migrated database in one call to storage, one round trip on remote storage", async () => {
    const db = await oldDatabase(3);
    const client = await openClient({ url: db.dbUrl });
    let calls = 0;
    const counted = new Proxy(client, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (name === "execute" || name === "batch") calls++;
          return value.apply(target, args);
        };
      },
    });
    const found = await readPreflight(counted, PREFLIGHT_TEAM_SAMPLE);
    client.close();
    expect(found.schemaVersion).toBe(1);
    expect(found.teamKeys.map((k) => k.teamId)).toEqual(["t-002", "t-001", "t-000"]);
    expect(calls).toBe(1);
  });

  it("reads an older schema's newest teams first, bounded by the sample", async () => {
    const db = await oldDatabase(PREFLIGHT_TEAM_SAMPLE + 4);
    const client = await openClient({ url: db.dbUrl });
    const found = await readPreflight(client, PREFLIGHT_TEAM_SAMPLE);
    client.close();
    expect(found.schemaVersion).toBe(1);
    expect(found.teamKeys).toHaveLength(PREFLIGHT_TEAM_SAMPLE);
    expect(found.teamKeys[0]?.teamId).toBe(`t-0${PREFLIGHT_TEAM_SAMPLE + 3}`);
    expect(found.teamKeys.every((k) => k.wrappedKey.length > 32)).toBe(true);
  });

  it("a refusal before writing leaves an older schema unmigrated and the file byte for byte unchanged", async () => {
    const db = await oldDatabase(2);
    const before = fileHash(db.file);
    let seen: unknown = null;
    const refused = await openStorage(
      { url: db.dbUrl },
      {
        beforeWriting: async (found) => {
          seen = found;
          throw new Refused("no");
        },
      },
    ).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Refused);
    expect(seen).toMatchObject({ schemaVersion: 1, teamKeys: [{ teamId: "t-001" }, { teamId: "t-000" }] });
    expect(fileHash(db.file)).toBe(before);
    expect(existsSync(`${db.file}-journal`)).toBe(false);

    // Accepted, the same database is migrated to the latest schema with its teams kept.
    const storage = await openStorage({ url: db.dbUrl }, { beforeWriting: async () => {} });
    const version = await storage.client.execute("SELECT MAX(version) AS v FROM schema_migrations");
    expect(version.rows[0]?.v).toBe(latestSchemaVersion);
    expect((await storage.teams.list()).map((t) => t.id)).toEqual(["t-000", "t-001"]);
    storage.close();
  });
});
