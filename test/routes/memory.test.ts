import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { entryAnswer, memoryAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { buildTestApp, makeTeam, type TestApp, tempDir } from "../support/app.js";
import { expectError, expectNoContent, expectOk, tickingClock, withApp } from "./contract.js";

type Memory = ReturnType<typeof memoryAnswer.parse>;
type EntryFields = { title: string; impact?: string; project?: string; type?: string; body?: string };

async function addEntry(app: TestApp, apiKey: string, json: EntryFields) {
  const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json });
  return (await expectOk(res, 201, entryAnswer)).entry;
}

/** `n` entries made by `make(i)`, posted 25 at a time: 500 one by one would take most of the test's time. */
async function addMany(app: TestApp, apiKey: string, n: number, make: (i: number) => EntryFields) {
  for (let start = 0; start < n; start += 25) {
    const batch = Array.from({ length: Math.min(25, n - start) }, (_, j) => make(start + j));
    await Promise.all(batch.map((json) => addEntry(app, apiKey, json)));
  }
}

function memoryRequest(app: TestApp, apiKey: string, params: Record<string, string> = {}) {
  return app.request(`/v1/memory?${new URLSearchParams(params)}`, { token: apiKey });
}

async function memory(app: TestApp, apiKey: string, params: Record<string, string> = {}): Promise<Memory> {
  return expectOk(await memoryRequest(app, apiKey, params), 200, memoryAnswer);
}

/** The accounting docs/api.md promises of every answer, whatever was asked. */
function expectConsistent(answer: Memory): void {
  expect(answer.text).toBe(answer.items.map((i) => i.line).join("\n"));
  expect(answer.included).toBe(answer.items.length);
  expect(answer.included + answer.skipped).toBe(answer.candidates);
  expect(answer.estimatedTokens).toBe(answer.items.reduce((sum, i) => sum + i.tokens, 0));
  expect(answer.estimatedTokens).toBeLessThanOrEqual(answer.budget);
  for (const item of answer.items) {
    expect(item.tokens).toBe(Math.ceil(Buffer.byteLength(item.line, "utf8") / 4));
    expect(item.rank).toBeGreaterThanOrEqual(1);
    expect(item.rank).toBeLessThanOrEqual(answer.candidates);
  }
  for (let i = 1; i < answer.items.length; i++) {
    const prev = answer.items[i - 1];
    const item = answer.items[i];
    if (!prev || !item) continue;
    expect(item.rank).toBeGreaterThan(prev.rank);
    expect(item.score).toBeLessThanOrEqual(prev.score);
  }
}

/** A clock that stands still for `per` reads at a time, so some entries share a createdAt. */
function steppingClock(per: number, start = Date.parse("2025-03-01T09:00:00.000Z")): Clock {
  let reads = 0;
  return { now: () => new Date(start + Math.floor(reads++ / per) * 1000) };
}

describe("GET /v1/memory answer", () => {
  it("answers the documented shape: null query and project, default budget 2000, text = lines joined", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const full = await addEntry(app, apiKey, {
          title: "Chose Postgres for billing",
          impact: "Migrations need a window",
          project: "billing",
          type: "decision",
          body: "Long detail that is searched but never rendered.",
        });
        const bare = await addEntry(app, apiKey, { title: "Flaky login test quarantined" });
        await addEntry(app, apiKey, { title: "Empty impact", impact: "", project: "web" });

        const answer = await memory(app, apiKey);
        expect(answer.query).toBeNull();
        expect(answer.project).toBeNull();
        expect(answer.budget).toBe(2000);
        expect(answer.candidates).toBe(3);
        expect(answer.included).toBe(3);
        expect(answer.skipped).toBe(0);
        expectConsistent(answer);
        // Without a query or project, recency alone ranks: newest first.
        expect(answer.items.map((i) => i.rank)).toEqual([1, 2, 3]);
        const lines = new Map(answer.items.map((i) => [i.id, i.line]));
        expect(lines.get(full.id)).toBe(
          `- ${full.id} 2025-01-01 [billing/decision] Chose Postgres for billing — Migrations need a window`,
        );
        expect(lines.get(bare.id)).toBe(`- ${bare.id} 2025-01-01 [-/-] Flaky login test quarantined`);
        expect(answer.text).not.toContain("Long detail");
        expect(answer.text).not.toMatch(/Empty impact —/);
      },
      { clock: tickingClock() },
    ));

  it("echoes q and project, and treats a blank q as none", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addEntry(app, apiKey, { title: "Cache warming", project: "web" });
      const asked = await memory(app, apiKey, { q: "cache warming", project: "web", budget: "500" });
      expect(asked.query).toBe("cache warming");
      expect(asked.project).toBe("web");
      expect(asked.budget).toBe(500);
      expectConsistent(asked);
      const blank = await memory(app, apiKey, { q: "   " });
      expect(blank.query).toBeNull();
      expectConsistent(blank);
    }));

  it("answers an empty block for a team with no entries", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const answer = await memory(app, apiKey, { q: "anything", project: "web" });
      expect(answer).toMatchObject({
        candidates: 0,
        included: 0,
        skipped: 0,
        estimatedTokens: 0,
        items: [],
        text: "",
      });
    }));

  it("cuts to the budget: the accounting holds when most candidates are skipped", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        await addMany(app, apiKey, 40, (i) => ({
          title: `Decision number ${i} about the ${"very ".repeat(i % 7)}long rollout`,
          impact: i % 3 === 0 ? "Some impact" : "",
          project: i % 2 === 0 ? "web" : "api",
        }));
        for (const budget of ["1", "30", "100", "333", "2000", "100000"]) {
          const answer = await memory(app, apiKey, { q: "rollout decision", project: "web", budget });
          expect(answer.budget).toBe(Number(budget));
          expect(answer.candidates).toBe(40);
          expectConsistent(answer);
        }
        const tiny = await memory(app, apiKey, { budget: "1" });
        expect(tiny).toMatchObject({ included: 0, skipped: 40, estimatedTokens: 0, items: [], text: "" });
        const all = await memory(app, apiKey, { budget: "100000" });
        expect(all.included).toBe(40);
        expect(all.items.map((i) => i.rank)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      },
      { clock: tickingClock() },
    ));
});

describe("GET /v1/memory validation", () => {
  it.each(["0", "-1", "1.5", "abc", "100001", "", "1e2", " 5"])(
    "refuses budget=%j with 400 invalid_request",
    (budget) =>
      withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        await addEntry(app, apiKey, { title: "Something" });
        await expectError(await memoryRequest(app, apiKey, { budget }), 400, "invalid_request");
      }),
  );

  it("accepts budget 1 and 100000", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addEntry(app, apiKey, { title: "Something" });
      expect((await memory(app, apiKey, { budget: "1" })).budget).toBe(1);
      expect((await memory(app, apiKey, { budget: "100000" })).budget).toBe(100000);
    }));

  it("measures q in UTF-8 bytes: 1024 pass, 1025 answer 400 query_too_long", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addEntry(app, apiKey, { title: "Something" });
      for (const q of ["a".repeat(1024), "é".repeat(512), `${"word ".repeat(204)}abcd`]) {
        expect(Buffer.byteLength(q, "utf8")).toBe(1024);
        expect((await memory(app, apiKey, { q })).query).toBe(q);
      }
      // 513 "é" are 513 characters but 1026 bytes.
      for (const q of ["a".repeat(1025), "é".repeat(513), "🦊".repeat(257)]) {
        expect(Buffer.byteLength(q, "utf8")).toBeGreaterThan(1024);
        await expectError(await memoryRequest(app, apiKey, { q }), 400, "query_too_long");
      }
    }));

  it.each(["a b", "p".repeat(65), "ü", "", "web/api"])(
    "refuses project=%j with 400 invalid_request",
    (project) =>
      withApp(async (app) => {
        const { apiKey } = await makeTeam(app);
        await addEntry(app, apiKey, { title: "Something", project: "web" });
        await expectError(await memoryRequest(app, apiKey, { project }), 400, "invalid_request");
      }),
  );

  it("accepts a 64-character project", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const project = "P".repeat(64);
      const entry = await addEntry(app, apiKey, { title: "Something", project });
      const answer = await memory(app, apiKey, { project });
      expect(answer.project).toBe(project);
      expect(answer.items.map((i) => i.id)).toEqual([entry.id]);
    }));
});

describe("GET /v1/memory determinism", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    // Apps close before their directory goes.
    for (const c of cleanups.splice(0).reverse()) c();
  });

  const asks: Record<string, string>[] = [
    {},
    { q: "rollout cache" },
    { project: "web" },
    { q: "rollout", project: "api", budget: "150" },
    { q: "incident outage rollback", project: "web", budget: "100000" },
  ];

  it("answers the same request on the same data byte for byte, and so does a cold-built second instance", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    // Several entries share each second, so tie-breaks (newer first, then higher id) decide part of the order.
    const first = await buildTestApp({ dbUrl: tmp.dbUrl, clock: steppingClock(3) });
    cleanups.push(() => first.close());
    const { apiKey } = await makeTeam(first);
    const projects = ["web", "api", "ops", undefined];
    const kinds = ["decision", "incident", "learning"];
    for (let i = 0; i < 30; i++) {
      await addEntry(first, apiKey, {
        // Identical titles give identical FTS5 ranks, so the match order's own tie-break is exercised too.
        title: i % 4 === 0 ? "Cache rollout" : `Rollout ${i} of the ${i % 2 ? "incident" : "outage"} fix`,
        impact: i % 5 === 0 ? "" : `Impact ${i}`,
        ...(projects[i % 4] ? { project: projects[i % 4] } : {}),
        type: kinds[i % 3] ?? "decision",
        body: i % 3 === 0 ? "rollback notes" : "",
      });
    }

    const answers: string[] = [];
    for (const params of asks) {
      const once = await (await memoryRequest(first, apiKey, params)).text();
      const twice = await (await memoryRequest(first, apiKey, params)).text();
      expect(twice).toBe(once);
      const parsed = memoryAnswer.parse(JSON.parse(once));
      expect(parsed.included).toBeGreaterThan(0);
      expectConsistent(parsed);
      answers.push(once);
    }
    first.close();

    const second = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: first.masterKey });
    cleanups.push(() => second.close());
    const stats = await expectOk(await second.request("/v1/stats", { token: apiKey }), 200, statsAnswer);
    expect(stats.index.state).toBe("cold");
    expect(stats.entries).toBe(30);
    for (const [i, params] of asks.entries()) {
      expect(await (await memoryRequest(second, apiKey, params)).text()).toBe(answers[i]);
    }
  });
});

describe("GET /v1/memory reachability", () => {
  // Recency alone reads the newest 200 entries; these entries are older than that and must still be
  // reached by the match read and the project read.
  const newer = (i: number): EntryFields => ({
    title: `Routine change ${i} to the deploy pipeline`,
    impact: "Nothing notable",
    project: i % 2 === 0 ? "web" : "api",
    type: "decision",
  });

  it("reaches an entry older than the newest 200 through q, at rank 1", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const old = await addEntry(app, apiKey, { title: "Postmortem: zanzibar outage", type: "incident" });
        await addMany(app, apiKey, 500, newer);

        const found = await memory(app, apiKey, { q: "zanzibar" });
        expectConsistent(found);
        expect(found.candidates).toBe(201);
        expect(found.items[0]).toMatchObject({ id: old.id, rank: 1 });

        // Without q the old entry is not even a candidate: the match read is what reached it.
        const plain = await memory(app, apiKey, { budget: "100000" });
        expect(plain.candidates).toBe(200);
        expect(plain.included).toBe(200);
        expect(plain.items.map((i) => i.id)).not.toContain(old.id);
      },
      { clock: tickingClock() },
    ));

  it("reaches an entry older than the newest 200 through project, at rank 1", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const old = await addEntry(app, apiKey, {
          title: "Kept the nightly billing cron",
          project: "legacy",
          type: "decision",
        });
        await addMany(app, apiKey, 500, newer);

        const found = await memory(app, apiKey, { project: "legacy" });
        expectConsistent(found);
        expect(found.candidates).toBe(201);
        expect(found.items[0]).toMatchObject({ id: old.id, rank: 1 });

        const plain = await memory(app, apiKey, { budget: "100000" });
        expect(plain.candidates).toBe(200);
        expect(plain.items.map((i) => i.id)).not.toContain(old.id);
      },
      { clock: tickingClock() },
    ));
});

describe("GET /v1/memory project boost", () => {
  it("ranks the project's entries first but still includes other projects' entries", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const web = [];
        for (let i = 0; i < 3; i++)
          web.push(await addEntry(app, apiKey, { title: `Web ${i}`, project: "web" }));
        const others = [
          await addEntry(app, apiKey, { title: "Api change", project: "api" }),
          await addEntry(app, apiKey, { title: "Ops change", project: "ops" }),
          await addEntry(app, apiKey, { title: "No project" }),
        ];
        const answer = await memory(app, apiKey, { project: "web" });
        expectConsistent(answer);
        expect(answer.candidates).toBe(6);
        expect(answer.included).toBe(6);
        const ids = answer.items.map((i) => i.id);
        // The older web entries are boosted above the newer ones of other projects.
        expect(ids.slice(0, 3).sort()).toEqual(web.map((e) => e.id).sort());
        expect(ids.slice(3).sort()).toEqual(others.map((e) => e.id).sort());
      },
      { clock: tickingClock() },
    ));
});

describe("GET /v1/memory sees writes at once", () => {
  it("includes an entry in the answer right after its POST, and drops it right after its DELETE", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const asks: Record<string, string>[] = [{}, { q: "quokka" }, { project: "web" }];
        await addEntry(app, apiKey, { title: "Earlier entry" });
        // Warm the index, so the write has to reach a live index rather than a first build.
        expect((await memory(app, apiKey)).candidates).toBe(1);

        const entry = await addEntry(app, apiKey, { title: "Adopted the quokka protocol", project: "web" });
        for (const params of asks) {
          const answer = await memory(app, apiKey, params);
          expect(answer.items.map((i) => i.id)).toContain(entry.id);
          expect(answer.items[0]?.id).toBe(entry.id);
        }

        await expectNoContent(
          await app.request(`/v1/entries/${entry.id}`, { method: "DELETE", token: apiKey }),
        );
        for (const params of asks) {
          const answer = await memory(app, apiKey, params);
          expect(answer.items.map((i) => i.id)).not.toContain(entry.id);
          expect(answer.candidates).toBe(1);
        }
      },
      { clock: tickingClock() },
    ));
});
