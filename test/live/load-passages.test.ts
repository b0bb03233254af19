// Loading a team's sealed rows into fresh indexes, page by page: everything stored arrives once, and the page
// after is already being read while a page is indexed, so storage's round trip is not paid a page at a time.

import { afterEach, describe, expect, it } from "vitest";
import { EntryIndex } from "../../src/index/entry-index.js";
import { PassageIndex } from "../../src/index/passage-index.js";
import { loadEntries } from "../../src/live/load-entries.js";
import { loadPassages } from "../../src/live/load-passages.js";
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
  return { app, key };
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
  it("indexes every stored passage once, and has asked for the page after next before a page goes in", async () => {
    const { app, key } = await teamWith(9, 0);
    const index = new PassageIndex();
    const seen = watchReads(app.storage.documents, "pageChunkRuns", index);
    const unreadable = await loadPassages(app.storage, key, index, 2);
    expect(unreadable.count).toBe(0);
    expect(index.counts().documents).toBe(9);
    // Nine documents, two runs a page: five pages, the last short.
    expect(seen.reads()).toBe(5);
    // When the index takes in page k, the pages up to k + 2 have been asked for (or all of them).
    seen.asked.slice(0, 3).forEach((asked, k) => {
      expect(asked).toBeGreaterThanOrEqual(Math.min(k + 3, seen.reads()));
    });
    index.close();
  });
});

describe("loadEntries", () => {
  it("indexes every stored entry once, and has asked for the next page before a page goes in", async () => {
    const { app, key } = await teamWith(0, 7);
    const index = new EntryIndex();
    const seen = watchReads(app.storage.entries, "page", index);
    const unreadable = await loadEntries(app.storage, key, index, 3);
    expect(unreadable.count).toBe(0);
    expect(index.count()).toBe(7);
    expect(seen.reads()).toBe(3);
    seen.asked.forEach((asked, k) => {
      expect(asked).toBeGreaterThanOrEqual(Math.min(k + 2, seen.reads()));
    });
    index.close();
  });
});
