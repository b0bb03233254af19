// POST/GET/DELETE /v1/keys as a team uses them: keys of each scope, named, perhaps expiring, listed with their
// last use, revoked; and keys made before scopes existed keep every power they had.

import { describe, expect, it, vi } from "vitest";
import { formatApiKey } from "../../src/api-key.js";
import { newId } from "../../src/ids.js";
import { createdKeyAnswer, teamKeysAnswer } from "../../src/routes/keys.js";
import { Keyring } from "../../src/seal/keyring.js";
import { importMasterKeys } from "../../src/seal/master.js";
import { generateSecret } from "../../src/seal/secret.js";
import { hashSecretNow } from "../../src/seal/secret-hash.js";
import { sealTeam } from "../../src/sealed-rows/teams.js";
import { openClient } from "../../src/store/client.js";
import { migrations } from "../../src/store/migrations/index.js";
import { addDocument, buildTestApp, makeTeam, newMasterKey, tempDir } from "../support/app.js";
import { makeKey } from "../support/keys.js";
import { expectError, expectNoContent, expectOk, withApp } from "./contract.js";

describe("keys with scopes", () => {
  it("makes a named key of each scope, shown once, and lists them with the team's first key", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const made = [];
      for (const scope of ["read", "write", "admin"] as const) {
        const res = await app.request("/v1/keys", {
          method: "POST",
          token: apiKey,
          json: { name: `agent ${scope}`, scope },
        });
        expect(res.headers.get("cache-control")).toContain("no-store");
        made.push({ scope, ...(await expectOk(res, 201, createdKeyAnswer)) });
      }
      const listed = await expectOk(await app.request("/v1/keys", { token: apiKey }), 200, teamKeysAnswer);
      expect(listed).toHaveLength(4);
      // The team's first key: made before any name could be given, admin as every such key.
      expect(listed[0]).toMatchObject({
        name: null,
        scope: "admin",
        owner: null,
        expiresAt: null,
        revokedAt: null,
      });
      for (const key of made) {
        expect(listed.find((k) => k.keyId === key.keyId)).toMatchObject({
          name: `agent ${key.scope}`,
          scope: key.scope,
          owner: null,
          expiresAt: null,
          revokedAt: null,
        });
        expect(key.apiKey.startsWith(`mem_${teamId}_`)).toBe(true);
      }
      const raw = JSON.stringify(listed);
      // The secret is everything after `mem_<teamId>_` (it may hold underscores itself).
      for (const key of made) expect(raw).not.toContain(key.apiKey.slice(`mem_${teamId}_`.length));
    }));

  it("a read key searches and reads; a write key adds; each is refused what is above it", () =>
    withApp(async (app) => {
      const { apiKey: admin } = await makeTeam(app);
      const read = (await makeKey(app, admin, "read")).apiKey;
      const write = (await makeKey(app, admin, "write")).apiKey;
      const doc = await addDocument(app, write, { title: "Runbook", content: "Restart the ingest worker." });
      expect((await app.request("/v1/search?q=ingest", { token: read })).status).toBe(200);
      expect((await app.request(`/v1/documents/${doc.id}`, { token: read })).status).toBe(200);
      await expectError(
        await app.request("/v1/documents", {
          method: "POST",
          token: read,
          json: { title: "x", content: "y" },
        }),
        403,
        "forbidden",
      );
      const refused = await expectError(
        await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: write }),
        403,
        "forbidden",
      );
      expect(refused.error.message).toBe(
        "DELETE /v1/documents/:id needs a key with the admin scope; this key's scope is write.",
      );
      await expectNoContent(await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: admin }));
    }));

  it("records a key's last use at most once a minute, and a key stops at its expiry", async () => {
    let now = Date.parse("2026-12-06T12:00:00Z");
    const app = await buildTestApp({ clock: { now: () => new Date(now) }, config: { catchupMs: 2000 } });
    try {
      const { apiKey: admin } = await makeTeam(app);
      const expiring = await makeKey(app, admin, "read", { expiresAt: "2026-12-06T12:02:00Z" });
      const listed = async () =>
        (await expectOk(await app.request("/v1/keys", { token: admin }), 200, teamKeysAnswer)).find(
          (k) => k.keyId === expiring.keyId,
        );
      expect(await listed()).toMatchObject({ expiresAt: "2026-12-06T12:02:00.000Z", lastUsedAt: null });
      const touch = vi.spyOn(app.storage.teams, "touchKey");
      /** The last-use writes of this key so far, each awaited (they are not waited for by the answer). */
      const touches = async () => {
        const mine = touch.mock.calls.flatMap((call, i) => (call[0] === expiring.keyId ? [i] : []));
        for (const i of mine) await touch.mock.results[i]?.value;
        return mine.length;
      };

      expect((await app.request("/v1/stats", { token: expiring.apiKey })).status).toBe(200);
      expect(await touches()).toBe(1);
      expect((await listed())?.lastUsedAt).toBe("2026-12-06T12:00:00.000Z");
      // Thirty seconds on, past the key cache's hold: storage is asked again, but the last use is recent.
      now += 30_000;
      expect((await app.request("/v1/stats", { token: expiring.apiKey })).status).toBe(200);
      expect(await touches()).toBe(1);
      now += 31_000;
      expect((await app.request("/v1/stats", { token: expiring.apiKey })).status).toBe(200);
      expect(await touches()).toBe(2);
      expect((await listed())?.lastUsedAt).toBe("2026-12-06T12:01:01.000Z");

      // Used a second before its expiry, so held by the key cache: the expiry is checked on every use.
      now = Date.parse("2026-12-06T12:01:59Z");
      expect((await app.request("/v1/stats", { token: expiring.apiKey })).status).toBe(200);
      now += 1000;
      await expectError(await app.request("/v1/stats", { token: expiring.apiKey }), 401, "unauthorized");
      now += 10_000;
      await expectError(await app.request("/v1/stats", { token: expiring.apiKey }), 401, "unauthorized");
    } finally {
      app.close();
    }
  });

  it("revokes a key at once, the one presented included", () =>
    withApp(async (app) => {
      const { apiKey: admin } = await makeTeam(app);
      const other = await makeKey(app, admin, "admin");
      expect((await app.request("/v1/stats", { token: other.apiKey })).status).toBe(200);
      await expectNoContent(await app.request(`/v1/keys/${other.keyId}`, { method: "DELETE", token: admin }));
      await expectError(await app.request("/v1/stats", { token: other.apiKey }), 401, "unauthorized");
      const listed = await expectOk(await app.request("/v1/keys", { token: admin }), 200, teamKeysAnswer);
      expect(listed.find((k) => k.keyId === other.keyId)?.revokedAt).not.toBeNull();
      const own = listed.find((k) => k.name === null);
      await expectNoContent(await app.request(`/v1/keys/${own?.keyId}`, { method: "DELETE", token: admin }));
      await expectError(await app.request("/v1/keys", { token: admin }), 401, "unauthorized");
    }));

  it("a key made before scopes existed is admin, and keeps every power it had", async () => {
    const tmp = tempDir();
    const masterKey = newMasterKey();
    const teamId = newId("t");
    const keyId = newId("k");
    const apiKey = formatApiKey(teamId, generateSecret());
    try {
      // Storage as the release before scopes left it: schema 7, a team and its key.
      const client = await openClient({ url: tmp.dbUrl });
      await client.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
      );
      for (const migration of migrations.filter((m) => m.version <= 7)) {
        await client.batch(
          [
            {
              sql: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
              args: [migration.version, "2026-12-01T00:00:00Z"],
            },
            ...migration.statements,
          ],
          "write",
        );
      }
      const keyring = new Keyring(await importMasterKeys(masterKey, null));
      const { key, wrapped } = await keyring.create(teamId);
      await client.execute({
        sql: "INSERT INTO teams (id, created_at, wrapped_key, sealed) VALUES (?, ?, ?, ?)",
        args: [teamId, "2026-12-01T00:00:00Z", wrapped, await sealTeam(key, teamId, { name: "Old" })],
      });
      await client.execute({
        sql: "INSERT INTO api_keys (id, team_id, secret_hash, created_at) VALUES (?, ?, ?, ?)",
        args: [keyId, teamId, hashSecretNow(apiKey), "2026-12-01T00:00:00Z"],
      });
      client.close();

      const app = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey });
      try {
        const doc = await addDocument(app, apiKey, { title: "Kept", content: "Written by an old key." });
        await expectNoContent(
          await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: apiKey }),
        );
        const listed = await expectOk(await app.request("/v1/keys", { token: apiKey }), 200, teamKeysAnswer);
        expect(listed).toEqual([
          {
            keyId,
            name: null,
            scope: "admin",
            owner: null,
            createdAt: "2026-12-01T00:00:00Z",
            expiresAt: null,
            lastUsedAt: expect.any(String),
            revokedAt: null,
          },
        ]);
      } finally {
        app.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});
