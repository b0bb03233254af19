// The change log is bounded: the reindex ping deletes what neither the stored snapshot nor the catch-up
// window still needs, and what is left keeps every instance correct — one that lagged past the compacted
// changes rebuilds, and a restore from the snapshot replays exactly what came after it. Over a real libSQL
// file shared by two app instances.

import { afterEach, describe, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/logger.js";
import {
  addDocument,
  buildTestApp,
  CRON_TOKEN,
  makeTeam,
  search,
  type TestApp,
  tempDir,
} from "../support/app.js";

async function addEntry(app: TestApp, apiKey: string, title: string): Promise<void> {
  const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json: { title } });
  if (res.status !== 201) throw new Error(`entry creation answered ${res.status}`);
}

async function ping(app: TestApp): Promise<void> {
  const res = await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN, json: {} });
  expect(res.status).toBe(200);
}

async function changesOnRecord(app: TestApp, teamId: string): Promise<number> {
  return app.storage.changes.count(teamId);
}

/** The titles working memory finds for `q`, by their distinct word. */
async function memoryText(app: TestApp, apiKey: string, q: string): Promise<string> {
  const res = await app.request(`/v1/memory?${new URLSearchParams({ q, budget: "20000" })}`, {
    token: apiKey,
  });
  return ((await res.json()) as { text: string }).text;
}

function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { logger: createLogger("debug", (line) => lines.push(JSON.parse(line))), lines };
}

describe("change-log compaction", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("keeps a long-lived team's change log bounded across pings, and every write still found", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const keep = 20;
    const app = await buildTestApp({ dbUrl: tmp.dbUrl, config: { changeLogKeep: keep } });
    cleanups.push(() => app.close());
    const { apiKey, teamId } = await makeTeam(app);
    await search(app, apiKey, "anything");
    const most: number[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 40; i++) await addEntry(app, apiKey, `Entry ${round}-${i} kiwiword${round}x${i}`);
      await ping(app);
      most.push(await changesOnRecord(app, teamId));
    }
    // 160 writes, 160 changes appended; after every ping only the window is left.
    expect(await app.storage.changes.latestSeq(teamId)).toBe(160);
    expect(most).toEqual([keep, keep, keep, keep]);
    expect(await memoryText(app, apiKey, "kiwiword0x0")).toContain("kiwiword0x0");
    expect(await memoryText(app, apiKey, "kiwiword3x39")).toContain("kiwiword3x39");
    // Seqs go on from the latest, never reused: the next write is 161.
    await addEntry(app, apiKey, "After compaction kiwiwordlast");
    expect(await app.storage.changes.latestSeq(teamId)).toBe(161);
  });

  it("an instance whose index lagged past the compacted changes rebuilds and answers what storage holds", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const writer = await buildTestApp({ dbUrl: tmp.dbUrl, config: { changeLogKeep: 5 } });
    cleanups.push(() => writer.close());
    const { apiKey, teamId } = await makeTeam(writer);
    const early = await addDocument(writer, apiKey, { title: "Early", content: "The wallabyword ledger." });
    const { logger, lines } = recordingLogger();
    const lagging = await buildTestApp({
      dbUrl: tmp.dbUrl,
      masterKey: writer.masterKey,
      logger,
      config: { catchupMs: 0 },
    });
    cleanups.push(() => lagging.close());
    expect((await search(lagging, apiKey, "wallabyword")).hits).toHaveLength(1);
    const behind = lagging.memoria.indexes.status(teamId).appliedSeq ?? 0;

    // While the lagging instance reads nothing: a delete, new documents, entries; then a ping compacts.
    await writer.request(`/v1/documents/${early.id}`, { method: "DELETE", token: apiKey });
    for (let i = 0; i < 12; i++)
      await addDocument(writer, apiKey, { title: `Doc ${i}`, content: `The emuword${i}.` });
    await search(writer, apiKey, "emuword0");
    await ping(writer);
    const oldest = (await writer.storage.changes.after(teamId, 0, 1))[0]?.seq ?? 0;
    expect(oldest).toBeGreaterThan(behind + 1);

    const after = await search(lagging, apiKey, "wallabyword");
    expect(after.hits).toEqual([]);
    expect((await search(lagging, apiKey, "emuword0")).hits).toHaveLength(1);
    expect((await search(lagging, apiKey, "emuword11")).hits).toHaveLength(1);
    expect(after.corpus.documents).toBe(12);
    expect(lines.some((l) => l.message === "change log compacted past the index; rebuilding")).toBe(true);
  });

  it("restores from a snapshot after compaction and replays exactly the changes after it", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const first = await buildTestApp({
      dbUrl: tmp.dbUrl,
      config: { snapshotMinChunks: 0, changeLogKeep: 3 },
    });
    const { apiKey, teamId } = await makeTeam(first);
    for (let i = 0; i < 5; i++)
      await addDocument(first, apiKey, { title: `Doc ${i}`, content: `The dingoword${i}.` });
    await search(first, apiKey, "dingoword0");
    await first.memoria.indexes.snapshotsSettled();
    const snapshotSeq = (await first.storage.snapshots.head(teamId))?.seq ?? 0;
    expect(snapshotSeq).toBe(5);
    const masterKey = first.masterKey;
    first.close();

    // Another instance writes past the snapshot and compacts: the snapshot's changes after it are kept.
    const second = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey, config: { changeLogKeep: 3 } });
    for (let i = 0; i < 10; i++) await addEntry(second, apiKey, `Entry ${i} possumword${i}`);
    const compacted = await second.memoria.indexes.compactChangeLog(teamId);
    expect(compacted.through).toBe(snapshotSeq);
    expect(await changesOnRecord(second, teamId)).toBe(10);
    second.close();

    const app = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey, config: { snapshotMinChunks: 0 } });
    cleanups.push(() => app.close());
    expect((await search(app, apiKey, "dingoword4")).hits).toHaveLength(1);
    expect(app.memoria.indexes.snapshotCounts()).toMatchObject({ restored: 1, ignored: 0 });
    for (const i of [0, 9])
      expect(await memoryText(app, apiKey, `possumword${i}`)).toContain(`possumword${i}`);
  });
});
