// A table cut into ranges ahead of time (chunkRunPageStarts / chunkRunsBetween, pageStarts / between), on a
// real libSQL database: the ranges over the starts, read in turn, are the team's rows in key order, each once,
// for every page size; page boundaries fall inside documents of several chunk runs and among entries written
// at the same instant (a tie on created_at, broken by id).

import { afterEach, describe, expect, it } from "vitest";
import { addDocument, buildTestApp, makeTeam, type TestApp } from "../support/app.js";

const apps: TestApp[] = [];
afterEach(() => {
  for (const app of apps.splice(0)) app.close();
});

/** ~100 KB of words: several chunk runs of at most 32 KB of text each. */
function longText(seed: number): string {
  const words = ["okapi", "savanna", "acacia", "giraffe", "baobab", "termite", "zebra", "heron"];
  return Array.from({ length: 40 }, (_, s) => {
    const body = Array.from({ length: 400 }, (_, w) => words[(seed + s * 7 + w) % words.length]).join(" ");
    return `## Section ${s}\n\n${body}.`;
  }).join("\n\n");
}

async function team() {
  const instant = new Date("2026-12-06T12:00:00Z");
  const app = await buildTestApp({ clock: { now: () => instant } });
  apps.push(app);
  const { apiKey } = await makeTeam(app);
  const key = await app.memoria.directory.authenticate(apiKey);
  if (!key) throw new Error("the API key did not authenticate");
  return { app, apiKey, teamId: key.teamId };
}

describe("chunk run ranges", () => {
  it("cover every run once, in order, for page sizes 1 to 7, across documents of several runs", async () => {
    const { app, apiKey, teamId } = await team();
    for (let i = 0; i < 3; i++) await addDocument(app, apiKey, { title: `Long ${i}`, content: longText(i) });
    for (let i = 0; i < 4; i++)
      await addDocument(app, apiKey, { title: `Short ${i}`, content: `Note ${i}.` });
    const all = await app.storage.client.execute({
      sql: "SELECT document_id, first_ordinal FROM chunks WHERE team_id = ? ORDER BY document_id, first_ordinal",
      args: [teamId],
    });
    const expected = all.rows.map((row) => `${row.document_id}:${row.first_ordinal}`);
    // The long documents hold several runs each, so boundaries fall inside them.
    expect(expected.length).toBeGreaterThanOrEqual(3 * 3 + 4);
    for (let pageRows = 1; pageRows <= 7; pageRows++) {
      const starts = await app.storage.documents.chunkRunPageStarts(teamId, pageRows);
      expect(starts.length).toBe(Math.ceil(expected.length / pageRows));
      const read: string[] = [];
      for (const [i, from] of starts.entries()) {
        const before = starts[i + 1] ?? null;
        const rows = await app.storage.documents.chunkRunsBetween(
          teamId,
          { from, fromIncluded: true, before },
          100,
        );
        expect(rows.length).toBe(before ? pageRows : expected.length - pageRows * i);
        read.push(...rows.map((row) => `${row.documentId}:${row.firstOrdinal}`));
      }
      expect(read).toEqual(expected);
    }
  });

  it("go on past a key, not from it, and stop at the limit", async () => {
    const { app, apiKey, teamId } = await team();
    await addDocument(app, apiKey, { title: "Long", content: longText(0) });
    const [first] = await app.storage.documents.chunkRunPageStarts(teamId, 100);
    if (!first) throw new Error("no runs");
    const whole = await app.storage.documents.chunkRunsBetween(
      teamId,
      { from: first, fromIncluded: true, before: null },
      100,
    );
    expect(whole.length).toBeGreaterThanOrEqual(3);
    const two = await app.storage.documents.chunkRunsBetween(
      teamId,
      { from: first, fromIncluded: true, before: null },
      2,
    );
    expect(two.map((row) => row.firstOrdinal)).toEqual(whole.slice(0, 2).map((row) => row.firstOrdinal));
    const past = await app.storage.documents.chunkRunsBetween(
      teamId,
      { from: first, fromIncluded: false, before: null },
      100,
    );
    expect(past.map((row) => row.firstOrdinal)).toEqual(whole.slice(1).map((row) => row.firstOrdinal));
  });
});

describe("entry ranges", () => {
  it("cover every entry once, oldest first, for page sizes 1 to 7, with every created_at tied", async () => {
    const { app, apiKey, teamId } = await team();
    for (let i = 0; i < 11; i++) {
      const res = await app.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        json: { title: `fact ${i}` },
      });
      expect(res.status).toBe(201);
    }
    const all = await app.storage.client.execute({
      sql: "SELECT created_at, id FROM entries WHERE team_id = ? ORDER BY created_at, id",
      args: [teamId],
    });
    expect(new Set(all.rows.map((row) => row.created_at)).size).toBe(1);
    const expected = all.rows.map((row) => String(row.id));
    for (let pageRows = 1; pageRows <= 7; pageRows++) {
      const starts = await app.storage.entries.pageStarts(teamId, pageRows);
      expect(starts.length).toBe(Math.ceil(11 / pageRows));
      const read: string[] = [];
      for (const [i, from] of starts.entries()) {
        const before = starts[i + 1] ?? null;
        const rows = await app.storage.entries.between(teamId, { from, fromIncluded: true, before }, 100);
        expect(rows.length).toBe(before ? pageRows : 11 - pageRows * i);
        read.push(...rows.map((row) => row.id));
      }
      expect(read).toEqual(expected);
    }
  });
});
