// Loading a team's sealed rows into fresh indexes, page by page: everything stored arrives once, and from
// storage across a network the pages after are already being read while a page is indexed (PAGES_AHEAD of
// them, no more), so storage's round trip is not paid a page at a time; from a database in this process, whose
// reads cost no round trip, none is read ahead.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EntryIndex } from "../../src/index/entry-index.js";
import { packDocumentText } from "../../src/index/passages/passage-document.js";
import { PassageIndex } from "../../src/index/passages/passage-index.js";
import { loadEntries } from "../../src/live/load-entries.js";
import { type LoadPassagesOptions, loadPassages, PAGES_OPENED_AHEAD } from "../../src/live/load-passages.js";
import { PAGES_AHEAD } from "../../src/live/pages-in-order.js";
import { ChunkPool } from "../../src/runtime/chunk-pool.js";
import { utf8 } from "../../src/seal/bytes.js";
import { sealRowBytes } from "../../src/seal/team-key.js";
import { Storage } from "../../src/store/storage.js";
import { addDocument, buildTestApp, makeTeam, type TestApp } from "../support/app.js";

const apps: TestApp[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) app.close();
});

async function teamWith(documents: number, entries: number) {
  const app = await buildTestApp();
  apps.push(app);
  const { apiKey } = await makeTeam(app);
  for (let i = 0; i < documents; i++)
    await addDocument(app, apiKey, { title: `Note ${i}`, content: `The okapi number ${i} grazes.` });
  for (let i = 0; i < entries; i++) {
    const res = await app.request("/v1/entries", {
      method: "POST",
      token: apiKey,
      json: { title: `fact ${i}` },
    });
    expect(res.status).toBe(201);
  }
  const key = await app.memoria.directory.authenticate(apiKey);
  if (!key) throw new Error("the API key did not authenticate");
  // The same database, read as storage across a network is: not in this process.
  const remote = new Storage(app.storage.client, false);
  return { app, key, remote };
}

/** Counts the pages asked of storage, noting how many were asked each time the index takes one in. */
function watchReads<T extends object>(rows: T, method: keyof T, index: { apply(...args: never[]): void }) {
  const asked: number[] = [];
  let reads = 0;
  const read = (rows[method] as (...args: unknown[]) => Promise<unknown>).bind(rows);
  (rows as Record<keyof T, unknown>)[method] = (...args: unknown[]) => {
    reads++;
    return read(...args);
  };
  const apply = index.apply.bind(index);
  index.apply = (...args: never[]) => {
    asked.push(reads);
    apply(...args);
  };
  return { asked, reads: () => reads };
}

describe("loadPassages", () => {
  it("indexes every stored passage once, with the pages ahead asked for before a page goes in, and no more", async () => {
    const documents = (PAGES_AHEAD + PAGES_OPENED_AHEAD) * 2 + 5;
    const { key, remote } = await teamWith(documents, 0);
    const index = new PassageIndex();
    const seen = watchReads(remote.documents, "chunkRunsBetween", index);
    const unreadable = await loadPassages(remote, key, index, 1);
    expect(unreadable.count).toBe(0);
    expect(index.counts().documents).toBe(documents);
    expect(index.counts().chunks).toBe(documents);
    // One run a document, one run a page.
    expect(seen.reads()).toBe(documents);
    // Page k goes in once page k + PAGES_OPENED_AHEAD is being opened: pages up to that one and PAGES_AHEAD
    // more have been asked, and no more.
    seen.asked.forEach((asked, k) => {
      expect(asked).toBe(Math.min(k + 1 + PAGES_OPENED_AHEAD + PAGES_AHEAD, documents));
    });
    index.close();
  });

  it("reads no page ahead from a database in this process", async () => {
    const documents = PAGES_OPENED_AHEAD + 6;
    const { app, key } = await teamWith(documents, 0);
    const index = new PassageIndex();
    const seen = watchReads(app.storage.documents, "chunkRunsBetween", index);
    expect((await loadPassages(app.storage, key, index, 1)).count).toBe(0);
    expect(index.counts().documents).toBe(documents);
    seen.asked.forEach((asked, k) => {
      expect(asked).toBe(Math.min(k + 1 + PAGES_OPENED_AHEAD, documents));
    });
    index.close();
  });

  it("reads every run once whatever the page size, each page asked once", async () => {
    const { key, remote } = await teamWith(9, 0);
    for (const pageRows of [1, 2, 4, 9, 50]) {
      const index = new PassageIndex();
      const seen = watchReads(remote.documents, "chunkRunsBetween", index);
      expect((await loadPassages(remote, key, index, pageRows)).count).toBe(0);
      expect(index.counts().documents).toBe(9);
      expect(seen.reads()).toBe(Math.ceil(9 / pageRows));
      index.close();
    }
  });
});

/**
 * How long a test waits for a worker to start from the TypeScript source (through tsx): seconds on a busy
 * 2-core machine, where vi.waitFor's default second is not enough.
 */
const WORKER_STARTS = { timeout: 30_000, interval: 20 };

describe("loadPassages with a packer", () => {
  /** Every row of every table the index holds, as its snapshot reads them. */
  const tablesOf = (index: PassageIndex) => [...index.snapshot(256).pages].map((p) => [p.table, p.rows]);

  /** A team of five README documents, read by the tests below. */
  async function readmeTeam() {
    const app = await buildTestApp();
    apps.push(app);
    const { apiKey } = await makeTeam(app);
    for (const pkg of ["fast-check", "semver", "hono", "zod", "qs"]) {
      const content = readFileSync(join("node_modules", pkg, "README.md"), "utf8");
      await addDocument(app, apiKey, { title: `${pkg} README`, content, format: "markdown" });
    }
    const key = await app.memoria.directory.authenticate(apiKey);
    if (!key) throw new Error("the API key did not authenticate");
    const stored = await app.storage.documents.list(key.teamId, 100, null);
    /** Loads the team two runs a page, counting the documents that reach the index packed ahead. */
    const load = async (options: LoadPassagesOptions = {}) => {
      const index = new PassageIndex();
      let packedAhead = 0;
      const apply = index.apply.bind(index);
      index.apply = (put, remove) => {
        packedAhead += put.filter((doc) => doc.packed !== undefined).length;
        apply(put, remove);
      };
      expect((await loadPassages(app.storage, key, index, 2, options)).count).toBe(0);
      return { index, packedAhead };
    };
    return { ids: stored.map((d) => d.id).sort(), load };
  }

  it("stores what the index packs itself when the chunk worker packs every document, each sent once", async () => {
    const { ids, load } = await readmeTeam();
    // Kept for the whole test: a worker ended while idle would make the next call answer "not now".
    const pool = new ChunkPool({ size: 1, idleMs: 600_000 });
    try {
      const here = await load();
      // The first call starts the worker and answers null (the caller packs); once it has started, it packs.
      await vi.waitFor(async () => expect(await pool.packText([])).toEqual([]), WORKER_STARTS);
      const sent: string[] = [];
      const ahead = await load({
        packText: (documents) => {
          sent.push(...documents.map((d) => d.id));
          return pool.packText(documents);
        },
      });
      expect(here.index.counts()).toEqual({ documents: 5, chunks: expect.any(Number) });
      expect(here.packedAhead).toBe(0);
      expect(ahead.packedAhead).toBe(5);
      expect(sent.sort()).toEqual(ids);
      expect(tablesOf(ahead.index)).toEqual(tablesOf(here.index));
      for (const { index } of [here, ahead]) index.close();
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("packs in the index what the packer does not take, or packs so it does not fit, and stops asking one that fails", async () => {
    const { load } = await readmeTeam();
    const here = await load();
    const closed = new ChunkPool({ size: 1 });
    await closed.close();
    const notTaken = await load({ packText: (documents) => closed.packText(documents) });
    // Each document's blocks with the first one's count off by one: they do not hold the passages in order.
    const misfit = await load({
      packText: async (documents) =>
        documents.map((doc) =>
          packDocumentText(doc.passages).map((b, i) => (i === 0 ? { ...b, count: b.count + 1 } : b)),
        ),
    });
    let asked = 0;
    const failures: unknown[] = [];
    const failing = await load({
      packText: async () => {
        asked++;
        throw new Error("the packer's thread is gone");
      },
      onPackFailed: (error) => failures.push(error),
    });
    for (const loaded of [notTaken, misfit, failing]) {
      expect(loaded.packedAhead).toBe(0);
      expect(tablesOf(loaded.index)).toEqual(tablesOf(here.index));
      loaded.index.close();
    }
    here.index.close();
    // Asked once: the first failure is seen before the next page is gathered, so that page is not sent.
    expect(asked).toBe(1);
    expect(failures).toEqual([new Error("the packer's thread is gone")]);
  }, 60_000);

  it("fails the load, with nothing left unhandled, when a page's run opens to something that is not a run", async () => {
    const app = await buildTestApp();
    apps.push(app);
    const { apiKey } = await makeTeam(app);
    const ids: string[] = [];
    for (let i = 0; i < 3 * (PAGES_OPENED_AHEAD + 2); i++)
      ids.push(
        (await addDocument(app, apiKey, { title: `Note ${i}`, content: `The okapi ${i} grazes.` })).id,
      );
    const key = await app.memoria.directory.authenticate(apiKey);
    if (!key) throw new Error("the API key did not authenticate");
    // Rows sealed under the team's own key, so they open, but holding no JSON: not rows that failed to open
    // (those are counted and left out) but a fault, which fails the load. Two pages in a row, so the second
    // fails while nothing waits for it any more (the first ended the load). Ids sort: these are later pages.
    for (const id of [...ids].sort().slice(4, 6)) {
      const row = await app.storage.client.execute({
        sql: "SELECT version, first_ordinal FROM chunks WHERE document_id = ?",
        args: [id],
      });
      const { version, first_ordinal } = row.rows[0] as unknown as { version: number; first_ordinal: number };
      const sealed = await sealRowBytes(
        key,
        "chunks",
        `${id}/${version}/${first_ordinal}`,
        utf8("{ not json"),
      );
      await app.storage.client.execute({
        sql: "UPDATE chunks SET sealed = ? WHERE document_id = ?",
        args: [sealed, id],
      });
    }
    const index = new PassageIndex();
    await expect(loadPassages(app.storage, key, index, 1)).rejects.toThrow(SyntaxError);
    index.close();
  });
});

describe("loadEntries", () => {
  it("indexes every stored entry once, with the pages ahead asked for before a page goes in, and no more", async () => {
    const { key, remote } = await teamWith(0, 3 * (PAGES_AHEAD + 3));
    const index = new EntryIndex();
    const seen = watchReads(remote.entries, "between", index);
    const unreadable = await loadEntries(remote, key, index, 3);
    expect(unreadable.count).toBe(0);
    expect(index.count()).toBe(3 * (PAGES_AHEAD + 3));
    expect(seen.reads()).toBe(PAGES_AHEAD + 3);
    seen.asked.forEach((asked, k) => {
      expect(asked).toBe(Math.min(k + 1 + PAGES_AHEAD, PAGES_AHEAD + 3));
    });
    index.close();
  });
});
