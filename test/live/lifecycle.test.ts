// The life of one team's live indexes through LiveIndexes itself: a team dropped while its requests wait in
// the queue gets no index, a failure inside an index discards both and the next read rebuilds, a repack swaps
// the passage index in and keeps the entry index, and the log says counts, never content.

import { afterEach, describe, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import { createLogger } from "../../src/logger.js";
import type { TeamKey } from "../../src/seal/team-key.js";
import { ADMIN_TOKEN, addDocument, buildTestApp, makeTeam, type TestApp, tempDir } from "../support/app.js";

async function teamKey(app: TestApp, apiKey: string): Promise<TeamKey> {
  const key = await app.memoria.directory.authenticate(apiKey);
  if (!key) throw new Error("the API key did not authenticate");
  return key;
}

/** What a promise settled to: "ok", or the DomainError code it failed with. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return isDomainError(error, "not_found") ? "not_found" : String(error);
  }
}

describe("a team dropped or deleted around its requests", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("answers not_found to every request that waited in the queue when it was dropped, and holds no index", async () => {
    const app = await buildTestApp();
    cleanups.push(() => app.close());
    const { apiKey, teamId } = await makeTeam(app);
    await addDocument(app, apiKey, { title: "Plan", content: "The okapi migration." });
    const key = await teamKey(app, apiKey);
    const { indexes } = app.memoria;

    // Both are queued before either runs; the drop comes first.
    const waiting = [indexes.ready(key), indexes.reconcile(key)];
    indexes.drop(teamId);
    expect(await Promise.all(waiting.map(outcome))).toEqual(["not_found", "not_found"]);
    expect(indexes.status(teamId)).toEqual({
      state: "cold",
      appliedSeq: null,
      builtAt: null,
      buildMs: null,
      source: null,
      loadMs: null,
      memoryBytes: null,
    });
    expect(indexes.loadedTeams()).toEqual([]);
  });

  it("builds no index for a team deleted before its first read, however the read got its key", async () => {
    const app = await buildTestApp();
    cleanups.push(() => app.close());
    const { apiKey, teamId } = await makeTeam(app);
    await addDocument(app, apiKey, { title: "Plan", content: "The okapi migration." });
    const key = await teamKey(app, apiKey);
    const deleted = await app.request(`/v1/teams/${teamId}`, { method: "DELETE", token: ADMIN_TOKEN });
    expect(deleted.status).toBe(204);

    expect(await outcome(app.memoria.indexes.ready(key))).toBe("not_found");
    expect(await outcome(app.memoria.indexes.reconcile(key))).toBe("not_found");
    expect(app.memoria.indexes.status(teamId).state).toBe("cold");
    expect(app.memoria.indexes.loadedTeams()).toEqual([]);
  });
});

describe("a failure inside an index", () => {
  it("discards both of the team's indexes, and the next read rebuilds them with every write", async () => {
    const tmp = tempDir();
    const a = await buildTestApp({ dbUrl: tmp.dbUrl });
    const b = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: a.masterKey });
    try {
      const { apiKey, teamId } = await makeTeam(a);
      await addDocument(a, apiKey, { title: "One", content: "The first okapi." });
      const key = await teamKey(b, apiKey);
      const broken = await b.memoria.indexes.ready(key);
      // An index that fails on its next change: closed under the registry's feet.
      broken.passages.close();
      await addDocument(a, apiKey, { title: "Two", content: "The second okapi." });

      await expect(b.memoria.indexes.committed(key)).rejects.toThrow();
      expect(b.memoria.indexes.status(teamId).state).toBe("cold");
      expect(broken.entries.isOpen()).toBe(false);

      const rebuilt = await b.memoria.indexes.ready(key);
      expect(rebuilt.passages).not.toBe(broken.passages);
      expect(rebuilt.passages.isOpen()).toBe(true);
      expect(rebuilt.passages.counts()).toEqual({ documents: 2, chunks: 2 });
      expect(b.memoria.indexes.status(teamId)).toMatchObject({ state: "ready", appliedSeq: 2 });
    } finally {
      b.close();
      a.close();
      tmp.cleanup();
    }
  });
});

describe("a repack", () => {
  it("swaps in a fresh passage index, keeps the entry index, and logs counts, never content", async () => {
    const lines: string[] = [];
    const app = await buildTestApp({
      // A gap of 2 rowids: a document written between two others finds no room in rowid order.
      indexOptions: { rowidGap: 2 },
      logger: createLogger("debug", (line) => lines.push(line)),
    });
    try {
      const { apiKey, teamId } = await makeTeam(app);
      const page = "The weekend rota is on the wiki.";
      for (let i = 0; i < 20; i++) await addDocument(app, apiKey, { title: "Quokka", content: page });
      const key = await teamKey(app, apiKey);
      const before = await app.memoria.indexes.ready(key);
      // Random ids: all ten landing after every document before them has odds of about 1 in 10^13.
      for (let i = 0; i < 10; i++) await addDocument(app, apiKey, { title: "Quokka", content: page });
      await app.memoria.indexes.settled(teamId);

      const after = await app.memoria.indexes.ready(key);
      expect(after.passages).not.toBe(before.passages);
      expect(before.passages.isOpen()).toBe(false);
      expect(after.entries).toBe(before.entries);
      expect(after.entries.isOpen()).toBe(true);
      expect(after.passages.counts()).toEqual({ documents: 30, chunks: 30 });

      const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged.find((l) => l.message === "index built")).toMatchObject({
        teamId,
        documents: 20,
        chunks: 20,
        entries: 0,
      });
      expect(logged.find((l) => l.message === "index repacked")).toMatchObject({ teamId });
      for (const line of lines) expect(line).not.toMatch(/quokka|weekend|rota|wiki/i);
    } finally {
      app.close();
    }
  });

  it("brings a team back in rowid order after its last write, though no write follows the interval", async () => {
    const app = await buildTestApp({ indexOptions: { rowidGap: 2 }, config: { repackIntervalMs: 300 } });
    try {
      const { apiKey, teamId } = await makeTeam(app);
      const page = "The weekend rota is on the wiki.";
      for (let i = 0; i < 20; i++) await addDocument(app, apiKey, { title: "Quokka", content: page });
      const key = await teamKey(app, apiKey);
      await app.memoria.indexes.ready(key);
      // The first write out of order starts a rebuild; the ones after it come while it runs or within the
      // interval after it, and are left out of order by it.
      for (let i = 0; i < 10; i++) await addDocument(app, apiKey, { title: "Quokka", content: page });
      await app.memoria.indexes.settled(teamId);
      for (let i = 0; i < 10; i++) await addDocument(app, apiKey, { title: "Quokka", content: page });
      expect((await app.memoria.indexes.ready(key)).passages.unorderedDocuments()).toBeGreaterThan(0);
      // No more writes: the rebuild owed starts once the interval is up.
      let unordered = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 200 && unordered > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await app.memoria.indexes.settled(teamId);
        unordered = (await app.memoria.indexes.ready(key)).passages.unorderedDocuments();
      }
      expect(unordered).toBe(0);
      expect((await app.memoria.indexes.ready(key)).passages.counts()).toEqual({ documents: 40, chunks: 40 });
    } finally {
      app.close();
    }
  });
});
