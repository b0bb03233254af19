import { describe, expect, it } from "vitest";
import { z } from "zod";
import { entryAnswer, entrySchema, memoryAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { ADMIN_TOKEN, makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

const entryListAnswer = z.object({ entries: z.array(entrySchema), nextCursor: z.string().nullable() });
type Entry = z.infer<typeof entrySchema>;

const routes = (id: string): [string, string][] => [
  ["POST", "/v1/entries"],
  ["GET", "/v1/entries"],
  ["GET", "/v1/entries?project=web&limit=5"],
  ["GET", `/v1/entries/${id}`],
  ["DELETE", `/v1/entries/${id}`],
  ["GET", "/v1/memory"],
  ["GET", "/v1/memory?q=guarded&project=web&budget=100"],
];

function send(app: TestApp, method: string, path: string, authorization?: string): Promise<Response> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const json = method === "POST" ? { title: "Intruder entry", project: "web" } : undefined;
  return app.request(path, { method, headers, ...(json ? { json } : {}) });
}

async function addEntry(app: TestApp, apiKey: string, json: Record<string, unknown>): Promise<Entry> {
  const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json });
  return (await expectOk(res, 201, entryAnswer)).entry;
}

async function listAll(app: TestApp, apiKey: string, query = ""): Promise<Entry[]> {
  return (await expectOk(await app.request(`/v1/entries${query}`, { token: apiKey }), 200, entryListAnswer))
    .entries;
}

async function memory(app: TestApp, apiKey: string, params: Record<string, string> = {}) {
  const res = await app.request(`/v1/memory?${new URLSearchParams(params)}`, { token: apiKey });
  return expectOk(res, 200, memoryAnswer);
}

/** The entry is still there for its owner, unchanged, in the list and in working memory. */
async function expectUntouched(app: TestApp, apiKey: string, entry: Entry): Promise<void> {
  const got = await expectOk(
    await app.request(`/v1/entries/${entry.id}`, { token: apiKey }),
    200,
    entryAnswer,
  );
  expect(got.entry).toEqual(entry);
  expect((await listAll(app, apiKey)).map((e) => e.id)).toContain(entry.id);
  expect((await memory(app, apiKey)).items.map((i) => i.id)).toContain(entry.id);
}

describe("team key required", () => {
  it("answers 401 on every entries and memory route without a key, and changes nothing", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const entry = await addEntry(app, apiKey, { title: "Guarded decision", project: "web" });
      for (const [method, path] of routes(entry.id)) {
        await expectError(await send(app, method, path), 401, "unauthorized");
      }
      await expectUntouched(app, apiKey, entry);
      expect((await listAll(app, apiKey)).length).toBe(1);
    }));

  it("answers 401 to malformed, forged, foreign-secret and admin keys on every route", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const entry = await addEntry(app, a.apiKey, { title: "Guarded decision", project: "web" });
      const secretOfA = a.apiKey.slice(`mem_${a.teamId}_`.length);
      const bad = [
        "",
        "Bearer",
        "Bearer ",
        "Bearer mem_",
        "Bearer mem_x_y",
        `Bearer mem_${a.teamId}_`,
        `Bearer mem_${a.teamId}`,
        `Bearer mem_${b.teamId}_${secretOfA}`,
        `Bearer ${a.apiKey}x`,
        `Bearer ${a.apiKey.slice(0, -1)}`,
        `Bearer ${a.apiKey.toUpperCase()}`,
        `Bearer ${a.apiKey} extra`,
        `Basic ${a.apiKey}`,
        a.apiKey,
        `Bearer ${secretOfA}`,
        `Bearer ${ADMIN_TOKEN}`,
      ];
      for (const authorization of bad) {
        for (const [method, path] of routes(entry.id)) {
          const res = await send(app, method, path, authorization);
          const text = await res.clone().text();
          await expectError(res, 401, "unauthorized");
          expect(text).not.toContain(secretOfA);
        }
      }
      await expectUntouched(app, a.apiKey, entry);
      expect((await listAll(app, a.apiKey)).length).toBe(1);
      expect((await listAll(app, b.apiKey)).length).toBe(0);
    }));
});

describe("teams are isolated", () => {
  it("answers 404 to team B for team A's entry id on GET, as for an id that does not exist", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const entry = await addEntry(app, a.apiKey, { title: "A's aardvark decision", project: "web" });
      await addEntry(app, b.apiKey, { title: "B's own" });
      const foreign = await expectError(
        await app.request(`/v1/entries/${entry.id}`, { token: b.apiKey }),
        404,
        "not_found",
      );
      const missing = await expectError(
        await app.request("/v1/entries/exxxxxxxxxxxxxxxx", { token: b.apiKey }),
        404,
        "not_found",
      );
      expect(foreign.error.message.replace(entry.id, "ID")).toBe(
        missing.error.message.replace("exxxxxxxxxxxxxxxx", "ID"),
      );
      await expectUntouched(app, a.apiKey, entry);
    }));

  it("answers 404 to team B's DELETE of team A's entry and keeps it for team A", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const entry = await addEntry(app, a.apiKey, { title: "A's aardvark decision", project: "web" });
      // Once before B has written anything, once after: B's own change log must not change the answer.
      await expectError(
        await app.request(`/v1/entries/${entry.id}`, { method: "DELETE", token: b.apiKey }),
        404,
        "not_found",
      );
      await addEntry(app, b.apiKey, { title: "B's own" });
      await expectError(
        await app.request(`/v1/entries/${entry.id}`, { method: "DELETE", token: b.apiKey }),
        404,
        "not_found",
      );
      await expectUntouched(app, a.apiKey, entry);
      const found = await memory(app, a.apiKey, { q: "aardvark" });
      expect(found.items[0]?.id).toBe(entry.id);
      const stats = await expectOk(await app.request("/v1/stats", { token: a.apiKey }), 200, statsAnswer);
      expect(stats.entries).toBe(1);
    }));

  it("never shows team A's entries in team B's working memory or list, whatever B asks", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const aEntries = [
        await addEntry(app, a.apiKey, {
          title: "Okapi migration decided",
          impact: "Shared okapi budget",
          project: "web",
          type: "decision",
          body: "okapi details",
        }),
        await addEntry(app, a.apiKey, { title: "Shared incident", project: "shared" }),
      ];
      const bEntry = await addEntry(app, b.apiKey, { title: "Shared bison notes", project: "web" });
      const aIds = new Set(aEntries.map((e) => e.id));

      const asks: Record<string, string>[] = [
        {},
        { q: "okapi" },
        { q: "shared" },
        { project: "web" },
        { project: "shared" },
        { q: "okapi migration shared incident", project: "shared", budget: "100000" },
      ];
      for (const params of asks) {
        const answer = await memory(app, b.apiKey, params);
        expect(answer.candidates).toBe(1);
        expect(answer.items.map((i) => i.id)).toEqual([bEntry.id]);
        expect(answer.text.toLowerCase()).not.toContain("okapi");
        for (const id of aIds) expect(answer.text).not.toContain(id);
      }
      for (const query of ["", "?project=web", "?project=shared", "?limit=200"]) {
        for (const e of await listAll(app, b.apiKey, query)) expect(aIds.has(e.id)).toBe(false);
      }
      expect(await listAll(app, b.apiKey, "?project=shared")).toEqual([]);
      const bStats = await expectOk(await app.request("/v1/stats", { token: b.apiKey }), 200, statsAnswer);
      expect(bStats.entries).toBe(1);

      // A still sees its own, so the empty answers above are isolation, not a broken read.
      expect((await memory(app, a.apiKey, { q: "okapi" })).items[0]?.id).toBe(aEntries[0]?.id);
    }));

  it("does not let a cursor from team A page into team A's entries for team B", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      for (let i = 0; i < 3; i++) await addEntry(app, a.apiKey, { title: `a${i}` });
      const bEntry = await addEntry(app, b.apiKey, { title: "b" });
      const page = await expectOk(
        await app.request("/v1/entries?limit=1", { token: a.apiKey }),
        200,
        entryListAnswer,
      );
      const cursor = page.nextCursor ?? "";
      expect(cursor).not.toBe("");
      const list = await expectOk(
        await app.request(`/v1/entries?${new URLSearchParams({ cursor })}`, { token: b.apiKey }),
        200,
        entryListAnswer,
      );
      for (const e of list.entries) expect(e.id).toBe(bEntry.id);
    }));
});

describe("errors never quote entry content", () => {
  const word = "zyxquokkaplinth";

  it("keeps an entry's words out of every error message and header", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addEntry(app, apiKey, { title: `The ${word} decision` });
      const jsonHeaders = { "content-type": "application/json" };
      const attempts: [string, RequestInit & { json?: unknown }][] = [
        ["/v1/entries", { method: "POST", json: { impact: word } }],
        ["/v1/entries", { method: "POST", json: { title: word.repeat(40) } }],
        ["/v1/entries", { method: "POST", json: { title: "t", project: `${word} x` } }],
        ["/v1/entries", { method: "POST", json: { title: "t", type: `${word}ü` } }],
        ["/v1/entries", { method: "POST", json: { title: "t", impact: word.repeat(80) } }],
        ["/v1/entries", { method: "POST", json: { title: word, body: 42 } }],
        ["/v1/entries", { method: "POST", headers: jsonHeaders, body: `{"title":"${word}` }],
        ["/v1/entries", { method: "POST", headers: jsonHeaders, body: `{"title":${word}}` }],
        ["/v1/entries", { method: "POST", headers: { "content-type": "text/plain" }, body: word }],
        [`/v1/entries?project=${word}%20x`, {}],
        [`/v1/entries?limit=${word}`, {}],
        [`/v1/entries?cursor=${word}`, {}],
        [`/v1/memory?q=${word}&budget=${word}`, {}],
        [`/v1/memory?q=${word}&project=${word}%20x`, {}],
        [`/v1/memory?q=${encodeURIComponent(`${word} `.repeat(80))}`, {}],
      ];
      for (const [path, init] of attempts) {
        const res = await app.request(path, { token: apiKey, ...init });
        const text = await res.clone().text();
        expect(res.status, `${init.method ?? "GET"} ${path} answered ${res.status}`).toBeGreaterThanOrEqual(
          400,
        );
        expect(text.toLowerCase()).not.toContain(word);
        expect([...res.headers.values()].join(" ").toLowerCase()).not.toContain(word);
        await expectError(res, res.status, JSON.parse(text).error.code);
      }
    }));
});
