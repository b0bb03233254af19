// Idempotency-Key on the write routes, over the real app and storage: a retry answers what the first try did
// and stores nothing again; another body with the same key is 422; keys expire after 24 hours and go with
// their team.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { documentAnswer } from "../../src/routes/documents.js";
import { documentSchema, entryAnswer, entrySchema } from "../../src/routes/schemas.js";
import { expectError, expectNoContent, expectOk, withApp } from "../routes/contract.js";
import { ADMIN_TOKEN, makeTeam, type TestApp } from "../support/app.js";

const listOf = {
  documents: z.object({ documents: z.array(documentSchema), nextCursor: z.string().nullable() }),
  entries: z.object({ entries: z.array(entrySchema), nextCursor: z.string().nullable() }),
};

function post(app: TestApp, apiKey: string, path: string, json: unknown, key?: string): Promise<Response> {
  return app.request(path, {
    method: "POST",
    token: apiKey,
    json,
    ...(key === undefined ? {} : { headers: { "idempotency-key": key } }),
  });
}

async function documentCount(app: TestApp, apiKey: string): Promise<number> {
  const res = await app.request("/v1/documents?limit=200", { token: apiKey });
  return (await expectOk(res, 200, listOf.documents)).documents.length;
}

async function entryCount(app: TestApp, apiKey: string): Promise<number> {
  const res = await app.request("/v1/entries?limit=200", { token: apiKey });
  return (await expectOk(res, 200, listOf.entries)).entries.length;
}

async function storedKeys(app: TestApp, teamId?: string): Promise<number> {
  const rs = await app.storage.client.execute({
    sql: `SELECT COUNT(*) AS n FROM idempotency_keys${teamId ? " WHERE team_id = ?" : ""}`,
    args: teamId ? [teamId] : [],
  });
  return Number(rs.rows[0]?.n);
}

describe("Idempotency-Key", () => {
  it("replays a document's creation byte for byte and stores it once", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = { title: "Runbook", content: "# Restart\n\nRestart the queue worker." };
      const first = await post(app, apiKey, "/v1/documents", doc, "retry-1");
      const firstText = await first.text();
      expect(first.status).toBe(201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const again = await post(app, apiKey, "/v1/documents", doc, "retry-1");
      expect(again.status).toBe(201);
      expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await again.text()).toBe(firstText);
      documentAnswer.parse(JSON.parse(firstText));
      expect(await documentCount(app, apiKey)).toBe(1);
    }));

  it("replays an entry's creation byte for byte and stores it once", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const entry = { title: "Moved the cache to Redis", project: "api", type: "decision" };
      const first = await post(app, apiKey, "/v1/entries", entry, "entry-key");
      const firstText = await first.text();
      expect(first.status).toBe(201);
      entryAnswer.parse(JSON.parse(firstText));
      for (let i = 0; i < 3; i++) {
        const again = await post(app, apiKey, "/v1/entries", entry, "entry-key");
        expect(again.status).toBe(201);
        expect(await again.text()).toBe(firstText);
      }
      expect(await entryCount(app, apiKey)).toBe(1);
    }));

  it("answers 422 to the same key with another body, method's path or query, and stores nothing", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectOk(await post(app, apiKey, "/v1/entries", { title: "One" }, "k"), 201, entryAnswer);
      const other = await expectError(
        await post(app, apiKey, "/v1/entries", { title: "Two" }, "k"),
        422,
        "invalid_request",
      );
      expect(other.error.message).toMatch(/another request body/);
      expect(other.error.message).not.toContain("Two");
      // The same bytes with other white space are another body: the hash is of the bytes as sent.
      const spaced = await app.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "application/json", "idempotency-key": "k" },
        body: '{"title": "One"}',
      });
      await expectError(spaced, 422, "invalid_request");
      await expectError(
        await post(app, apiKey, "/v1/documents", { title: "One" }, "k"),
        422,
        "invalid_request",
      );
      expect(await entryCount(app, apiKey)).toBe(1);
      expect(await documentCount(app, apiKey)).toBe(0);

      // A raw upload's title is in its query string, which is part of the request.
      const raw = (title: string) =>
        app.request(`/v1/documents?title=${title}`, {
          method: "POST",
          token: apiKey,
          headers: { "content-type": "text/markdown", "idempotency-key": "raw" },
          body: "# Same body",
        });
      expect((await raw("First")).status).toBe(201);
      expect((await raw("First")).status).toBe(201);
      await expectError(await raw("Second"), 422, "invalid_request");
      expect(await documentCount(app, apiKey)).toBe(1);
    }));

  it("keeps keys per team: the same key in two teams is two requests", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await expectOk(await post(app, a.apiKey, "/v1/entries", { title: "A's" }, "shared"), 201, entryAnswer);
      await expectOk(await post(app, b.apiKey, "/v1/entries", { title: "B's" }, "shared"), 201, entryAnswer);
      expect(await entryCount(app, a.apiKey)).toBe(1);
      expect(await entryCount(app, b.apiKey)).toBe(1);
    }));

  it("without a key, every request is a new write", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await post(app, apiKey, "/v1/entries", { title: "Twice" });
      await post(app, apiKey, "/v1/entries", { title: "Twice" });
      expect(await entryCount(app, apiKey)).toBe(2);
      expect(await storedKeys(app)).toBe(0);
    }));

  it("refuses a key that is empty, longer than 255 characters or not printable ASCII", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const key of ["", "x".repeat(256), "caf\u00e9", "a\tb", "a\u007fb"]) {
        const res = await post(app, apiKey, "/v1/entries", { title: "Bad key" }, key);
        await expectError(res, 400, "invalid_request");
      }
      await expectOk(
        await post(app, apiKey, "/v1/entries", { title: "Long key" }, "x".repeat(255)),
        201,
        entryAnswer,
      );
      await expectOk(await post(app, apiKey, "/v1/entries", { title: "Spaced" }, "a b ~!"), 201, entryAnswer);
      expect(await entryCount(app, apiKey)).toBe(2);
    }));

  it("does not remember an error: the corrected request with the same key is run", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(
        await post(app, apiKey, "/v1/entries", { title: "" }, "fix-me"),
        400,
        "invalid_request",
      );
      expect(await storedKeys(app)).toBe(0);
      await expectOk(await post(app, apiKey, "/v1/entries", { title: "Fixed" }, "fix-me"), 201, entryAnswer);
      expect(await entryCount(app, apiKey)).toBe(1);
    }));

  it("stores once when requests with the same key arrive at the same time", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const doc = { title: "Raced", content: "Both of these arrive at once.\n".repeat(200) };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => post(app, apiKey, "/v1/documents", doc, "race")),
      );
      const texts = await Promise.all(answers.map((res) => res.text()));
      const stored = answers.flatMap((res, i) => (res.status === 201 ? [texts[i]] : []));
      expect(stored.length).toBeGreaterThan(0);
      // Every success is the one answer; every other request was told the first was still in progress.
      expect(new Set(stored).size).toBe(1);
      for (const [i, res] of answers.entries()) {
        if (res.status === 201) continue;
        expect(res.status).toBe(409);
        expect(JSON.parse(texts[i] as string).error.code).toBe("conflict");
      }
      expect(await documentCount(app, apiKey)).toBe(1);
      // Once answered, the key replays.
      const later = await post(app, apiKey, "/v1/documents", doc, "race");
      expect(await later.text()).toBe(stored[0]);
    }));

  it("forgets a key after 24 hours and prunes it", async () => {
    let now = Date.parse("2026-03-01T12:00:00.000Z");
    await withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const entry = { title: "Daily standup notes" };
        const first = await expectOk(
          await post(app, apiKey, "/v1/entries", entry, "daily"),
          201,
          entryAnswer,
        );
        now += 24 * 3600_000 - 60_000;
        const replay = await expectOk(
          await post(app, apiKey, "/v1/entries", entry, "daily"),
          201,
          entryAnswer,
        );
        expect(replay.entry.id).toBe(first.entry.id);
        now += 2 * 60_000;
        const fresh = await expectOk(
          await post(app, apiKey, "/v1/entries", entry, "daily"),
          201,
          entryAnswer,
        );
        expect(fresh.entry.id).not.toBe(first.entry.id);
        expect(await entryCount(app, apiKey)).toBe(2);
        expect(await storedKeys(app)).toBe(1);
        // Another key a day later prunes the expired one.
        now += 25 * 3600_000;
        await post(app, apiKey, "/v1/entries", { title: "Other" }, "other");
        expect(await storedKeys(app)).toBe(1);
      },
      { clock: { now: () => new Date(now) } },
    );
  });

  it("deletes a team's keys with the team", () =>
    withApp(async (app) => {
      const gone = await makeTeam(app, "Gone");
      const kept = await makeTeam(app, "Kept");
      await post(app, gone.apiKey, "/v1/entries", { title: "Bye" }, "k1");
      await post(app, gone.apiKey, "/v1/documents", { title: "Bye", content: "x" }, "k2");
      await post(app, kept.apiKey, "/v1/entries", { title: "Hi" }, "k1");
      expect(await storedKeys(app, gone.teamId)).toBe(2);
      await expectNoContent(
        await app.request(`/v1/teams/${gone.teamId}`, { method: "DELETE", token: ADMIN_TOKEN }),
      );
      expect(await storedKeys(app, gone.teamId)).toBe(0);
      expect(await storedKeys(app, kept.teamId)).toBe(1);
    }));
});
