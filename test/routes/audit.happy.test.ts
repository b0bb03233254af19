// GET /v1/audit, happy paths: every change made with a key is one event naming the key (by its name now), the
// action and the row, newest first; the admin token's key routes are events too; pages follow one another
// without a gap or a repeat. Documents are real READMEs from node_modules.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditAnswer } from "../../src/routes/audit.js";
import { batchAnswer, documentAnswer } from "../../src/routes/documents.js";
import { ADMIN_TOKEN, addDocument, makeTeam } from "../support/app.js";
import { auditOf, brief, changesSinceMade } from "../support/audit.js";
import { packageReadmes } from "../support/export.js";
import { makeKey } from "../support/keys.js";
import { NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";
import { expectNoContent, expectOk, tickingClock, withApp } from "./contract.js";

let notion: NotionDouble;
beforeAll(async () => {
  notion = await NotionDouble.start();
});
afterAll(() => notion.close());

describe("GET /v1/audit", () => {
  it("records every change made with a key, newest first, naming the key, the action and the row", () =>
    withApp(
      async (app) => {
        const { teamId, apiKey: owner } = await makeTeam(app);
        const agent = await makeKey(app, owner, "write", { name: "CI agent" });
        const [first, second, third] = packageReadmes(3);
        if (!first || !second || !third) throw new Error("too few READMEs in node_modules");

        const created = await expectOk(
          await app.request("/v1/documents", {
            method: "POST",
            token: agent.apiKey,
            json: { title: first.name, content: first.content, externalId: "readme-1" },
          }),
          201,
          documentAnswer,
        );
        const docId = created.document.id;
        await expectOk(
          await app.request(`/v1/documents/${docId}`, {
            method: "PUT",
            token: agent.apiKey,
            json: { title: first.name, content: `${first.content}\n\nEdited.`, externalId: "readme-1" },
          }),
          200,
          documentAnswer,
        );
        const batch = await expectOk(
          await app.request("/v1/documents/batch", {
            method: "POST",
            token: agent.apiKey,
            json: {
              documents: [
                { title: second.name, content: second.content },
                { title: first.name, content: third.content, externalId: "readme-1" },
                { title: "", content: "" },
              ],
            },
          }),
          200,
          batchAnswer,
        );
        const batchNew =
          batch.results[0] && "document" in batch.results[0] ? batch.results[0].document.id : "";
        const entry = (await (
          await app.request("/v1/entries", {
            method: "POST",
            token: agent.apiKey,
            json: { title: "Keep the audit trail sealed.", type: "decision" },
          })
        ).json()) as { entry: { id: string } };

        await expectNoContent(
          await app.request(`/v1/documents/${batchNew}`, { method: "DELETE", token: owner }),
        );
        await expectNoContent(
          await app.request(`/v1/entries/${entry.entry.id}`, { method: "DELETE", token: owner }),
        );
        const exported = await app.request("/v1/export", { token: owner });
        const ndjson = await exported.text();
        expect(exported.status).toBe(200);
        const imported = await app.request("/v1/import", {
          method: "POST",
          token: owner,
          headers: { "content-type": "application/x-ndjson" },
          body: ndjson,
        });
        expect(imported.status).toBe(200);
        const reader = await makeKey(app, owner, "read", { name: "Dashboard" });
        await expectNoContent(
          await app.request(`/v1/keys/${reader.keyId}`, { method: "DELETE", token: owner }),
        );
        await app.request("/v1/sources/webhook", { method: "PUT", token: owner });
        await app.request("/v1/sources/webhook", { method: "DELETE", token: owner });
        await app.request("/v1/sources/notion", {
          method: "PUT",
          token: owner,
          json: { token: NOTION_DOUBLE_TOKEN },
        });
        await app.request("/v1/sources/notion", { method: "DELETE", token: owner });
        const byAdmin = (await (
          await app.request(`/v1/teams/${teamId}/keys`, { method: "POST", token: ADMIN_TOKEN })
        ).json()) as { keyId: string };
        await app.request(`/v1/teams/${teamId}/keys/${byAdmin.keyId}`, {
          method: "DELETE",
          token: ADMIN_TOKEN,
        });

        const events = await auditOf(app, owner);
        // The team's first key has no name: its events say `key`. The two oldest are the team's making.
        expect(events.slice(0, -2).map(brief)).toEqual(
          [
            { who: "key", action: "key.made", target: `key ${agent.keyId}` },
            { who: "CI agent", action: "document.created", target: `document ${docId}` },
            { who: "CI agent", action: "document.replaced", target: `document ${docId}` },
            // A batch's stored documents, in its order; the item that failed is no event.
            { who: "CI agent", action: "document.created", target: `document ${batchNew}` },
            { who: "CI agent", action: "document.replaced", target: `document ${docId}` },
            { who: "CI agent", action: "entry.remembered", target: `entry ${entry.entry.id}` },
            { who: "key", action: "document.deleted", target: `document ${batchNew}` },
            { who: "key", action: "entry.forgotten", target: `entry ${entry.entry.id}` },
            { who: "key", action: "export", target: null },
            { who: "key", action: "import", target: null },
            { who: "key", action: "key.made", target: `key ${reader.keyId}` },
            { who: "key", action: "key.revoked", target: `key ${reader.keyId}` },
            { who: "key", action: "source.set", target: "source webhook" },
            { who: "key", action: "source.removed", target: "source webhook" },
            { who: "key", action: "source.set", target: "source notion" },
            { who: "key", action: "source.removed", target: "source notion" },
            { who: "admin", action: "key.made", target: `key ${byAdmin.keyId}` },
            { who: "admin", action: "key.revoked", target: `key ${byAdmin.keyId}` },
          ].reverse(),
        );
        const agentEvent = events.find((event) => event.actor.name === "CI agent");
        expect(agentEvent?.actor).toEqual({ kind: "key", id: agent.keyId, name: "CI agent" });
        expect(events.at(0)?.actor).toEqual({ kind: "admin", id: "admin-token", name: null });
        // Newest first, by the time each was recorded.
        const times = events.map((event) => Date.parse(event.at));
        expect([...times].sort((a, b) => b - a)).toEqual(times);
      },
      { clock: tickingClock(), config: { notionApiUrl: notion.url } },
    ));

  it("records nothing for reading, and nothing for a change that did not happen", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await app.request("/v1/search?q=anything", { token: apiKey });
      await app.request("/v1/documents", { token: apiKey });
      await app.request("/v1/keys", { token: apiKey });
      await app.request("/v1/stats", { token: apiKey });
      await app.request("/v1/memory", { token: apiKey });
      // A delete of nothing is 404, a replace of nothing too: neither is an event.
      await app.request("/v1/documents/dnosuchdocument00", { method: "DELETE", token: apiKey });
      await app.request("/v1/documents/dnosuchdocument00", {
        method: "PUT",
        token: apiKey,
        json: { title: "t", content: "c" },
      });
      // A read key's refused delete neither.
      const reader = await makeKey(app, apiKey, "read", { name: "reader" });
      await app.request("/v1/entries/enosuchentry00000", { method: "DELETE", token: reader.apiKey });
      expect(await changesSinceMade(app, apiKey)).toEqual([
        { who: "key", action: "key.made", target: `key ${reader.keyId}` },
      ]);
    }));

  it("pages newest first without a gap or a repeat", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const made: string[] = [];
        for (let i = 0; i < 7; i++)
          made.push((await makeKey(app, apiKey, "read", { name: `key ${i}` })).keyId);
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const query: string = `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
          const answer = await expectOk(
            await app.request(`/v1/audit${query}`, { token: apiKey }),
            200,
            auditAnswer,
          );
          expect(answer.events.length).toBeLessThanOrEqual(3);
          seen.push(...answer.events.map((event) => event.target?.id ?? ""));
          cursor = answer.nextCursor;
          pages++;
        } while (cursor !== null && pages < 10);
        // Seven keys, the team's first and its first owner's invite, three a page; the last page says there
        // is none after it.
        expect(seen.slice(0, -2)).toEqual([...made].reverse());
        expect(seen).toHaveLength(9);
        expect(pages).toBe(3);
      },
      { clock: tickingClock() },
    ));

  it("keeps one team's trail from another's", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await makeKey(app, a.apiKey, "read", { name: "A's key" });
      expect(await changesSinceMade(app, b.apiKey)).toEqual([]);
      expect(await changesSinceMade(app, a.apiKey)).toHaveLength(1);
    }));

  it("records only what happened: a second revoke, a source that was not set, a refused import, a HEAD", () =>
    withApp(
      async (app) => {
        const { teamId, apiKey } = await makeTeam(app);
        const reader = await makeKey(app, apiKey, "read");
        for (let i = 0; i < 2; i++) {
          await expectNoContent(
            await app.request(`/v1/keys/${reader.keyId}`, { method: "DELETE", token: apiKey }),
          );
        }
        await expectNoContent(
          await app.request(`/v1/teams/${teamId}/keys/${reader.keyId}`, {
            method: "DELETE",
            token: ADMIN_TOKEN,
          }),
        );
        await expectNoContent(await app.request("/v1/sources/webhook", { method: "DELETE", token: apiKey }));
        await expectNoContent(await app.request("/v1/sources/notion", { method: "DELETE", token: apiKey }));
        const importing = (body: string) =>
          app.request("/v1/import", {
            method: "POST",
            token: apiKey,
            headers: { "content-type": "application/x-ndjson" },
            body,
          });
        // Refused at its first line: nothing applied, no event.
        expect((await importing('{"not": "a header"}\n')).status).toBe(400);
        const head = await app.request("/v1/export", { method: "HEAD", token: apiKey });
        expect(head.status).toBe(200);
        expect(await changesSinceMade(app, apiKey)).toEqual([
          { who: "key", action: "key.revoked", target: `key ${reader.keyId}` },
          { who: "key", action: "key.made", target: `key ${reader.keyId}` },
        ]);

        // Refused at its end (no end line) after its document was applied: an event, as the team changed.
        const [readme] = packageReadmes(1);
        await addDocument(app, apiKey, { title: readme?.name ?? "a", content: readme?.content ?? "a" });
        const exported = (await (await app.request("/v1/export", { token: apiKey })).text())
          .trimEnd()
          .split("\n");
        await app.request(`/v1/documents/${JSON.parse(exported[1] ?? "{}").document.id}`, {
          method: "DELETE",
          token: apiKey,
        });
        expect((await importing(`${exported.slice(0, -1).join("\n")}\n`)).status).toBe(400);
        expect((await changesSinceMade(app, apiKey)).slice(0, 4).map((e) => e.action)).toEqual([
          "import",
          "document.deleted",
          "export",
          "document.created",
        ]);
      },
      { clock: tickingClock() },
    ));

  it("keeps a batch's events in its order, whichever document's seals finish first", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      // Real READMEs of very different sizes, on the real clock: the small ones are ready first.
      const readmes = packageReadmes(40, 64 * 1024);
      const answer = await expectOk(
        await app.request("/v1/documents/batch", {
          method: "POST",
          token: apiKey,
          json: { documents: readmes.map((r) => ({ title: r.name, content: r.content })) },
        }),
        200,
        batchAnswer,
      );
      const stored = answer.results.flatMap((r) => ("document" in r ? [r.document.id] : []));
      expect(stored.length).toBeGreaterThan(20);
      const trail = await changesSinceMade(app, apiKey, "?limit=200");
      expect(trail.map((e) => e.target)).toEqual(stored.map((id) => `document ${id}`).reverse());
    }));

  it("keeps a batch's order across its transactions, on a clock that never moves", () => {
    // The clock stops after the team is made: every moment of the batch is the same instant.
    let stopped: Date | null = null;
    return withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        stopped = new Date(Date.now() + 1000);
        // An externalId a batch already holds ends its group: these six items are three transactions.
        const items = ["x", null, "x", "y", "x", null].map((externalId, i) => ({
          title: `Item ${i}`,
          content: `Item ${i} of the batch.`,
          ...(externalId ? { externalId } : {}),
        }));
        const answer = await expectOk(
          await app.request("/v1/documents/batch", {
            method: "POST",
            token: apiKey,
            json: { documents: items },
          }),
          200,
          batchAnswer,
        );
        const ids = answer.results.map((r) => ("document" in r ? r.document.id : ""));
        const expected = ids.map((id, i) => ({
          who: "key",
          action: i === 2 || i === 4 ? "document.replaced" : "document.created",
          target: `document ${id}`,
        }));
        expect(await changesSinceMade(app, apiKey)).toEqual(expected.reverse());
      },
      { clock: { now: () => stopped ?? new Date() } },
    );
  });

  it("records one revoke once, however many ask for it at the same moment", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const reader = await makeKey(app, apiKey, "read");
      const answers = await Promise.all([
        app.request(`/v1/keys/${reader.keyId}`, { method: "DELETE", token: apiKey }),
        app.request(`/v1/keys/${reader.keyId}`, { method: "DELETE", token: apiKey }),
        app.request(`/v1/teams/${teamId}/keys/${reader.keyId}`, { method: "DELETE", token: ADMIN_TOKEN }),
      ]);
      expect(answers.map((res) => res.status)).toEqual([204, 204, 204]);
      const revoked = (await changesSinceMade(app, apiKey)).filter((e) => e.action === "key.revoked");
      expect(revoked).toHaveLength(1);
      const keys = (await (await app.request("/v1/keys", { token: apiKey })).json()) as {
        keyId: string;
        revokedAt: string | null;
      }[];
      expect(keys.find((k) => k.keyId === reader.keyId)?.revokedAt).not.toBeNull();
    }));

  it("says there is no older page when the last page is exactly full", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await makeKey(app, apiKey, "read");
      await makeKey(app, apiKey, "read");
      // Two keys made, and the team's making: its first key and its first owner's invite.
      const page = await expectOk(
        await app.request("/v1/audit?limit=4", { token: apiKey }),
        200,
        auditAnswer,
      );
      expect(page.events).toHaveLength(4);
      expect(page.nextCursor).toBeNull();
    }));
});
