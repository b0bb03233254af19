import { describe, expect, it } from "vitest";
import { z } from "zod";
import { entryAnswer, entrySchema, memoryAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectNoContent, expectOk, tickingClock, withApp } from "./contract.js";

// The route's own list answer is not exported; this is the same shape as docs/api.md gives it.
const entryListAnswer = z.object({ entries: z.array(entrySchema), nextCursor: z.string().nullable() });
type Entry = z.infer<typeof entrySchema>;

async function addEntry(app: TestApp, apiKey: string, json: Record<string, unknown>): Promise<Entry> {
  const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json });
  return (await expectOk(res, 201, entryAnswer)).entry;
}

async function listPage(app: TestApp, apiKey: string, params: Record<string, string>) {
  const res = await app.request(`/v1/entries?${new URLSearchParams(params)}`, { token: apiKey });
  return expectOk(res, 200, entryListAnswer);
}

/** Every entry the list answers, walked page by page with `limit`. */
async function walk(app: TestApp, apiKey: string, limit: number, project?: string): Promise<Entry[]> {
  const seen: Entry[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await listPage(app, apiKey, {
      limit: String(limit),
      ...(project ? { project } : {}),
      ...(cursor ? { cursor } : {}),
    });
    expect(page.entries.length).toBeLessThanOrEqual(limit);
    seen.push(...page.entries);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== null && pages < 100);
  return seen;
}

async function entryCount(app: TestApp, apiKey: string): Promise<number> {
  return (await expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer)).entries;
}

describe("POST /v1/entries", () => {
  it("stores a title-only entry: 201 with null for every field not given", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const entry = await addEntry(app, apiKey, { title: "Chose libSQL for storage" });
      expect(entry).toEqual({
        id: expect.any(String),
        createdAt: expect.any(String),
        project: null,
        type: null,
        title: "Chose libSQL for storage",
        impact: null,
        body: null,
      });
      expect(entry.id.length).toBeGreaterThan(0);
      expect(entry.createdAt).toBe(new Date(entry.createdAt).toISOString());
    }));

  it("echoes every field given, exactly as sent", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const json = {
        title: 'Rolled back 🦊 deploy\nafter <b>errors</b> & "quotes"',
        impact: "Checkout was down for 12 minutes — 日本語",
        project: "web-app_2.0",
        type: "incident",
        body: "  Leading spaces, a tab\t, and\r\nCRLF lines.\n",
      };
      const entry = await addEntry(app, apiKey, json);
      expect(entry).toMatchObject(json);
    }));

  it("stores an empty or blank impact and body as null, the same as leaving them out", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const json of [
        { title: "Empty strings", impact: "", body: "" },
        { title: "Blank strings", impact: "  \n ", body: "\t" },
        { title: "Explicit nulls", impact: null, body: null, project: null, type: null },
      ]) {
        const created = await addEntry(app, apiKey, json);
        expect(created).toMatchObject({ impact: null, body: null, project: null, type: null });
        const got = await expectOk(
          await app.request(`/v1/entries/${created.id}`, { token: apiKey }),
          200,
          entryAnswer,
        );
        expect(got.entry).toEqual(created);
      }
    }));

  it("counts each stored entry in /v1/stats", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      expect(await entryCount(app, apiKey)).toBe(0);
      for (let i = 1; i <= 3; i++) {
        await addEntry(app, apiKey, { title: `Entry ${i}` });
        expect(await entryCount(app, apiKey)).toBe(i);
      }
      const stats = await expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer);
      expect(stats.documents).toBe(0);
    }));
});

describe("GET /v1/entries/{id}", () => {
  it("answers the entry as it was created", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const created = await addEntry(app, apiKey, {
        title: "Adopted RRF for working memory",
        impact: "Agents see relevant old decisions",
        project: "memoria",
        type: "decision",
        body: "Recency, relevance and project, fused.",
      });
      await addEntry(app, apiKey, { title: "Another entry" });
      const got = await expectOk(
        await app.request(`/v1/entries/${created.id}`, { token: apiKey }),
        200,
        entryAnswer,
      );
      expect(got.entry).toEqual(created);
    }));
});

describe("GET /v1/entries", () => {
  it("lists newest first, and limit + cursor paging visits every entry once", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const made: Entry[] = [];
        for (let i = 0; i < 7; i++) made.push(await addEntry(app, apiKey, { title: `Entry ${i}` }));
        const newestFirst = made.map((e) => e.id).reverse();

        const all = await listPage(app, apiKey, {});
        expect(all.entries.map((e) => e.id)).toEqual(newestFirst);
        expect(all.entries).toEqual([...made].reverse());
        expect(all.nextCursor).toBeNull();

        for (const limit of [1, 2, 3, 6]) {
          const seen = await walk(app, apiKey, limit);
          expect(seen.map((e) => e.id)).toEqual(newestFirst);
        }

        // A last page that is exactly full must not promise another.
        const exact = await listPage(app, apiKey, { limit: "7" });
        expect(exact.entries.map((e) => e.id)).toEqual(newestFirst);
        expect(exact.nextCursor).toBeNull();

        const first = await listPage(app, apiKey, { limit: "3" });
        expect(first.entries.map((e) => e.id)).toEqual(newestFirst.slice(0, 3));
        expect(first.nextCursor).toEqual(expect.any(String));
      },
      { clock: tickingClock() },
    ));

  it("orders entries made in the same millisecond by id, descending, and pages through them", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        for (let i = 0; i < 5; i++) await addEntry(app, apiKey, { title: `Same time ${i}` });
        const all = await listPage(app, apiKey, {});
        const ids = all.entries.map((e) => e.id);
        expect(ids.length).toBe(5);
        expect(ids).toEqual([...ids].sort().reverse());
        expect((await walk(app, apiKey, 2)).map((e) => e.id)).toEqual(ids);
      },
      { clock: { now: () => new Date("2025-06-01T12:00:00.000Z") } },
    ));

  it("with project= answers only that project's entries, newest first, and pages within them", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const projects = ["web", "api", null, "web", "web.v2", "web", "api", "web", null, "web"];
        const made: Entry[] = [];
        for (const [i, project] of projects.entries()) {
          made.push(await addEntry(app, apiKey, { title: `Entry ${i}`, project }));
        }
        const webNewestFirst = made
          .filter((e) => e.project === "web")
          .map((e) => e.id)
          .reverse();
        expect(webNewestFirst.length).toBe(5);

        const web = await listPage(app, apiKey, { project: "web" });
        expect(web.entries.map((e) => e.id)).toEqual(webNewestFirst);
        expect(web.nextCursor).toBeNull();
        for (const limit of [1, 2, 4]) {
          expect((await walk(app, apiKey, limit, "web")).map((e) => e.id)).toEqual(webNewestFirst);
        }

        const api = await listPage(app, apiKey, { project: "api" });
        expect(api.entries.every((e) => e.project === "api")).toBe(true);
        expect(api.entries.length).toBe(2);
        // The match is exact: "web" is not a prefix filter over "web.v2", nor is case folded.
        expect((await listPage(app, apiKey, { project: "web.v2" })).entries.length).toBe(1);
        expect(await listPage(app, apiKey, { project: "WEB" })).toEqual({ entries: [], nextCursor: null });
        expect(await listPage(app, apiKey, { project: "none-such" })).toEqual({
          entries: [],
          nextCursor: null,
        });

        // Without the filter every entry is listed, those with no project included.
        expect((await walk(app, apiKey, 3)).map((e) => e.id)).toEqual(made.map((e) => e.id).reverse());
      },
      { clock: tickingClock() },
    ));

  it("answers an empty list for a team with no entries", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      expect(await listPage(app, apiKey, {})).toEqual({ entries: [], nextCursor: null });
    }));

  it("accepts limit 1 and 200", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addEntry(app, apiKey, { title: "one" });
      await addEntry(app, apiKey, { title: "two" });
      expect((await listPage(app, apiKey, { limit: "1" })).entries.length).toBe(1);
      expect((await listPage(app, apiKey, { limit: "200" })).entries.length).toBe(2);
    }));
});

describe("DELETE /v1/entries/{id}", () => {
  it("answers 204; the entry is then 404, gone from the list, from working memory and from the count", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const kept = await addEntry(app, apiKey, { title: "Kept pelican decision", project: "web" });
        const gone = await addEntry(app, apiKey, {
          title: "Doomed pelican decision",
          impact: "to be forgotten",
          project: "web",
        });
        // Answer memory first, so the delete has to reach a live index and not only storage.
        const before = await expectOk(
          await app.request("/v1/memory?q=pelican&project=web", { token: apiKey }),
          200,
          memoryAnswer,
        );
        expect(before.items.map((i) => i.id).sort()).toEqual([kept.id, gone.id].sort());

        await expectNoContent(
          await app.request(`/v1/entries/${gone.id}`, { method: "DELETE", token: apiKey }),
        );

        await expectError(await app.request(`/v1/entries/${gone.id}`, { token: apiKey }), 404, "not_found");
        const list = await listPage(app, apiKey, {});
        expect(list.entries.map((e) => e.id)).toEqual([kept.id]);
        expect((await listPage(app, apiKey, { project: "web" })).entries.map((e) => e.id)).toEqual([kept.id]);
        for (const query of ["", "?q=pelican", "?q=doomed+forgotten", "?project=web"]) {
          const memory = await expectOk(
            await app.request(`/v1/memory${query}`, { token: apiKey }),
            200,
            memoryAnswer,
          );
          expect(memory.items.map((i) => i.id)).toEqual([kept.id]);
          expect(memory.candidates).toBe(1);
          expect(memory.text).not.toContain(gone.id);
        }
        expect(await entryCount(app, apiKey)).toBe(1);
        const got = await expectOk(
          await app.request(`/v1/entries/${kept.id}`, { token: apiKey }),
          200,
          entryAnswer,
        );
        expect(got.entry).toEqual(kept);
      },
      { clock: tickingClock() },
    ));
});
