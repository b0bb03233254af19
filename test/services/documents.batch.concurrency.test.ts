// A batch racing single writes and other batches of the same externalIds, in one instance (the write
// queues) and across two instances over one database (the version checks and the unique externalId): every
// externalId ends as one document, its versions distinct, the stored content the highest version's.

import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, makeTeam, search, type TestApp, tempDir } from "../support/app.js";

interface Written {
  id: string;
  version: number;
  content: string;
}

async function postOne(app: TestApp, apiKey: string, externalId: string, content: string): Promise<Written> {
  const res = await app.request("/v1/documents", {
    method: "POST",
    token: apiKey,
    json: { title: "Note", content, externalId },
  });
  expect([200, 201]).toContain(res.status);
  const { document } = (await res.json()) as { document: { id: string; version: number } };
  return { id: document.id, version: document.version, content };
}

async function postBatch(
  app: TestApp,
  apiKey: string,
  items: { externalId: string; content: string }[],
): Promise<Written[]> {
  const res = await app.request("/v1/documents/batch", {
    method: "POST",
    token: apiKey,
    json: { documents: items.map((item) => ({ title: "Note", ...item })) },
  });
  expect(res.status).toBe(200);
  const { results } = (await res.json()) as { results: { document?: { id: string; version: number } }[] };
  return results.map((r, i) => {
    if (!r.document) throw new Error(`item ${i} failed: ${JSON.stringify(r)}`);
    return { id: r.document.id, version: r.document.version, content: items[i]?.content ?? "" };
  });
}

/** Every write of one externalId went to one document, with versions 1..n, and the last one is stored. */
async function expectApplied(app: TestApp, apiKey: string, writes: Written[]): Promise<void> {
  expect(new Set(writes.map((w) => w.id)).size).toBe(1);
  const versions = writes.map((w) => w.version).sort((a, b) => a - b);
  expect(versions).toEqual(writes.map((_, i) => i + 1));
  const last = writes.find((w) => w.version === writes.length);
  const res = await app.request(`/v1/documents/${writes[0]?.id}`, { token: apiKey });
  const { document } = (await res.json()) as { document: { content: string; version: number } };
  expect(document.version).toBe(writes.length);
  expect(document.content).toBe(last?.content);
}

const ids = Array.from({ length: 12 }, (_, i) => `file:race/${i}.md`);

describe("a batch racing other writes of the same externalIds", () => {
  const open: TestApp[] = [];
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
    for (const c of cleanups.splice(0)) c();
  });

  it("in one instance: single POSTs and two batches (in opposite orders) apply one after another", async () => {
    const app = await buildTestApp();
    open.push(app);
    const { apiKey } = await makeTeam(app);
    await search(app, apiKey, "anything");
    const forward = ids.map((externalId, i) => ({ externalId, content: `forward ${i}` }));
    const backward = [...ids].reverse().map((externalId, i) => ({ externalId, content: `backward ${i}` }));
    const [a, b, ...singles] = await Promise.all([
      postBatch(app, apiKey, forward),
      postBatch(app, apiKey, backward),
      ...ids.map((externalId, i) => postOne(app, apiKey, externalId, `single ${i}`)),
    ]);
    for (const [i, externalId] of ids.entries()) {
      const writes = [
        a?.[i] as Written,
        b?.[ids.length - 1 - i] as Written,
        singles[i] as unknown as Written,
      ];
      expect(writes.every(Boolean), externalId).toBe(true);
      await expectApplied(app, apiKey, writes);
    }
    expect((await search(app, apiKey, "forward backward single")).corpus.documents).toBe(ids.length);
  });

  it("across two instances over one database: a batch losing inserts to the other's POSTs replaces them", async () => {
    const { dbUrl, cleanup } = tempDir();
    cleanups.push(cleanup);
    const one = await buildTestApp({ dbUrl });
    open.push(one);
    const other = await buildTestApp({ dbUrl, masterKey: one.masterKey });
    open.push(other);
    const { apiKey } = await makeTeam(one);
    // The batch reads its externalIds, then waits here until the other instance has stored them: its
    // inserts then lose to the unique externalId, and every item must be written again as a replacement.
    const rows = one.storage.documents;
    const read = rows.findByExternalRefs.bind(rows);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    rows.findByExternalRefs = async (...args) => {
      const found = await read(...args);
      reads++;
      await gate;
      return found;
    };
    const batching = postBatch(
      one,
      apiKey,
      ids.map((externalId, i) => ({ externalId, content: `batched ${i}` })),
    );
    while (reads === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const singles = await Promise.all(
      ids.map((externalId, i) => postOne(other, apiKey, externalId, `single ${i}`)),
    );
    expect(singles.every((w) => w.version === 1)).toBe(true);
    release();
    const batched = await batching;
    for (const i of ids.keys()) {
      await expectApplied(one, apiKey, [batched[i] as Written, singles[i] as Written]);
    }
    expect(batched.every((w) => w.version === 2)).toBe(true);
    expect((await search(one, apiKey, "batched")).hits.length).toBeGreaterThan(0);
    expect((await search(one, apiKey, "single")).hits).toHaveLength(0);
    const listed = (await (await one.request("/v1/documents?limit=200", { token: apiKey })).json()) as {
      documents: unknown[];
    };
    expect(listed.documents).toHaveLength(ids.length);
  });
});
