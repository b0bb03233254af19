// A bad row is reported, not contagious: one sealed row that does not open (copied in from another team,
// altered behind memoria's back) leaves the rest of its team's listings, searches and working memory
// answering, and is counted in each answer — never an empty answer that hides it. Asked for by id, it is
// still 500 `unreadable`.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createLogger } from "../../src/logger.js";
import { documentListAnswer } from "../../src/routes/documents.js";
import { entryAnswer, entrySchema, memoryAnswer, searchAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { teamsAnswer } from "../../src/routes/teams.js";
import { ADMIN_TOKEN, addDocument, CRON_TOKEN, makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

const entryListAnswer = z.object({
  entries: z.array(entrySchema),
  unreadable: z.number().int(),
  nextCursor: z.string().nullable(),
});

const searchFor = async (app: TestApp, apiKey: string, q: string) =>
  expectOk(await app.request(`/v1/search?q=${encodeURIComponent(q)}`, { token: apiKey }), 200, searchAnswer);
const statsOf = async (app: TestApp, apiKey: string) =>
  expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer);

async function addEntry(app: TestApp, apiKey: string, title: string) {
  const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json: { title } });
  return (await expectOk(res, 201, entryAnswer)).entry;
}

/** Team A's secret document and entry, and team B's three of each, the middle ones about to go bad. */
async function twoTeams(app: TestApp) {
  const a = await makeTeam(app, "A");
  const b = await makeTeam(app, "B");
  const secretDoc = await addDocument(app, a.apiKey, {
    title: "Capybara plan",
    content: "The capybara ledger.",
  });
  const secretEntry = await addEntry(app, a.apiKey, "Capybara decision ledger");
  const docs = [];
  for (const word of ["okapi", "tapir", "quokka"]) {
    docs.push(await addDocument(app, b.apiKey, { title: `${word} notes`, content: `The ${word} ledger.` }));
  }
  const entries = [];
  for (const word of ["okapi", "tapir", "quokka"])
    entries.push(await addEntry(app, b.apiKey, `${word} ledger`));
  return { a, b, secretDoc, secretEntry, docs, entries };
}

async function copyDocumentOnto(app: TestApp, from: string, onto: string) {
  await app.storage.client.execute({
    sql: "UPDATE documents SET sealed = (SELECT sealed FROM documents WHERE id = ?) WHERE id = ?",
    args: [from, onto],
  });
  await app.storage.client.execute({
    sql: `UPDATE chunks SET sealed = (SELECT sealed FROM chunks WHERE document_id = ? AND first_ordinal = 0)
          WHERE document_id = ? AND first_ordinal = 0`,
    args: [from, onto],
  });
}

describe("a bad row is reported, not contagious", () => {
  it("a document copied in from another team: listed as unreadable, left out of search, 500 by id", async () => {
    const lines: string[] = [];
    await withApp(
      async (app) => {
        const { a, b, secretDoc, docs } = await twoTeams(app);
        const [okapi, bad, quokka] = docs as [(typeof docs)[0], (typeof docs)[0], (typeof docs)[0]];
        await copyDocumentOnto(app, secretDoc.id, bad.id);

        const listed = await app.request("/v1/documents", { token: b.apiKey });
        const listText = await listed.clone().text();
        const list = await expectOk(listed, 200, documentListAnswer);
        expect(list.documents.map((d) => d.id).sort()).toEqual([okapi.id, quokka.id].sort());
        expect(list.unreadable).toBe(1);
        expect(listText).not.toContain("apybara");

        const got = await expectError(
          await app.request(`/v1/documents/${bad.id}`, { token: b.apiKey }),
          500,
          "unreadable",
        );
        expect(got.error.message).not.toContain("apybara");

        // The index is built now, from rows one of which does not open.
        const found = await searchFor(app, b.apiKey, "ledger");
        expect(new Set(found.hits.map((h) => h.documentId))).toEqual(new Set([okapi.id, quokka.id]));
        expect(found.corpus).toEqual({ documents: 2, chunks: okapi.chunks + quokka.chunks, unreadable: 1 });
        expect((await searchFor(app, b.apiKey, "capybara")).hits).toEqual([]);
        expect((await searchFor(app, b.apiKey, "tapir")).hits).toEqual([]);

        const stats = await statsOf(app, b.apiKey);
        expect(stats.documents).toBe(3);
        expect(stats.unreadable).toEqual({ documents: 1, entries: 0 });
        expect(app.memoria.indexes.unreadableCounts(b.teamId)).toEqual({ documents: 1, entries: 0 });
        // And to whoever watches the instance: a metric by kind, never by team.
        const metrics = await (await app.request("/metrics", { token: ADMIN_TOKEN })).text();
        expect(metrics).toContain('memoria_index_unreadable_rows{kind="documents"} 1');
        expect(metrics).toContain('memoria_index_unreadable_rows{kind="entries"} 0');

        // The other team is untouched.
        const theirs = await expectOk(
          await app.request("/v1/documents", { token: a.apiKey }),
          200,
          documentListAnswer,
        );
        expect(theirs).toMatchObject({ unreadable: 0 });
        expect((await searchFor(app, a.apiKey, "capybara")).corpus.unreadable).toBe(0);

        // The reindex ping finds the index level (the bad row accounted for), so it does not rebuild.
        const ping = await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN });
        const report = ((await ping.json()) as { teams: { teamId: string }[] }).teams.find(
          (t) => t.teamId === b.teamId,
        );
        expect(report).toMatchObject({ rebuilt: false, unreadable: { documents: 1, entries: 0 } });

        // Replacing the bad document heals it: it is searchable again and no longer counted.
        const fixed = await app.request(`/v1/documents/${bad.id}`, {
          method: "PUT",
          token: b.apiKey,
          json: { title: "tapir notes", content: "The tapir ledger, restored." },
        });
        expect(fixed.status).toBe(200);
        const healed = await searchFor(app, b.apiKey, "tapir");
        expect(healed.hits.map((h) => h.documentId)).toEqual([bad.id]);
        expect(healed.corpus.unreadable).toBe(0);
        const relisted = await expectOk(
          await app.request("/v1/documents", { token: b.apiKey }),
          200,
          documentListAnswer,
        );
        expect(relisted).toMatchObject({ unreadable: 0 });
        expect(relisted.documents).toHaveLength(3);
      },
      { logger: createLogger("debug", (line) => lines.push(line)) },
    );
    // The build said so, with counts only.
    const warned = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.message === "index left out rows that did not open");
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: "warn", documents: 1, entries: 0 });
    expect(lines.join("\n")).not.toMatch(/apybara|tapir|okapi|quokka/);
  });

  it("a document that stops opening after the index was built is taken out of it on the next catch-up", () =>
    withApp(
      async (app) => {
        const { b, secretDoc, docs } = await twoTeams(app);
        const bad = docs[1] as (typeof docs)[0];
        expect((await searchFor(app, b.apiKey, "tapir")).hits.map((h) => h.documentId)).toEqual([bad.id]);
        await copyDocumentOnto(app, secretDoc.id, bad.id);
        // A change record for it, as another instance's write of it would leave.
        await app.storage.client.execute({
          sql: `INSERT INTO changes (team_id, seq, kind, entity_id, at)
                SELECT team_id, MAX(seq) + 1, 'document.put', ?, '2026-01-01T00:00:00.000Z' FROM changes WHERE team_id = ?`,
          args: [bad.id, b.teamId],
        });
        const after = await searchFor(app, b.apiKey, "ledger");
        expect(after.hits.map((h) => h.documentId)).not.toContain(bad.id);
        expect(after.corpus).toMatchObject({ documents: 2, unreadable: 1 });
        expect((await statsOf(app, b.apiKey)).unreadable).toEqual({ documents: 1, entries: 0 });
      },
      { config: { catchupMs: 0 } },
    ));

  it("an entry copied in from another team: listed as unreadable, left out of working memory, 500 by id", () =>
    withApp(async (app) => {
      const { b, secretEntry, entries } = await twoTeams(app);
      const bad = entries[1] as (typeof entries)[0];
      await app.storage.client.execute({
        sql: "UPDATE entries SET sealed = (SELECT sealed FROM entries WHERE id = ?) WHERE id = ?",
        args: [secretEntry.id, bad.id],
      });

      const listed = await app.request("/v1/entries", { token: b.apiKey });
      const listText = await listed.clone().text();
      const list = await expectOk(listed, 200, entryListAnswer);
      expect(list.entries.map((e) => e.id).sort()).toEqual(
        entries
          .filter((e) => e.id !== bad.id)
          .map((e) => e.id)
          .sort(),
      );
      expect(list.unreadable).toBe(1);
      expect(listText).not.toContain("apybara");
      await expectError(await app.request(`/v1/entries/${bad.id}`, { token: b.apiKey }), 500, "unreadable");

      const memory = await expectOk(
        await app.request("/v1/memory?q=ledger", { token: b.apiKey }),
        200,
        memoryAnswer,
      );
      expect(memory.candidates).toBe(2);
      expect(memory.items.map((i) => i.id)).not.toContain(bad.id);
      expect(memory.text).not.toContain("apybara");

      const stats = await statsOf(app, b.apiKey);
      expect(stats.entries).toBe(3);
      expect(stats.unreadable).toEqual({ documents: 0, entries: 1 });
      expect((await searchFor(app, b.apiKey, "ledger")).corpus.unreadable).toBe(0);
    }));

  it("GET /v1/teams answers the teams that open and counts the one whose wrapped key was swapped", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "Alpha");
      const b = await makeTeam(app, "Bravo");
      const c = await makeTeam(app, "Charlie");
      await app.storage.client.execute({
        sql: "UPDATE teams SET wrapped_key = (SELECT wrapped_key FROM teams WHERE id = ?) WHERE id = ?",
        args: [a.teamId, b.teamId],
      });
      const answer = await expectOk(await app.request("/v1/teams", { token: ADMIN_TOKEN }), 200, teamsAnswer);
      expect(answer.teams.map((t) => t.name).sort()).toEqual(["Alpha", "Charlie"]);
      expect(answer.teams.map((t) => t.id)).not.toContain(b.teamId);
      expect(answer.unreadable).toBe(1);
      // The team itself is refused loudly, not served as empty.
      await expectError(await app.request("/v1/documents", { token: b.apiKey }), 500, "unreadable");
      expect((await app.request("/v1/documents", { token: c.apiKey })).status).toBe(200);
    }));

  it("answers unreadable 0 when every row opens, and null stats before the index has read anything", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "Fine", content: "fine" });
      expect((await statsOf(app, apiKey)).unreadable).toBeNull();
      const list = await expectOk(
        await app.request("/v1/documents", { token: apiKey }),
        200,
        documentListAnswer,
      );
      expect(list.unreadable).toBe(0);
      expect(
        (await expectOk(await app.request("/v1/teams", { token: ADMIN_TOKEN }), 200, teamsAnswer)).unreadable,
      ).toBe(0);
      await searchFor(app, apiKey, "fine");
      expect((await statsOf(app, apiKey)).unreadable).toEqual({ documents: 0, entries: 0 });
    }));
});
