import { describe, expect, it } from "vitest";
import { entryAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectNoContent, expectOk, withApp } from "./contract.js";

async function entryCount(app: TestApp, apiKey: string): Promise<number> {
  return (await expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer)).entries;
}

function postJson(app: TestApp, apiKey: string, json: unknown): Promise<Response> {
  return app.request("/v1/entries", { method: "POST", token: apiKey, json });
}

/** A team holding one entry, so a refused write that stored anything shows as a count other than 1. */
async function teamWithOneEntry(app: TestApp): Promise<{ apiKey: string; id: string }> {
  const { apiKey } = await makeTeam(app);
  const { entry } = await expectOk(await postJson(app, apiKey, { title: "Seed" }), 201, entryAnswer);
  return { apiKey, id: entry.id };
}

const fox = "🦊";

describe("POST /v1/entries validation", () => {
  it.each([
    ["no title", { impact: "x" }],
    ["an empty title", { title: "" }],
    ["a blank title", { title: "  \t\n " }],
    ["a null title", { title: null }],
    ["a numeric title", { title: 7 }],
    ["a 513-character title", { title: "a".repeat(513) }],
    ["a 513-code-point emoji title", { title: fox.repeat(513) }],
    ["a project with a space", { title: "t", project: "a b" }],
    ["a 65-character project", { title: "t", project: "p".repeat(65) }],
    ["a project with ü", { title: "t", project: "ü" }],
    ["an empty project", { title: "t", project: "" }],
    ["a project with a slash", { title: "t", project: "web/api" }],
    ["a numeric project", { title: "t", project: 5 }],
    ["a type with a space", { title: "t", type: "a b" }],
    ["a 65-character type", { title: "t", type: "d".repeat(65) }],
    ["a type with ü", { title: "t", type: "ü" }],
    ["an empty type", { title: "t", type: "" }],
    ["a 1025-character impact", { title: "t", impact: "i".repeat(1025) }],
    ["a 1025-code-point emoji impact", { title: "t", impact: fox.repeat(1025) }],
    ["a numeric impact", { title: "t", impact: 1 }],
    ["a 65537-character body", { title: "t", body: "b".repeat(65_537) }],
    ["a numeric body", { title: "t", body: 1 }],
    ["an array body", [{ title: "t" }]],
    ["a string body", "hello"],
    ["a null body", null],
  ])("refuses %s with 400 invalid_request and stores nothing", (_label, json) =>
    withApp(async (app) => {
      const { apiKey } = await teamWithOneEntry(app);
      await expectError(await postJson(app, apiKey, json), 400, "invalid_request");
      expect(await entryCount(app, apiKey)).toBe(1);
    }),
  );

  it("counts lengths in code points, not UTF-16 units: 512 emoji titles and 1024 emoji impacts pass", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      // Each fox is two UTF-16 units, so a check on string.length would refuse these at half the limit.
      const json = { title: fox.repeat(512), impact: fox.repeat(1024) };
      const { entry } = await expectOk(await postJson(app, apiKey, json), 201, entryAnswer);
      expect(entry.title).toBe(json.title);
      expect(entry.impact).toBe(json.impact);
      await expectError(await postJson(app, apiKey, { title: fox.repeat(513) }), 400, "invalid_request");
      expect(await entryCount(app, apiKey)).toBe(1);
    }));

  it("accepts every field at its limit", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const json = {
        title: "t".repeat(512),
        impact: "i".repeat(1024),
        project: `${"A".repeat(30)}az09._-${"z".repeat(27)}`,
        type: "T".repeat(64),
        body: "b".repeat(65_536),
      };
      expect(json.project.length).toBe(64);
      const { entry } = await expectOk(await postJson(app, apiKey, json), 201, entryAnswer);
      expect(entry).toMatchObject(json);
      expect(await entryCount(app, apiKey)).toBe(1);
    }));

  it("refuses malformed JSON with 400 invalid_request and stores nothing", () =>
    withApp(async (app) => {
      const { apiKey } = await teamWithOneEntry(app);
      for (const body of ['{"title":', '{"title": "t",}', "{title: 't'}", "", "nul"]) {
        await expectError(
          await app.request("/v1/entries", {
            method: "POST",
            token: apiKey,
            headers: { "content-type": "application/json" },
            body,
          }),
          400,
          "invalid_request",
        );
      }
      expect(await entryCount(app, apiKey)).toBe(1);
    }));
});

describe("POST /v1/entries content types", () => {
  it.each([
    "text/plain",
    "text/markdown",
    "application/xml",
    "application/x-www-form-urlencoded",
    "application/octet-stream",
  ])("refuses %s with 415 unsupported_media_type and stores nothing", (contentType) =>
    withApp(async (app) => {
      const { apiKey } = await teamWithOneEntry(app);
      const res = await app.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        headers: { "content-type": contentType },
        body: '{"title":"Looks like JSON"}',
      });
      await expectError(res, 415, "unsupported_media_type");
      expect(await entryCount(app, apiKey)).toBe(1);
    }),
  );

  it("refuses no content type and multipart with 415, and stores nothing", () =>
    withApp(async (app) => {
      const { apiKey } = await teamWithOneEntry(app);
      await expectError(
        await app.request("/v1/entries", {
          method: "POST",
          token: apiKey,
          body: new TextEncoder().encode('{"title":"Looks like JSON"}'),
        }),
        415,
        "unsupported_media_type",
      );
      const form = new FormData();
      form.append("title", "A form title");
      await expectError(
        await app.request("/v1/entries", { method: "POST", token: apiKey, body: form }),
        415,
        "unsupported_media_type",
      );
      expect(await entryCount(app, apiKey)).toBe(1);
    }));
});

describe("unknown entry ids", () => {
  it("answers 404 not_found to GET and DELETE of an id that does not exist", () =>
    withApp(async (app) => {
      const { apiKey } = await teamWithOneEntry(app);
      for (const id of ["exxxxxxxxxxxxxxxx", "nope", "e".repeat(300)]) {
        await expectError(await app.request(`/v1/entries/${id}`, { token: apiKey }), 404, "not_found");
        await expectError(
          await app.request(`/v1/entries/${id}`, { method: "DELETE", token: apiKey }),
          404,
          "not_found",
        );
      }
      expect(await entryCount(app, apiKey)).toBe(1);
    }));

  it("logs no change for a DELETE that found nothing", () =>
    withApp(async (app) => {
      const { apiKey, teamId } = await makeTeam(app);
      const { entry } = await expectOk(await postJson(app, apiKey, { title: "Kept" }), 201, entryAnswer);
      const seq = await app.storage.changes.latestSeq(teamId);
      expect(seq).toBeGreaterThan(0);
      await expectError(
        await app.request("/v1/entries/exxxxxxxxxxxxxxxx", { method: "DELETE", token: apiKey }),
        404,
        "not_found",
      );
      expect(await app.storage.changes.latestSeq(teamId)).toBe(seq);
      await expectOk(await app.request(`/v1/entries/${entry.id}`, { token: apiKey }), 200, entryAnswer);
    }));

  it("answers 204 to the first DELETE of an entry and 404 to the second", () =>
    withApp(async (app) => {
      const { apiKey, id } = await teamWithOneEntry(app);
      await expectNoContent(await app.request(`/v1/entries/${id}`, { method: "DELETE", token: apiKey }));
      await expectError(
        await app.request(`/v1/entries/${id}`, { method: "DELETE", token: apiKey }),
        404,
        "not_found",
      );
      expect(await entryCount(app, apiKey)).toBe(0);
    }));
});

describe("GET /v1/entries query errors", () => {
  it.each(["0", "201", "abc", "-1", "1.5", "", "1e2", " 5"])(
    "refuses limit=%j with 400 invalid_request",
    (limit) =>
      withApp(async (app) => {
        const { apiKey } = await teamWithOneEntry(app);
        await expectError(
          await app.request(`/v1/entries?${new URLSearchParams({ limit })}`, { token: apiKey }),
          400,
          "invalid_request",
        );
      }),
  );

  it.each(["abc", "!!!!", "eyJ4IjoxfQ", "W10", "W1wiYVwiXQ", "bnVsbA", "%%%"])(
    "refuses cursor=%j with 400 invalid_request",
    (cursor) =>
      withApp(async (app) => {
        const { apiKey } = await teamWithOneEntry(app);
        await expectError(
          await app.request(`/v1/entries?${new URLSearchParams({ cursor })}`, { token: apiKey }),
          400,
          "invalid_request",
        );
      }),
  );

  it.each(["a b", "p".repeat(65), "ü", ""])("refuses project=%j with 400 invalid_request", (project) =>
    withApp(async (app) => {
      const { apiKey } = await teamWithOneEntry(app);
      await expectError(
        await app.request(`/v1/entries?${new URLSearchParams({ project })}`, { token: apiKey }),
        400,
        "invalid_request",
      );
    }),
  );
});
