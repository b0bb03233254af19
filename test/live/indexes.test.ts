import { afterEach, describe, expect, it } from "vitest";
import { type Tuning, tuningWithout } from "../../src/tuning.js";
import { addDocument, buildTestApp, makeTeam, search, type TestApp, tempDir } from "../support/app.js";
import { packageReadmes } from "../support/export.js";
import { backingFile } from "../support/passage-probe.js";

const corpus = [
  {
    title: "Finance",
    content: "# Finance\n\n## Revenue\n\nJune revenue was four million.\n\n## Costs\n\nCosts rose in June.",
  },
  {
    title: "Onboarding",
    content: "## Checklist\n\nLaptop, badge, revenue dashboard access.",
    path: ["Handbook"],
  },
  {
    title: "Office",
    content: "The office phone number is 555 0100.\n\nPhone the front desk for deliveries.",
  },
  { title: "Incidents", content: "## June outage\n\nRevenue reports were late during the June outage." },
];

/** Real READMEs of installed packages, sent 20 a request through the batch route. */
async function writeReadmes(app: TestApp, apiKey: string): Promise<void> {
  const readmes = packageReadmes(200);
  for (let i = 0; i < readmes.length; i += 20) {
    const documents = readmes
      .slice(i, i + 20)
      .map((r) => ({ title: r.name, content: r.content, format: "markdown" }));
    const res = await app.request("/v1/documents/batch", {
      method: "POST",
      token: apiKey,
      json: { documents },
    });
    expect(res.status).toBe(200);
  }
}
const README_QUERIES = ["install the package", "license", "command line options parser", "stream buffer"];

describe("live team indexes", () => {
  const open: TestApp[] = [];
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
    for (const c of cleanups.splice(0)) c();
  });

  it("a restart rebuilds the index from sealed rows and answers the same hits in the same order", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const first = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(first);
    for (const doc of corpus) await addDocument(first, apiKey, doc);
    const queries = ["june revenue", "phone number", "handbook checklist", "costs"];
    const before = await Promise.all(queries.map((q) => search(first, apiKey, q)));
    first.close();

    const second = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: first.masterKey });
    open.push(second);
    const stats = (await (await second.request("/v1/stats", { token: apiKey })).json()) as {
      index: { state: string };
    };
    expect(stats.index.state).toBe("cold");
    const after = await Promise.all(queries.map((q) => search(second, apiKey, q)));
    expect(after.map((r) => r.hits)).toEqual(before.map((r) => r.hits));
    expect(before.every((r) => r.hits.length > 0)).toBe(true);
  });

  /**
   * A team whose index is ready before the package READMEs are written to it in batches, each applied as it
   * commits. Room enough between documents that every write lands in rowid order: no rebuild swaps the index
   * out from under the test (that path is merged whole after its load).
   */
  async function writtenInBatches(config: { mergeQuietMs: number; tuning?: Tuning }) {
    const app = await buildTestApp({ config, indexOptions: { rowidGap: 2 ** 24 } });
    open.push(app);
    const { apiKey } = await makeTeam(app);
    await search(app, apiKey, "anything");
    await writeReadmes(app, apiKey);
    const key = await app.memoria.directory.authenticate(apiKey);
    if (!key) throw new Error("the team's key did not open");
    const { passages } = await app.memoria.indexes.ready(key);
    return { app, apiKey, key, passages };
  }

  it("merges a team's index whole once its batches of writes pause, and answers as before", async () => {
    const { app, apiKey, key, passages } = await writtenInBatches({ mergeQuietMs: 3000 });
    // Written in batches past the bound: a merge is due, and waits for the writes to pause.
    expect(passages.counts().chunks).toBeGreaterThan(1000);
    expect(passages.unorderedDocuments()).toBe(0);
    expect(passages.needsWholeMerge()).toBe(true);
    const before = await Promise.all(README_QUERIES.map((q) => search(app, apiKey, q)));
    await app.memoria.indexes.settled(key.teamId);
    expect(passages.needsWholeMerge()).toBe(false);
    // Nothing left to merge: the index is one segment.
    expect(passages.wholeMergeStep()).toBe(false);
    const after = await Promise.all(README_QUERIES.map((q) => search(app, apiKey, q)));
    expect(after.map((r) => r.hits)).toEqual(before.map((r) => r.hits));
    expect(before.every((r) => r.hits.length > 0)).toBe(true);
  });

  it("leaves a team's index in FTS5's own segments with the whole-merge switch off, and answers as with it on", async () => {
    const { app, apiKey, key, passages } = await writtenInBatches({
      mergeQuietMs: 50,
      tuning: tuningWithout(["whole-merge"]),
    });
    expect(passages.needsWholeMerge()).toBe(true);
    const before = await Promise.all(README_QUERIES.map((q) => search(app, apiKey, q)));
    // Well past the quiet time a whole merge would wait for.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await app.memoria.indexes.settled(key.teamId);
    expect(passages.needsWholeMerge()).toBe(true);
    // Segments left to merge: the index was not merged whole.
    expect(passages.wholeMergeStep()).toBe(true);
    const after = await Promise.all(README_QUERIES.map((q) => search(app, apiKey, q)));
    expect(after.map((r) => r.hits)).toEqual(before.map((r) => r.hits));
  });

  it("merges an index whole after it is built from stored rows", async () => {
    const app = await buildTestApp();
    open.push(app);
    const { apiKey } = await makeTeam(app);
    await writeReadmes(app, apiKey);
    // The first search builds the index from the rows.
    expect((await search(app, apiKey, "license")).hits.length).toBeGreaterThan(0);
    const key = await app.memoria.directory.authenticate(apiKey);
    if (!key) throw new Error("the team's key did not open");
    await app.memoria.indexes.settled(key.teamId);
    const { passages } = await app.memoria.indexes.ready(key);
    expect(passages.counts().chunks).toBeGreaterThan(1000);
    expect(passages.wholeMergeStep()).toBe(false);
    expect(passages.needsWholeMerge()).toBe(false);
  });

  it("two teams in one process never share an index", async () => {
    const app = await buildTestApp();
    open.push(app);
    const a = await makeTeam(app, "A");
    const b = await makeTeam(app, "B");
    const docA = await addDocument(app, a.apiKey, {
      title: "Alpha plan",
      content: "The aardvark migration plan.",
    });
    await addDocument(app, b.apiKey, { title: "Beta plan", content: "The bumblebee migration plan." });
    expect((await search(app, a.apiKey, "aardvark")).hits.map((h) => h.documentId)).toEqual([docA.id]);
    expect((await search(app, b.apiKey, "aardvark")).hits).toEqual([]);
    expect((await search(app, a.apiKey, "bumblebee")).hits).toEqual([]);
    const plans = await search(app, b.apiKey, "migration plan");
    expect(plans.hits.every((h) => h.title === "Beta plan")).toBe(true);
    expect(plans.corpus).toEqual({ documents: 1, chunks: 1, unreadable: 0 });
    expect((await app.request(`/v1/documents/${docA.id}`, { token: b.apiKey })).status).toBe(404);
  });

  it("the index is not a file: SQLite reports no file behind any team's index", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    open.push(app);
    const { apiKey } = await makeTeam(app);
    await addDocument(app, apiKey, corpus[0] as { title: string; content: string });
    await search(app, apiKey, "revenue");
    const teamId = apiKey.split("_")[1] as string;
    const key = await app.memoria.directory.authenticate(apiKey);
    expect(key?.teamId).toBe(teamId);
    const index = (await app.memoria.indexes.ready(key as NonNullable<typeof key>)).passages;
    expect(backingFile(index)).toBe("");
  });

  it("concurrent first requests share one build", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const first = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { apiKey } = await makeTeam(first);
    for (const doc of corpus) await addDocument(first, apiKey, doc);
    first.close();
    const app = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: first.masterKey });
    open.push(app);
    const answers = await Promise.all(Array.from({ length: 8 }, () => search(app, apiKey, "june revenue")));
    expect(new Set(answers.map((a) => JSON.stringify(a.hits))).size).toBe(1);
    const stats = (await (await app.request("/v1/stats", { token: apiKey })).json()) as {
      index: { state: string; buildMs: number; appliedSeq: number };
    };
    expect(stats.index.state).toBe("ready");
    expect(stats.index.appliedSeq).toBe(corpus.length);
  });

  it("replace and delete take effect before the response returns", async () => {
    const app = await buildTestApp();
    open.push(app);
    const { apiKey } = await makeTeam(app);
    const doc = await addDocument(app, apiKey, { title: "Plan", content: "The walrus strategy." });
    expect((await search(app, apiKey, "walrus")).hits).toHaveLength(1);
    const put = await app.request(`/v1/documents/${doc.id}`, {
      method: "PUT",
      token: apiKey,
      json: { title: "Plan", content: "The narwhal strategy." },
    });
    expect(put.status).toBe(200);
    expect((await search(app, apiKey, "walrus")).hits).toEqual([]);
    expect((await search(app, apiKey, "narwhal")).hits).toHaveLength(1);
    expect((await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: apiKey })).status).toBe(
      204,
    );
    expect((await search(app, apiKey, "narwhal strategy plan")).hits).toEqual([]);
  });

  it("a write by another instance over the same database is found once the catch-up bound has passed", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    let now = Date.parse("2026-01-01T00:00:00Z");
    const clock = { now: () => new Date(now) };
    const a = await buildTestApp({ dbUrl: tmp.dbUrl, clock });
    const b = await buildTestApp({ dbUrl: tmp.dbUrl, clock, masterKey: a.masterKey });
    open.push(a, b);
    const { apiKey } = await makeTeam(a);
    await addDocument(a, apiKey, { title: "One", content: "The first okapi." });
    expect((await search(b, apiKey, "okapi")).hits).toHaveLength(1);
    const second = await addDocument(a, apiKey, { title: "Two", content: "The second okapi." });
    now += 2000;
    expect((await search(b, apiKey, "okapi")).hits).toHaveLength(2);
    await a.request(`/v1/documents/${second.id}`, { method: "DELETE", token: apiKey });
    now += 2000;
    expect((await search(b, apiKey, "okapi")).hits).toHaveLength(1);
  });
});

describe("rowid order after writes", () => {
  it("documents written after the build that found no room in rowid order are put back in order by a background rebuild", async () => {
    // A gap of 2 rowids after each document: the first document written between two others finds no room.
    let now = Date.parse("2026-01-01T00:00:00Z");
    const app = await buildTestApp({ indexOptions: { rowidGap: 2 }, clock: { now: () => new Date(now) } });
    try {
      const { apiKey, teamId } = await makeTeam(app);
      const page = "The weekend rota is on the wiki.";
      for (let i = 0; i < 20; i++) await addDocument(app, apiKey, { title: "Rota", content: page });
      const before = await search(app, apiKey, "weekend rota", 50);
      const key = await app.memoria.directory.authenticate(apiKey);
      if (!key) throw new Error("key did not authenticate");
      // Writes while a rebuild runs can land out of order again; rebuilds are spaced a minute apart.
      for (let i = 0; i < 10; i++) await addDocument(app, apiKey, { title: "Rota", content: page });
      await app.memoria.indexes.settled(teamId);
      now += 61_000;
      await addDocument(app, apiKey, { title: "Rota", content: page });
      await app.memoria.indexes.settled(teamId);
      const index = (await app.memoria.indexes.ready(key)).passages;
      expect(index.unorderedDocuments()).toBe(0);
      const after = await search(app, apiKey, "weekend rota", 50);
      expect(after.hits).toHaveLength(31);
      // Every passage ties: the answer is the tie-break alone, document id then ordinal.
      const ids = after.hits.map((h) => h.documentId);
      expect(ids).toEqual([...ids].sort());
      expect(before.hits.map((h) => h.documentId)).toEqual(before.hits.map((h) => h.documentId).sort());
    } finally {
      app.close();
    }
  });
});
