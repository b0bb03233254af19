// An index restored from its sealed snapshot holds the snapshot's copy of every row; a row altered in storage
// since (behind the change log's back) must not go on being served from that copy. Over a real libSQL file:
// build, snapshot, tamper, restart from the snapshot, reindex → the rows reported unreadable, gone from
// search and working memory, and the snapshot replaced so the next restart does not bring them back.

import { afterEach, describe, expect, it } from "vitest";
import {
  addDocument,
  buildTestApp,
  CRON_TOKEN,
  makeTeam,
  type SearchBody,
  search,
  type TestApp,
  tempDir,
} from "../support/app.js";

async function addEntry(app: TestApp, apiKey: string, title: string): Promise<string> {
  const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json: { title } });
  if (res.status !== 201) throw new Error(`entry creation answered ${res.status}`);
  return ((await res.json()) as { entry: { id: string } }).entry.id;
}

interface Reindexed {
  teamId: string;
  unreadable?: { documents: number; entries: number };
  rebuilt?: boolean;
}

async function reindex(app: TestApp, teamId: string): Promise<Reindexed | undefined> {
  const res = await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN, json: { teamId } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { teams: Reindexed[] }).teams.find((t) => t.teamId === teamId);
}

async function memoryText(app: TestApp, apiKey: string, q: string): Promise<string> {
  const res = await app.request(`/v1/memory?${new URLSearchParams({ q, budget: "2000" })}`, {
    token: apiKey,
  });
  return ((await res.json()) as { text: string }).text;
}

describe("reindex of an index restored from a snapshot", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("opens every row the snapshot stands for, reports the ones tampered with since and drops them from search", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const config = { snapshotMinChunks: 0 };
    const first = await buildTestApp({ dbUrl: tmp.dbUrl, config });
    const { apiKey, teamId } = await makeTeam(first);
    const altered = await addDocument(first, apiKey, {
      title: "Capybara",
      content: "The capybaraword ledger.",
    });
    const donor = await addDocument(first, apiKey, { title: "Tapir", content: "The tapirword ledger." });
    const kept = await addDocument(first, apiKey, { title: "Quokka", content: "The quokkaword ledger." });
    const alteredEntry = await addEntry(first, apiKey, "Pin the okapiword release");
    const donorEntry = await addEntry(first, apiKey, "Rotate the numbatword keys");
    expect((await search(first, apiKey, "capybaraword")).hits).toHaveLength(1);
    await first.memoria.indexes.snapshotsSettled();
    expect(first.memoria.indexes.snapshotCounts().written).toBe(1);
    const masterKey = first.masterKey;
    first.close();

    // Behind memoria's back: one document's chunk run and one entry replaced by another row's sealed bytes,
    // which are bound to that other row and so no longer open.
    const tamper = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey, config });
    await tamper.storage.client.execute({
      sql: "UPDATE chunks SET sealed = (SELECT sealed FROM chunks WHERE document_id = ?) WHERE document_id = ?",
      args: [donor.id, altered.id],
    });
    await tamper.storage.client.execute({
      sql: "UPDATE entries SET sealed = (SELECT sealed FROM entries WHERE id = ?) WHERE id = ?",
      args: [donorEntry, alteredEntry],
    });
    tamper.close();

    const app = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey, config });
    cleanups.push(() => app.close());
    // The restored index still serves the snapshot's copies, while the entry asked for by id does not open.
    expect((await search(app, apiKey, "capybaraword")).hits).toHaveLength(1);
    expect(app.memoria.indexes.snapshotCounts().restored).toBe(1);
    expect((await app.request(`/v1/entries/${alteredEntry}`, { token: apiKey })).status).toBe(500);

    const report = await reindex(app, teamId);
    expect(report).toMatchObject({ unreadable: { documents: 1, entries: 1 }, rebuilt: false });
    const after: SearchBody = await search(app, apiKey, "capybaraword");
    expect(after.hits).toEqual([]);
    expect(after.corpus.unreadable).toBe(1);
    expect(await memoryText(app, apiKey, "okapiword")).not.toContain("okapiword");
    // What opens stays: the donor rows and the untouched ones.
    expect((await search(app, apiKey, "tapirword")).hits.map((h) => h.documentId)).toEqual([donor.id]);
    expect((await search(app, apiKey, "quokkaword")).hits.map((h) => h.documentId)).toEqual([kept.id]);
    expect(await memoryText(app, apiKey, "numbatword")).toContain("numbatword");
    // A second ping has nothing new to find.
    expect(await reindex(app, teamId)).toMatchObject({ unreadable: { documents: 1, entries: 1 } });
    app.close();

    // The snapshot was replaced: the next restart restores one without the dropped rows.
    const restarted = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey, config });
    cleanups.push(() => restarted.close());
    const again = await search(restarted, apiKey, "capybaraword");
    expect(restarted.memoria.indexes.snapshotCounts().restored).toBe(1);
    expect(again.hits).toEqual([]);
    expect(again.corpus.unreadable).toBe(1);
    expect(await memoryText(restarted, apiKey, "okapiword")).not.toContain("okapiword");
  });

  it("puts back a row the snapshot left out once it opens again", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const config = { snapshotMinChunks: 0 };
    const first = await buildTestApp({ dbUrl: tmp.dbUrl, config });
    const { apiKey, teamId } = await makeTeam(first);
    const doc = await addDocument(first, apiKey, { title: "Capybara", content: "The capybaraword ledger." });
    const donor = await addDocument(first, apiKey, { title: "Tapir", content: "The tapirword ledger." });
    const original = await first.storage.client.execute({
      sql: "SELECT sealed FROM chunks WHERE document_id = ?",
      args: [doc.id],
    });
    await first.storage.client.execute({
      sql: "UPDATE chunks SET sealed = (SELECT sealed FROM chunks WHERE document_id = ?) WHERE document_id = ?",
      args: [donor.id, doc.id],
    });
    // Built from rows with the chunk altered: left out, and the snapshot says so.
    expect((await search(first, apiKey, "capybaraword")).corpus.unreadable).toBe(1);
    await first.memoria.indexes.snapshotsSettled();
    const masterKey = first.masterKey;
    first.close();

    const fix = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey, config });
    await fix.storage.client.execute({
      sql: "UPDATE chunks SET sealed = ? WHERE document_id = ?",
      args: [original.rows[0]?.sealed ?? null, doc.id],
    });
    fix.close();

    const app = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey, config });
    cleanups.push(() => app.close());
    expect((await search(app, apiKey, "capybaraword")).hits).toEqual([]);
    expect(await reindex(app, teamId)).toMatchObject({ unreadable: { documents: 0, entries: 0 } });
    expect((await search(app, apiKey, "capybaraword")).hits.map((h) => h.documentId)).toEqual([doc.id]);
  });
});
