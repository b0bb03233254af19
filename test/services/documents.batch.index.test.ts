// A batch (and a single write) and the team's live index: a transaction's documents go from memory into an
// index that is level with the change log, and through a replay of the log when something came between;
// either way the index answers as one rebuilt from the stored rows, and a team with no index stays so.

import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { buildTestApp, makeTeam, type SearchBody, search, type TestApp, tempDir } from "../support/app.js";

interface BatchItem {
  title: string;
  content: string;
  format?: string;
  path?: string[];
  externalId?: string;
}

async function postBatch(app: TestApp, apiKey: string, documents: BatchItem[]): Promise<string[]> {
  const res = await app.request("/v1/documents/batch", {
    method: "POST",
    token: apiKey,
    json: { documents },
  });
  expect(res.status).toBe(200);
  const { results } = (await res.json()) as { results: { document?: { id: string } }[] };
  return results.map((r, i) => {
    if (!r.document) throw new Error(`item ${i} failed: ${JSON.stringify(r)}`);
    return r.document.id;
  });
}

/** Counts the re-reads of a document's chunk runs (what a replay of the change log does per document). */
function countRereads(app: TestApp): { count: () => number } {
  const rows = app.storage.documents;
  const read = rows.chunkRuns.bind(rows);
  let count = 0;
  rows.chunkRuns = async (...args) => {
    count++;
    return read(...args);
  };
  return { count: () => count };
}

/** A clock that a test moves forward, so reads catch up from storage exactly when it says. */
function movableClock(): Clock & { advance: (ms: number) => void } {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => (offset += ms) };
}

/** No read catches up on its own within a test: only writes bring an index level, unless the clock moves. */
const CATCHUP_MS = 600_000;

const QUERIES = [
  "wombat",
  "quokka burrow",
  "platypus",
  "echidna spines",
  "handbook",
  "restart service",
  "numbat",
  "kookaburra laughs at dawn",
  "shared",
];

/** Varied documents: several passages, headings, paths, formats, and every one holds the word "shared". */
function documents(prefix: string, count: number, externalIds = false): BatchItem[] {
  const animals = ["wombat", "quokka", "platypus", "echidna", "numbat", "kookaburra"];
  return Array.from({ length: count }, (_, i) => {
    const animal = animals[i % animals.length] as string;
    const long = Array.from({ length: 1 + (i % 4) * 40 }, (_, j) => `${animal} sentence ${j} shared`).join(
      ". ",
    );
    return {
      title: `${prefix} ${animal} ${i}`,
      content:
        i % 3 === 0
          ? `# ${animal} handbook\n\nThe ${animal} digs a burrow. ${long}\n\n## Restart\n\nRestart the service.`
          : i % 3 === 1
            ? `<h1>${animal}</h1><p>${long}</p><h2>Spines</h2><p>echidna spines, kookaburra laughs at dawn</p>`
            : `${long}\n\nA plain note about the ${animal}.`,
      format: i % 3 === 0 ? "markdown" : i % 3 === 1 ? "html" : "text",
      path: i % 2 === 0 ? ["Handbook", animal] : [],
      ...(externalIds ? { externalId: `file:${prefix}/${i}.md` } : {}),
    };
  });
}

/** What each query answers, less its timing. */
async function answers(app: TestApp, apiKey: string): Promise<Omit<SearchBody, "tookMs">[]> {
  const all: Omit<SearchBody, "tookMs">[] = [];
  for (const q of QUERIES) {
    const { tookMs: _, ...answer } = (await search(app, apiKey, q, 50)) as SearchBody & { tookMs?: number };
    all.push(answer);
  }
  return all;
}

describe("a batch and the team's live index", () => {
  const open: TestApp[] = [];
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
    for (const c of cleanups.splice(0)) c();
  });

  async function app(dbUrl: string, clock: Clock = movableClock(), masterKey?: Uint8Array<ArrayBuffer>) {
    const made = await buildTestApp({
      dbUrl,
      clock,
      config: { catchupMs: CATCHUP_MS },
      ...(masterKey ? { masterKey } : {}),
    });
    open.push(made);
    return made;
  }

  it("is searchable as it answers, nothing re-read, with the hits of an index rebuilt from the rows", async () => {
    const { dbUrl, cleanup } = tempDir();
    cleanups.push(cleanup);
    const one = await app(dbUrl);
    const { teamId, apiKey } = await makeTeam(one);
    await postBatch(one, apiKey, documents("seed", 3));
    // Loads the team's index; from here on, every write must bring it level.
    expect((await search(one, apiKey, "shared")).corpus.documents).toBe(3);
    const rereads = countRereads(one);
    await postBatch(one, apiKey, documents("first", 40, true));
    // Replaces half of them by externalId (version 2) and adds new ones in the same batch.
    const second = documents("first", 20, true).map((d) => ({ ...d, content: `${d.content} numbat` }));
    await postBatch(one, apiKey, [...second, ...documents("second", 30)]);
    expect(rereads.count()).toBe(0);
    const status = one.memoria.indexes.status(teamId);
    expect(status.state).toBe("ready");
    expect(status.appliedSeq).toBe(await one.storage.changes.latestSeq(teamId));

    const live = await answers(one, apiKey);
    expect(live[QUERIES.indexOf("shared")]?.corpus.documents).toBe(73);
    expect(live.every((a) => a.hits.length > 0)).toBe(true);
    // Another instance over the same database builds its index from the stored rows alone.
    const rebuilt = await app(dbUrl, movableClock(), one.masterKey);
    expect(await answers(rebuilt, apiKey)).toEqual(live);
  });

  it("replays the change log when another instance wrote in between, and loses no write", async () => {
    const { dbUrl, cleanup } = tempDir();
    cleanups.push(cleanup);
    const clock = movableClock();
    const one = await app(dbUrl, clock);
    const two = await app(dbUrl, clock, one.masterKey);
    const { teamId, apiKey } = await makeTeam(one);
    expect((await search(one, apiKey, "anything")).hits).toHaveLength(0);
    const rereads = countRereads(one);

    // Written through the other instance after this one's index was level: this one's next batch finds the
    // log moved past its index, so it replays, and the other's write is in its very next answer.
    const [theirs] = await postBatch(two, apiKey, [{ title: "Theirs", content: "a lone platypus" }]);
    const ours = await postBatch(one, apiKey, documents("ours", 5));
    expect(rereads.count()).toBeGreaterThan(0);
    expect((await search(one, apiKey, "platypus")).hits.map((h) => h.documentId)).toContain(theirs);
    expect((await search(one, apiKey, "shared")).corpus.documents).toBe(ours.length + 1);

    // Both instances at once, replacing each other's documents by externalId and adding their own.
    const writes: Promise<string[]>[] = [];
    for (let round = 0; round < 4; round++) {
      writes.push(postBatch(one, apiKey, documents(`race${round % 2}`, 25, true)));
      writes.push(postBatch(two, apiKey, documents(`race${round % 2}`, 25, true)));
      writes.push(postBatch(round % 2 ? one : two, apiKey, documents(`solo${round}`, 10)));
    }
    await Promise.all(writes);
    const latest = await one.storage.changes.latestSeq(teamId);
    const counts = await one.storage.documents.counts(teamId);
    expect(counts.documents).toBe(6 + 2 * 25 + 4 * 10);
    // Once reads look at storage again, both indexes hold every write: none was skipped over.
    clock.advance(CATCHUP_MS);
    const fresh = await app(dbUrl, clock, one.masterKey);
    const expected = await answers(fresh, apiKey);
    expect(expected[QUERIES.indexOf("shared")]?.corpus).toMatchObject(counts);
    expect(await answers(one, apiKey)).toEqual(expected);
    expect(await answers(two, apiKey)).toEqual(expected);
    expect(one.memoria.indexes.status(teamId).appliedSeq).toBe(latest);
  });

  it("takes single writes the same way: a POST and a PUT are searched at once, the old version gone", async () => {
    const { dbUrl, cleanup } = tempDir();
    cleanups.push(cleanup);
    const one = await app(dbUrl);
    const { apiKey } = await makeTeam(one);
    expect((await search(one, apiKey, "anything")).hits).toHaveLength(0);
    const rereads = countRereads(one);
    const posted = await one.request("/v1/documents", {
      method: "POST",
      token: apiKey,
      json: { title: "Burrows", content: "# Wombat\n\nThe wombat digs.\n\n## Quokka\n\nThe quokka smiles." },
    });
    const { document } = (await posted.json()) as { document: { id: string } };
    expect((await search(one, apiKey, "quokka")).hits.map((h) => h.documentId)).toEqual([document.id]);
    const put = await one.request(`/v1/documents/${document.id}`, {
      method: "PUT",
      token: apiKey,
      json: { title: "Burrows", content: "The numbat digs instead." },
    });
    expect(put.status).toBe(200);
    expect(rereads.count()).toBe(0);
    expect((await search(one, apiKey, "quokka")).hits).toHaveLength(0);
    expect((await search(one, apiKey, "numbat")).hits.map((h) => h.chunkId)).toEqual([`${document.id}.2.0`]);
    const rebuilt = await app(dbUrl, movableClock(), one.masterKey);
    expect(await answers(rebuilt, apiKey)).toEqual(await answers(one, apiKey));
  });

  it("into a cold team: no index is loaded by it, and the first search builds one from the rows", async () => {
    const { dbUrl, cleanup } = tempDir();
    cleanups.push(cleanup);
    const one = await app(dbUrl);
    const { teamId, apiKey } = await makeTeam(one);
    const ids = await postBatch(one, apiKey, documents("cold", 12));
    expect(one.memoria.indexes.status(teamId).state).toBe("cold");
    expect(one.memoria.indexes.loadedTeams()).not.toContain(teamId);
    const found = await search(one, apiKey, "shared", 50);
    expect(found.corpus.documents).toBe(ids.length);
    expect(new Set(found.hits.map((h) => h.documentId))).toEqual(new Set(ids));
  });
});
