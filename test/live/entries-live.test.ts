// Memory entries through whole apps over real temp-file databases: the entry index built from sealed rows on
// a team's first read, kept level with another instance's writes by the change-log catch-up (at once with
// catchupMs 0, and only once the bound has passed on a clock the test moves), living beside the document
// index without either leaking into the other's answers, and gone from storage with its team.

import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { matchQuery } from "../../src/index/query.js";
import { entryAnswer, memoryAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import type { TeamKey } from "../../src/seal/team-key.js";
import { EntryService } from "../../src/services/entries.js";
import { expectError, expectNoContent, expectOk, tickingClock } from "../routes/contract.js";
import {
  ADMIN_TOKEN,
  addDocument,
  buildTestApp,
  makeTeam,
  search,
  type TestApp,
  type TestAppOptions,
  tempDir,
} from "../support/app.js";

type EntryFields = { title: string; impact?: string; project?: string; type?: string; body?: string };
type Memory = ReturnType<typeof memoryAnswer.parse>;

async function addEntry(app: TestApp, apiKey: string, json: EntryFields) {
  return (
    await expectOk(
      await app.request("/v1/entries", { method: "POST", token: apiKey, json }),
      201,
      entryAnswer,
    )
  ).entry;
}

async function deleteEntry(app: TestApp, apiKey: string, id: string): Promise<void> {
  await expectNoContent(await app.request(`/v1/entries/${id}`, { method: "DELETE", token: apiKey }));
}

async function memory(app: TestApp, apiKey: string, params: Record<string, string> = {}): Promise<Memory> {
  const res = await app.request(`/v1/memory?${new URLSearchParams(params)}`, { token: apiKey });
  return expectOk(res, 200, memoryAnswer);
}

async function stats(app: TestApp, apiKey: string) {
  return expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer);
}

async function teamKey(app: TestApp, apiKey: string): Promise<TeamKey> {
  const key = await app.memoria.directory.authenticate(apiKey);
  if (!key) throw new Error("the API key did not authenticate");
  return key;
}

/**
 * The three reads /v1/memory gathers from, asked of the instance's own entry index. Through HTTP a small
 * team's newest read already holds every entry, so only asking the index shows that the match read and the
 * project read saw a write too. ready() catches up exactly as a request would.
 */
async function indexReads(app: TestApp, apiKey: string, q: string, project: string) {
  const { entries } = await app.memoria.indexes.ready(await teamKey(app, apiKey));
  const ids = (list: readonly { id: string }[]) => list.map((e) => e.id);
  return {
    newest: ids(entries.newest(200)),
    matching: ids(entries.matching(matchQuery(q), 200)),
    project: ids(entries.newestOfProject(project, 200)),
  };
}

/** A clock that moves only when the test moves it. */
function manualClock(start = Date.parse("2026-02-01T08:00:00.000Z")): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms) {
      now += ms;
    },
  };
}

const itemIds = (answer: Memory) => answer.items.map((i) => i.id);

describe("entry index: the first read builds from sealed rows", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    // Apps close before their directory goes.
    for (const c of cleanups.splice(0).reverse()) c();
  });

  async function appOver(dbUrl: string, options: TestAppOptions = {}): Promise<TestApp> {
    const app = await buildTestApp({ dbUrl, ...options });
    cleanups.push(() => app.close());
    return app;
  }

  it("has every entry written before the index existed in its first answer, and so does a fresh app", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const first = await appOver(tmp.dbUrl, { clock: tickingClock() });
    const { apiKey } = await makeTeam(first);
    const written = [];
    for (let i = 0; i < 30; i++) {
      written.push(
        await addEntry(first, apiKey, {
          title: i % 5 === 0 ? "Pinned the gannet release" : `Change ${i} to the deploy pipeline`,
          ...(i % 3 === 0 ? { project: "web" } : {}),
          type: "decision",
        }),
      );
    }
    // The writes found no index to update: nothing has been read yet.
    expect((await stats(first, apiKey)).index.state).toBe("cold");

    const asks: Record<string, string>[] = [
      { budget: "100000" },
      { q: "gannet", budget: "100000" },
      { project: "web", budget: "100000" },
    ];
    const answers: string[] = [];
    for (const params of asks) {
      const res = await first.request(`/v1/memory?${new URLSearchParams(params)}`, { token: apiKey });
      const text = await res.text();
      const answer = memoryAnswer.parse(JSON.parse(text));
      expect(answer.candidates).toBe(30);
      expect(new Set(itemIds(answer))).toEqual(new Set(written.map((e) => e.id)));
      answers.push(text);
    }
    const reads = await indexReads(first, apiKey, "gannet", "web");
    expect(reads.matching).toEqual(
      written
        .filter((_, i) => i % 5 === 0)
        .map((e) => e.id)
        .reverse(),
    );
    expect(reads.project).toEqual(
      written
        .filter((_, i) => i % 3 === 0)
        .map((e) => e.id)
        .reverse(),
    );
    first.close();

    // A cold build over the same file, from the sealed rows alone, answers byte for byte the same.
    const second = await appOver(tmp.dbUrl, { masterKey: first.masterKey });
    const before = await stats(second, apiKey);
    expect(before.index.state).toBe("cold");
    expect(before.entries).toBe(30);
    for (const [i, params] of asks.entries()) {
      const res = await second.request(`/v1/memory?${new URLSearchParams(params)}`, { token: apiKey });
      expect(await res.text()).toBe(answers[i]);
    }
    expect(await indexReads(second, apiKey, "gannet", "web")).toEqual(reads);
    expect((await stats(second, apiKey)).index.state).toBe("ready");
  });

  it("loads every page of a team larger than one build page, across equal createdAt", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    // A clock that stands still: every entry shares one createdAt, so the build's page cursor must go on by
    // id alone. 1,100 entries is past one page of 1,024.
    const frozen: Clock = { now: () => new Date("2026-02-01T08:00:00.000Z") };
    const first = await appOver(tmp.dbUrl, { clock: frozen });
    const { apiKey } = await makeTeam(first);
    // Written through the service rather than HTTP: the same sealing and storage, a fraction of the time.
    const service = new EntryService({
      storage: first.storage,
      indexes: first.memoria.indexes,
      clock: frozen,
    });
    const key = await teamKey(first, apiKey);
    const n = 1100;
    const ids: string[] = [];
    for (let start = 0; start < n; start += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, n - start) }, (_, j) =>
          service.create(key, {
            title: `Heron note ${start + j}`,
            impact: null,
            project: (start + j) % 2 === 0 ? "even" : null,
            type: null,
            body: null,
          }),
        ),
      );
      ids.push(...batch.map((e) => e.id));
    }
    first.close();

    const second = await appOver(tmp.dbUrl, { masterKey: first.masterKey });
    const answer = await memory(second, apiKey);
    // The pool reads at most 200 per list; the index behind it holds all of them.
    expect(answer.candidates).toBe(200);
    const { entries } = await second.memoria.indexes.ready(await teamKey(second, apiKey));
    expect(entries.count()).toBe(n);
    const newestFirst = [...ids].sort().reverse();
    expect(entries.newest(5000).map((e) => e.id)).toEqual(newestFirst);
    expect(entries.matching(matchQuery("heron"), 5000).map((e) => e.id)).toEqual(newestFirst);
    expect(entries.newestOfProject("even", 5000)).toHaveLength(n / 2);
    // The entries either side of the page boundary, in build order (createdAt, then id), are both there.
    const boundary = [...ids].sort().slice(1023, 1025);
    for (const id of boundary) expect(entries.has(id)).toBe(true);
  });
});

describe("entry index: another instance's writes", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  async function twoInstances(b: TestAppOptions): Promise<{ a: TestApp; b: TestApp; apiKey: string }> {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const a = await buildTestApp({ dbUrl: tmp.dbUrl, clock: tickingClock() });
    cleanups.push(() => a.close());
    const other = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: a.masterKey, ...b });
    cleanups.push(() => other.close());
    const { apiKey } = await makeTeam(a);
    await addEntry(a, apiKey, { title: "Earlier entry", project: "api" });
    // B builds now, so what follows reaches it through the catch-up, not through a first build.
    expect((await memory(other, apiKey)).candidates).toBe(1);
    return { a, b: other, apiKey };
  }

  const fresh: EntryFields = { title: "Adopted the quokka protocol", project: "web", type: "decision" };
  const asks: Record<string, string>[] = [{}, { q: "quokka" }, { project: "web" }];

  it("with catchupMs 0, a write through A is in B's next answer, and a delete through A is gone from it", async () => {
    const { a, b, apiKey } = await twoInstances({ config: { catchupMs: 0 } });
    const entry = await addEntry(a, apiKey, fresh);
    for (const params of asks) {
      const answer = await memory(b, apiKey, params);
      expect(answer.candidates, JSON.stringify(params)).toBe(2);
      expect(answer.items[0]?.id, JSON.stringify(params)).toBe(entry.id);
    }
    expect(await indexReads(b, apiKey, "quokka", "web")).toEqual({
      newest: [entry.id, expect.any(String)],
      matching: [entry.id],
      project: [entry.id],
    });

    await deleteEntry(a, apiKey, entry.id);
    for (const params of asks) {
      const answer = await memory(b, apiKey, params);
      expect(itemIds(answer), JSON.stringify(params)).not.toContain(entry.id);
      expect(answer.candidates).toBe(1);
    }
    const after = await indexReads(b, apiKey, "quokka", "web");
    expect(after.newest).not.toContain(entry.id);
    expect(after.matching).toEqual([]);
    expect(after.project).toEqual([]);

    // Made and deleted between two of B's reads: the catch-up replays both and B never shows it.
    const brief = await addEntry(a, apiKey, { title: "Brief quokka note", project: "web" });
    await deleteEntry(a, apiKey, brief.id);
    expect(await indexReads(b, apiKey, "quokka", "web")).toEqual({
      newest: [expect.any(String)],
      matching: [],
      project: [],
    });
  });

  it("with a clock B's test moves, B sees A's write and A's delete only once catchupMs has passed", async () => {
    const clock = manualClock();
    const catchupMs = 1000;
    const { a, b, apiKey } = await twoInstances({ clock, config: { catchupMs } });
    const entry = await addEntry(a, apiKey, fresh);
    const visible = async (expected: boolean, when: string) => {
      for (const params of asks) {
        const ids = itemIds(await memory(b, apiKey, params));
        expect(ids.includes(entry.id), `${when}: ${JSON.stringify(params)}`).toBe(expected);
      }
      const reads = await indexReads(b, apiKey, "quokka", "web");
      expect(
        [
          reads.newest.includes(entry.id),
          reads.matching.includes(entry.id),
          reads.project.includes(entry.id),
        ],
        when,
      ).toEqual([expected, expected, expected]);
    };

    // B last looked at storage when it built; until the bound passes it answers from that view.
    await visible(false, "at once");
    clock.advance(catchupMs - 1);
    await visible(false, "1 ms before the bound");
    clock.advance(1);
    await visible(true, "at the bound");

    await deleteEntry(a, apiKey, entry.id);
    await visible(true, "right after the delete");
    clock.advance(catchupMs - 1);
    await visible(true, "1 ms before the next bound");
    clock.advance(1);
    await visible(false, "at the next bound");
  });
});

describe("entries beside documents", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("search answers documents only, memory entries only, stats counts both, here and on a second instance", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const a = await buildTestApp({ dbUrl: tmp.dbUrl, clock: tickingClock() });
    cleanups.push(() => a.close());
    const b = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: a.masterKey, config: { catchupMs: 0 } });
    cleanups.push(() => b.close());
    const { apiKey } = await makeTeam(a);
    // Warm both instances on an empty team, so every write below reaches B through one mixed catch-up.
    for (const app of [a, b]) {
      expect((await memory(app, apiKey)).candidates).toBe(0);
      expect((await search(app, apiKey, "kraken")).hits).toEqual([]);
    }

    // Every document and entry says "kraken": only the kind asked for may answer.
    const docs = [
      await addDocument(a, apiKey, {
        title: "Kraken runbook",
        content: "# Kraken\n\nRestart the kraken service.",
      }),
      await addDocument(a, apiKey, {
        title: "Ops",
        content: "## Paging\n\nThe kraken alert pages ops.\n\n## Rota\n\nKraken duty rotates weekly.",
      }),
    ];
    const entries = [
      await addEntry(a, apiKey, { title: "Kraken restarted after the outage", type: "incident" }),
      await addEntry(a, apiKey, { title: "Moved kraken to the new cluster", project: "ops" }),
      await addEntry(a, apiKey, { title: "Kraken alert threshold raised", impact: "Fewer pages" }),
    ];
    const docIds = docs.map((d) => d.id).sort();
    const entryIds = entries.map((e) => e.id).sort();
    const chunks = docs.reduce((sum, d) => sum + d.chunks, 0);

    const answers = [];
    for (const app of [a, b]) {
      const found = await search(app, apiKey, "kraken");
      expect(found.hits.length).toBe(chunks);
      expect([...new Set(found.hits.map((h) => h.documentId))].sort()).toEqual(docIds);
      expect(found.corpus).toEqual({ documents: 2, chunks, unreadable: 0 });
      const mem = await memory(app, apiKey, { q: "kraken" });
      expect(mem.candidates).toBe(3);
      expect([...itemIds(mem)].sort()).toEqual(entryIds);
      for (const id of docIds) expect(mem.text).not.toContain(id);
      const counts = await stats(app, apiKey);
      expect({ documents: counts.documents, chunks: counts.chunks, entries: counts.entries }).toEqual({
        documents: 2,
        chunks,
        entries: 3,
      });
      answers.push({ hits: found.hits, items: mem.items });
    }
    // B caught up from the change log to the very answers A gives from its own writes.
    expect(answers[1]).toEqual(answers[0]);

    // Deleting one kind leaves the other kind's answers as they were.
    const memoryBefore = await memory(b, apiKey, { q: "kraken" });
    const deleted = await a.request(`/v1/documents/${docs[0]?.id}`, { method: "DELETE", token: apiKey });
    await expectNoContent(deleted);
    expect(await memory(b, apiKey, { q: "kraken" })).toEqual(memoryBefore);
    const searchBefore = await search(b, apiKey, "kraken");
    expect(new Set(searchBefore.hits.map((h) => h.documentId))).toEqual(new Set([docs[1]?.id]));
    await deleteEntry(a, apiKey, entries[0]?.id as string);
    expect((await search(b, apiKey, "kraken")).hits).toEqual(searchBefore.hits);
    expect((await memory(b, apiKey, { q: "kraken" })).candidates).toBe(2);
    const counts = await stats(b, apiKey);
    expect([counts.documents, counts.entries]).toEqual([1, 2]);
  });
});

describe("entries and team deletion", () => {
  it("deleting a team leaves no entry rows (nor change records) of it in storage, and other teams' stay", async () => {
    const tmp = tempDir();
    const app = await buildTestApp({ dbUrl: tmp.dbUrl, clock: tickingClock() });
    try {
      const doomed = await makeTeam(app, "Doomed");
      const kept = await makeTeam(app, "Kept");
      for (const team of [doomed, kept]) {
        for (let i = 0; i < 3; i++) await addEntry(app, team.apiKey, { title: `Entry ${i}`, project: "p" });
        await addDocument(app, team.apiKey, { title: "Doc", content: "Some words." });
      }
      // The doomed team's index is live when it goes.
      expect((await memory(app, doomed.apiKey)).candidates).toBe(3);
      const count = async (table: string, teamId: string) => {
        const rs = await app.storage.client.execute({
          sql: `SELECT COUNT(*) AS n FROM ${table} WHERE team_id = ?`,
          args: [teamId],
        });
        return Number(rs.rows[0]?.n);
      };
      expect(await count("entries", doomed.teamId)).toBe(3);

      await expectNoContent(
        await app.request(`/v1/teams/${doomed.teamId}`, { method: "DELETE", token: ADMIN_TOKEN }),
      );
      expect(await count("entries", doomed.teamId)).toBe(0);
      expect(await count("changes", doomed.teamId)).toBe(0);
      expect(await count("entries", kept.teamId)).toBe(3);
      await expectError(await app.request("/v1/memory", { token: doomed.apiKey }), 401, "unauthorized");
      expect((await memory(app, kept.apiKey)).candidates).toBe(3);
    } finally {
      app.close();
      tmp.cleanup();
    }
  });
});
