// Loading a team's sealed rows into fresh indexes, page by page: everything stored arrives once, and from
// storage across a network the pages after are already being read while a page is indexed (PAGES_AHEAD of
// them, no more), so storage's round trip is not paid a page at a time; from a database in this process, whose
// reads cost no round trip, none is read ahead.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EntryIndex } from "../../src/index/entry-index.js";
import { PassageIndex } from "../../src/index/passage-index.js";
import { loadEntries } from "../../src/live/load-entries.js";
import { loadPassages, PAGES_OPENED_AHEAD, type TextPacker } from "../../src/live/load-passages.js";
import { PAGES_AHEAD } from "../../src/live/pages-in-order.js";
import { ChunkPool } from "../../src/runtime/chunk-pool.js";
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

describe("loadPassages with a packer", () => {
  /** Every row of every table the index holds, as its snapshot reads them. */
  const tablesOf = (index: PassageIndex) => [...index.snapshot(256).pages].map((p) => [p.table, p.rows]);

  it("holds what a load packing in the index holds, whether the packer packs or fails, each document sent once", async () => {
    const app = await buildTestApp();
    apps.push(app);
    const { apiKey } = await makeTeam(app);
    for (const pkg of ["fast-check", "semver", "hono", "zod", "qs"]) {
      const content = readFileSync(join("node_modules", pkg, "README.md"), "utf8");
      await addDocument(app, apiKey, { title: `${pkg} README`, content, format: "markdown" });
    }
    const key = await app.memoria.directory.authenticate(apiKey);
    if (!key) throw new Error("the API key did not authenticate");
    const pool = new ChunkPool({ size: 1 });
    const closed = new ChunkPool({ size: 1 });
    await closed.close();
    try {
      const load = async (packText?: TextPacker) => {
        const index = new PassageIndex();
        expect((await loadPassages(app.storage, key, index, 2, undefined, packText)).count).toBe(0);
        return index;
      };
      const sent: string[] = [];
      let packedAhead = 0;
      const here = await load();
      const ahead = await load(async (documents) => {
        sent.push(...documents.map((d) => d.id));
        const packed = await pool.packText(documents);
        packedAhead += packed.length;
        return packed;
      });
      const failed = await load((documents) => closed.packText(documents));
      expect(here.counts()).toEqual({ documents: 5, chunks: expect.any(Number) });
      expect(tablesOf(ahead)).toEqual(tablesOf(here));
      expect(tablesOf(failed)).toEqual(tablesOf(here));
      const stored = await app.storage.documents.list(key.teamId, 100, null);
      expect(sent.sort()).toEqual(stored.map((d) => d.id).sort());
      expect(packedAhead).toBe(5);
      for (const index of [here, ahead, failed]) index.close();
    } finally {
      await pool.close();
    }
  }, 30_000);
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
