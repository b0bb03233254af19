// POST /v1/reindex: every loaded team (or the named one) brought level with storage, a stale index found and
// rebuilt, concurrent pings sharing one run, and the cron token's guard.

import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { reindexAnswer } from "../../src/routes/reindex.js";
import {
  ADMIN_TOKEN,
  buildTestApp,
  CRON_TOKEN,
  makeTeam,
  search,
  type TestApp,
  tempDir,
} from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

const ping = (app: TestApp, body?: unknown, token = CRON_TOKEN) =>
  app.request("/v1/reindex", {
    method: "POST",
    token,
    ...(body === undefined ? {} : { json: body }),
  });

async function addEntry(app: TestApp, apiKey: string, title: string): Promise<string> {
  const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json: { title } });
  return ((await res.json()) as { entry: { id: string } }).entry.id;
}

async function memoryText(app: TestApp, apiKey: string): Promise<string> {
  const res = await app.request("/v1/memory", { token: apiKey });
  return ((await res.json()) as { text: string }).text;
}

describe("POST /v1/reindex", () => {
  it("answers 401 without the cron token, and accepts the cron token or the admin token", () =>
    withApp(async (app) => {
      await expectError(await app.request("/v1/reindex", { method: "POST" }), 401, "unauthorized");
      await expectError(await ping(app, undefined, "not-the-cron-token-at-all"), 401, "unauthorized");
      await expectOk(await ping(app), 200, reindexAnswer);
      await expectOk(await ping(app, undefined, ADMIN_TOKEN), 200, reindexAnswer);
    }));

  it("reports every team loaded on this instance, and only those, level with storage", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const idle = await makeTeam(app, "Idle");
      await addEntry(app, a.apiKey, "Alpha decision");
      await app.request("/v1/documents", {
        method: "POST",
        token: b.apiKey,
        json: { title: "Runbook", content: "# Runbook\n\nRestart the worker." },
      });
      await memoryText(app, a.apiKey);
      await search(app, b.apiKey, "worker");
      const answer = await expectOk(await ping(app), 200, reindexAnswer);
      const ids = answer.teams.map((t) => t.teamId).sort();
      expect(ids).toEqual([a.teamId, b.teamId].sort());
      expect(ids).not.toContain(idle.teamId);
      const teamA = answer.teams.find((t) => t.teamId === a.teamId);
      expect(teamA).toMatchObject({ entries: 1, documents: 0, rebuilt: false, synced: 0 });
      expect(teamA?.appliedSeq).toBe(teamA?.storedSeq);
      expect(answer.teams.find((t) => t.teamId === b.teamId)).toMatchObject({ documents: 1, chunks: 1 });
    }));

  it("reindexes a named team even when it is not loaded here, and 404s an unknown one", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await addEntry(app, team.apiKey, "Written before any read");
      const answer = await expectOk(await ping(app, { teamId: team.teamId }), 200, reindexAnswer);
      expect(answer.teams).toEqual([expect.objectContaining({ teamId: team.teamId, entries: 1 })]);
      await expectError(await ping(app, { teamId: "tzzzzzzzzzzzzzzzz" }), 404, "not_found");
    }));

  it("refuses a body that is not the optional {teamId}", () =>
    withApp(async (app) => {
      await expectError(
        await app.request("/v1/reindex", {
          method: "POST",
          token: CRON_TOKEN,
          headers: { "content-type": "application/json" },
          body: "{not json",
        }),
        400,
        "invalid_request",
      );
      await expectError(await ping(app, { teamId: 5 }), 400, "invalid_request");
      // Not the form of a team id: refused as the Worker in front refuses it, not looked up.
      await expectError(await ping(app, { teamId: "x" }), 400, "invalid_request");
      const unknown = await expectError(
        await ping(app, { "a private passage": "x" }),
        400,
        "invalid_request",
      );
      expect(unknown.error.message).not.toContain("private passage");
    }));

  it("detects an index made stale behind the change log's back and rebuilds it", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await addEntry(app, team.apiKey, "Keep the retry budget");
      const gone = await addEntry(app, team.apiKey, "Removed behind its back");
      expect(await memoryText(app, team.apiKey)).toContain("Removed behind its back");
      // A row deleted without its change record (a restore, a manual fix): no catch-up can see it.
      await app.storage.client.execute({ sql: "DELETE FROM entries WHERE id = ?", args: [gone] });
      expect(await memoryText(app, team.apiKey)).toContain("Removed behind its back");
      const answer = await expectOk(await ping(app), 200, reindexAnswer);
      expect(answer.teams[0]).toMatchObject({ teamId: team.teamId, entries: 1, rebuilt: true });
      const text = await memoryText(app, team.apiKey);
      expect(text).not.toContain("Removed behind its back");
      expect(text).toContain("Keep the retry budget");
      // Level now: the next ping finds nothing to do.
      expect((await expectOk(await ping(app), 200, reindexAnswer)).teams[0]?.rebuilt).toBe(false);
    }));

  it("catches up on another instance's writes, with no rebuild", async () => {
    const tmp = tempDir();
    const a = await buildTestApp({ dbUrl: tmp.dbUrl, config: { catchupMs: 60_000 } });
    const b = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: a.masterKey, config: { catchupMs: 60_000 } });
    try {
      const team = await makeTeam(a);
      await addEntry(a, team.apiKey, "First");
      await memoryText(a, team.apiKey);
      await addEntry(b, team.apiKey, "Written on the other instance");
      // A's view is fresh for a minute, so only the ping brings it level.
      expect(await memoryText(a, team.apiKey)).not.toContain("Written on the other instance");
      const answer = await expectOk(await ping(a), 200, reindexAnswer);
      expect(answer.teams[0]).toMatchObject({ entries: 2, rebuilt: false });
      expect(await memoryText(a, team.apiKey)).toContain("Written on the other instance");
    } finally {
      a.close();
      b.close();
      tmp.cleanup();
    }
  });

  it("does the work once when pings arrive together", async () => {
    const lines: string[] = [];
    const app = await buildTestApp({ logger: createLogger("info", (line) => lines.push(line)) });
    try {
      const team = await makeTeam(app);
      await addEntry(app, team.apiKey, "Kept");
      const gone = await addEntry(app, team.apiKey, "Removed behind its back");
      await memoryText(app, team.apiKey);
      await app.storage.client.execute({ sql: "DELETE FROM entries WHERE id = ?", args: [gone] });
      const answers = await Promise.all([ping(app), ping(app), ping(app, { teamId: team.teamId })]);
      for (const res of answers) {
        const answer = await expectOk(res, 200, reindexAnswer);
        expect(answer.teams[0]).toMatchObject({ teamId: team.teamId, entries: 1, rebuilt: true });
      }
      expect(lines.filter((line) => line.includes("index disagreed with storage")).length).toBe(1);
    } finally {
      app.close();
    }
  });

  it("reports the rows of a team that did not open, and still reindexes the others", () =>
    withApp(async (app) => {
      const broken = await makeTeam(app, "Broken");
      const fine = await makeTeam(app, "Fine");
      await addEntry(app, broken.apiKey, "Sealed for the broken team");
      await addEntry(app, fine.apiKey, "Sealed for the fine team");
      await memoryText(app, broken.apiKey);
      await memoryText(app, fine.apiKey);
      // A sealed row that no longer opens (tampering, a wrong restore), and a row gone behind the log's back
      // so the rebuild that must read it happens.
      await app.storage.client.execute({
        sql: "UPDATE entries SET sealed = x'00' WHERE team_id = ?",
        args: [broken.teamId],
      });
      await app.storage.client.execute({
        sql: "INSERT INTO entries (team_id, id, created_at, sealed) VALUES (?, 'e-extra', '2026-01-01T00:00:00.000Z', x'00')",
        args: [broken.teamId],
      });
      const answer = await expectOk(await ping(app), 200, reindexAnswer);
      // Both rows are left out, and said to be: the rebuild reads the row gone behind the log's back.
      const report = answer.teams.find((t) => t.teamId === broken.teamId);
      expect(report).toMatchObject({ entries: 0, unreadable: { documents: 0, entries: 2 }, rebuilt: true });
      expect(report?.error).toBeUndefined();
      expect(answer.teams.find((t) => t.teamId === fine.teamId)).toMatchObject({
        entries: 1,
        unreadable: { documents: 0, entries: 0 },
        rebuilt: false,
      });
    }));

  it("reports a loaded team whose key no longer opens, and still reindexes the others", () =>
    withApp(async (app) => {
      const broken = await makeTeam(app, "Broken");
      const fine = await makeTeam(app, "Fine");
      await addEntry(app, broken.apiKey, "Sealed for the broken team");
      await addEntry(app, fine.apiKey, "Sealed for the fine team");
      await memoryText(app, broken.apiKey);
      await memoryText(app, fine.apiKey);
      // The broken team's wrapped key replaced by the other team's: bound to another team, it cannot open.
      await app.storage.client.execute({
        sql: "UPDATE teams SET wrapped_key = (SELECT wrapped_key FROM teams WHERE id = ?) WHERE id = ?",
        args: [fine.teamId, broken.teamId],
      });
      const answer = await expectOk(await ping(app), 200, reindexAnswer);
      expect(answer.teams.find((t) => t.teamId === broken.teamId)).toMatchObject({
        synced: 0,
        error: "unreadable",
      });
      expect(answer.teams.find((t) => t.teamId === fine.teamId)).toMatchObject({
        entries: 1,
        rebuilt: false,
      });
    }));

  it("never gives a team deleted meanwhile an index again", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await addEntry(app, team.apiKey, "About to go");
      const key = await app.memoria.directory.teamKey(team.teamId);
      if (!key) throw new Error("no key");
      await app.request(`/v1/teams/${team.teamId}`, { method: "DELETE", token: ADMIN_TOKEN });
      await expect(app.memoria.indexes.reconcile(key)).rejects.toThrow(/No team/);
      // Nor does a read that raced the delete with the key it had already opened.
      await expect(app.memoria.indexes.ready(key)).rejects.toThrow(/No team/);
      expect(app.memoria.indexes.loadedTeams()).not.toContain(team.teamId);
      await expectError(await ping(app, { teamId: team.teamId }), 404, "not_found");
    }));
});
