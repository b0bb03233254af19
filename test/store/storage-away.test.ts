// Storage that goes away under a serving instance, on a real sqld (the server Turso runs): killed during a
// batch, stalled mid-request (SIGSTOP), restarted over the same data. Writes and reads that need storage answer
// 503 `unavailable` with Retry-After, never 500, and never wait past MEMORIA_STORAGE_TIMEOUT_MS; a loaded
// team's searches and working memory keep answering from memory; `/readyz` says 503; and once storage is back,
// every document acknowledged before is there.

import { afterEach, describe, expect } from "vitest";
import { isStorageAway } from "../../src/store/guarded-client.js";
import { addDocument, buildTestApp, makeTeam, search, type TestApp, tempDir } from "../support/app.js";
import { makeKey } from "../support/keys.js";
import { needs, outside } from "../support/outside.js";
import { type Sqld, startSqld } from "../support/sqld.js";

/** The storage timeout the tests run with: short, so a stalled storage costs a test a second, not ten. */
const TIMEOUT_MS = 1000;

const note = (i: number) => ({
  title: `Note ${i}`,
  content: `# Note ${i}\n\nThe walrusword${i} quarry ledger, written as note number ${i}.`,
});

describe("storage that goes away", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function serving(): Promise<{ sqld: Sqld; dir: string; app: TestApp; apiKey: string }> {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const sqld = await startSqld(tmp.dir);
    cleanups.push(() => sqld.stop());
    const app = await buildTestApp({
      dbUrl: sqld.url,
      db: { timeoutMs: TIMEOUT_MS },
      // A key checked and an index caught up are taken as current this long: short, so the tests see both
      // asked of storage again while it is away.
      config: { catchupMs: 100 },
    });
    cleanups.push(() => app.close());
    const { apiKey } = await makeTeam(app);
    return { sqld, dir: tmp.dir, app, apiKey };
  }

  /** What a write answers: its status, its code and its Retry-After. */
  async function write(app: TestApp, apiKey: string, i: number) {
    const started = performance.now();
    const res = await app.request("/v1/documents", { method: "POST", token: apiKey, json: note(i) });
    const body = (await res.json()) as { error?: { code: string } };
    return {
      status: res.status,
      code: body.error?.code ?? null,
      retryAfter: res.headers.get("retry-after"),
      ms: performance.now() - started,
    };
  }

  /** The notes a search finds, by number. */
  async function found(app: TestApp, apiKey: string, numbers: readonly number[]): Promise<number[]> {
    const hits: number[] = [];
    for (const i of numbers) {
      const answer = await search(app, apiKey, `walrusword${i}`);
      if (answer.hits.some((hit) => hit.title === `Note ${i}`)) hits.push(i);
    }
    return hits;
  }

  needs(outside.sqld).it(
    "killed: writes answer 503 with Retry-After, a loaded team keeps searching, and after a restart nothing acknowledged is lost",
    async () => {
      const { sqld, dir, app, apiKey } = await serving();
      const acknowledged: number[] = [];
      for (let i = 0; i < 5; i++) {
        await addDocument(app, apiKey, note(i));
        acknowledged.push(i);
      }
      expect(await found(app, apiKey, acknowledged)).toEqual(acknowledged);

      // Killed while a batch is on its way: the batch is answered whole (stored) or as unavailable, never 500.
      const batch = app.request("/v1/documents/batch", {
        method: "POST",
        token: apiKey,
        json: { documents: Array.from({ length: 200 }, (_, j) => note(100 + j)) },
      });
      sqld.signal("SIGKILL");
      await sqld.exited;
      const batchAnswer = await batch;
      expect([200, 503]).toContain(batchAnswer.status);
      if (batchAnswer.status === 200) {
        const { results } = (await batchAnswer.json()) as {
          results: { document?: unknown; error?: { code: string } }[];
        };
        results.forEach((result, j) => {
          if (result.document) acknowledged.push(100 + j);
          else expect(result.error?.code).toBe("unavailable");
        });
      }

      const refused = await write(app, apiKey, 5);
      expect(refused).toMatchObject({ status: 503, code: "unavailable", retryAfter: "5" });
      await new Promise((resolve) => setTimeout(resolve, 150));
      // Past catchupMs: the key and the index would be checked with storage; they answer from memory instead.
      expect(await found(app, apiKey, [0, 4])).toEqual([0, 4]);
      const memory = await app.request("/v1/memory?q=ledger", { token: apiKey });
      expect(memory.status).toBe(200);
      expect((await app.request("/readyz")).status).toBe(503);

      const restarted = await startSqld(dir, { port: sqld.port });
      cleanups.push(() => restarted.stop());
      expect((await app.request("/readyz")).status).toBe(200);
      expect(await write(app, apiKey, 6)).toMatchObject({ status: 201 });
      acknowledged.push(6);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await found(app, apiKey, acknowledged)).toEqual(acknowledged);
      // A fresh instance over the same storage finds every one of them too: they are in storage, not only here.
      const fresh = await buildTestApp({ dbUrl: restarted.url, masterKey: app.masterKey });
      cleanups.push(() => fresh.close());
      expect(await found(fresh, apiKey, acknowledged)).toEqual(acknowledged);
    },
    120_000,
  );

  needs(outside.sqld).it(
    "stalled: a write answers 503 within the storage timeout, searches answer, and once it goes on the write is whole or absent",
    async () => {
      const { sqld, app, apiKey } = await serving();
      await addDocument(app, apiKey, note(0));
      expect(await found(app, apiKey, [0])).toEqual([0]);

      await sqld.stall();
      const stalled = await write(app, apiKey, 1);
      expect(stalled).toMatchObject({ status: 503, code: "unavailable", retryAfter: "5" });
      // Bounded by the timeout (with room for a loaded machine), not by how long storage stays stopped.
      expect(stalled.ms).toBeLessThan(TIMEOUT_MS * 5);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await found(app, apiKey, [0])).toEqual([0]);

      sqld.signal("SIGCONT");
      expect(await write(app, apiKey, 2)).toMatchObject({ status: 201 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      // The stalled write may have been stored once sqld went on (storage never said): whole if so.
      const after = await found(app, apiKey, [0, 1, 2]);
      expect(after.filter((i) => i !== 1)).toEqual([0, 2]);
      const listed = await app.request("/v1/documents?limit=100", { token: apiKey });
      const { documents } = (await listed.json()) as { documents: { title: string; chunks: number }[] };
      for (const doc of documents) expect(doc.chunks).toBeGreaterThan(0);
    },
    120_000,
  );
  needs(outside.sqld).it(
    "readiness trusts an answer storage gave under a second ago, and asks again once a call found storage away",
    async () => {
      const { sqld, app, apiKey } = await serving();
      await addDocument(app, apiKey, note(0));
      await sqld.stall();
      cleanups.push(() => sqld.signal("SIGCONT"));
      // Asking would time out: a 200 now is the answer the write just had, taken without a round trip.
      expect((await app.request("/readyz")).status).toBe(200);
      expect(await write(app, apiKey, 1)).toMatchObject({ status: 503, code: "unavailable" });
      // Not the write's answer, which found storage away: asked again, and stalled past the timeout.
      expect((await app.request("/readyz")).status).toBe(503);
      sqld.signal("SIGCONT");
      expect((await app.request("/readyz")).status).toBe(200);
    },
    60_000,
  );

  needs(outside.sqld).it(
    "away: a key that expires meanwhile stops working, while a live key of the team keeps searching",
    async () => {
      const { sqld, app, apiKey } = await serving();
      await addDocument(app, apiKey, note(1));
      // Far enough ahead for the two searches below to be answered first on a busy machine.
      const expiresAt = Date.now() + 8000;
      const expiring = await makeKey(app, apiKey, "read", { expiresAt: new Date(expiresAt).toISOString() });
      const lasting = await makeKey(app, apiKey, "read");
      expect(await found(app, expiring.apiKey, [1])).toEqual([1]);
      expect(await found(app, lasting.apiKey, [1])).toEqual([1]);

      sqld.signal("SIGKILL");
      await sqld.exited;
      // Past the expiry, and long past catchupMs: each key is answered from what storage last said of it.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt + 200 - Date.now())));
      expect(await found(app, lasting.apiKey, [1])).toEqual([1]);
      const refused = await app.request("/v1/search?q=walrusword1", { token: expiring.apiKey });
      expect(refused.status).toBe(401);
    },
    60_000,
  );
});

describe("what counts as storage being away", () => {
  needs(outside.sqld).it("a refused connection is; an SQL error is not", async () => {
    const tmp = tempDir();
    const sqld = await startSqld(tmp.dir);
    try {
      const app = await buildTestApp({ dbUrl: sqld.url, db: { timeoutMs: TIMEOUT_MS } });
      try {
        const bad = await app.storage.client.execute("SELECT * FROM no_such_table").catch((e: unknown) => e);
        expect(isStorageAway(bad)).toBe(false);
        sqld.signal("SIGKILL");
        await sqld.exited;
        const away = await app.storage.client.execute("SELECT 1").catch((e: unknown) => e);
        expect(away).toMatchObject({ code: "unavailable", retryAfterSeconds: 5 });
      } finally {
        app.close();
      }
    } finally {
      await sqld.stop();
      tmp.cleanup();
    }
  });
});
