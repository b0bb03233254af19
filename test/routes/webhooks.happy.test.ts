// The generic signed webhook, accepted deliveries: each event applied before the answer, a redelivered id
// applied once, and ids remembered for 24 hours.

import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { documentWithContentAnswer } from "../../src/routes/documents.js";
import { memoryAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { webhookAnswer, webhookSecretAnswer, webhookSourceAnswer } from "../../src/routes/webhooks.js";
import { fromBase64 } from "../../src/seal/bytes.js";
import { makeTeam, search, type TestApp } from "../support/app.js";
import { deliver, makeWebhookSecret, newDeliveryId, recordedDeliveries } from "../support/webhooks.js";
import { expectError, expectNoContent, expectOk, withApp } from "./contract.js";

async function stats(app: TestApp, apiKey: string) {
  return expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer);
}

async function setUp(app: TestApp) {
  const { teamId, apiKey } = await makeTeam(app);
  const secret = await makeWebhookSecret(app, apiKey);
  return { teamId, apiKey, secret };
}

const upsert = (externalId: string, title: string, content: string, extra: Record<string, unknown> = {}) => ({
  type: "document.upsert",
  data: { externalId, title, content, ...extra },
});

describe("PUT /v1/sources/webhook", () => {
  it("answers a whsec_ secret of 32 random bytes that the library's own signer and verifier accept", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const secret = await makeWebhookSecret(app, apiKey);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      expect(fromBase64(secret.slice("whsec_".length))?.length).toBe(32);
      const hook = new Webhook(secret);
      const at = new Date();
      const headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": hook.sign("msg_1", at, "{}"),
      };
      expect(hook.verify("{}", headers)).toEqual({});
      expect(await makeWebhookSecret(app, apiKey)).not.toBe(secret);
    }));

  it("marks the answer that carries the secret no-store", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const res = await app.request("/v1/sources/webhook", { method: "PUT", token: apiKey });
      expect(res.headers.get("cache-control")).toBe("no-store");
      await expectOk(res, 200, webhookSecretAnswer);
    }));
});

describe("GET and DELETE /v1/sources/webhook", () => {
  it("says whether a secret is set and since when, never the secret; DELETE forgets it", () =>
    withApp(
      async (app) => {
        const { teamId, apiKey } = await makeTeam(app);
        const get = async () => {
          const res = await app.request("/v1/sources/webhook", { token: apiKey });
          const text = await res.clone().text();
          return { text, body: await expectOk(res, 200, webhookSourceAnswer) };
        };
        expect((await get()).body).toEqual({
          source: { kind: "webhook", configured: false, createdAt: null },
        });

        const secret = await makeWebhookSecret(app, apiKey);
        const configured = await get();
        expect(configured.body).toEqual({
          source: { kind: "webhook", configured: true, createdAt: "2025-01-01T00:00:00.000Z" },
        });
        expect(configured.text).not.toContain(secret);
        expect(configured.text).not.toContain(secret.slice("whsec_".length));
        const event = { type: "entry.create", data: { title: "Before the delete" } };
        await expectOk(await deliver(app, teamId, secret, event), 200, webhookAnswer);

        await expectNoContent(await app.request("/v1/sources/webhook", { method: "DELETE", token: apiKey }));
        expect((await get()).body).toEqual({
          source: { kind: "webhook", configured: false, createdAt: null },
        });
        // Every delivery is then refused as having no secret, the old secret's included, and nothing is applied.
        await expectError(await deliver(app, teamId, secret, event), 401, "unauthorized");
        expect(await app.storage.sources.get(teamId, "webhook.secret")).toBeNull();
        // DELETE again is still 204; a new PUT makes a new secret that works.
        await expectNoContent(await app.request("/v1/sources/webhook", { method: "DELETE", token: apiKey }));
        const next = await makeWebhookSecret(app, apiKey);
        expect(next).not.toBe(secret);
        await expectOk(await deliver(app, teamId, next, event), 200, webhookAnswer);
      },
      { clock: { now: () => new Date("2025-01-01T00:00:00.000Z") } },
    ));

  it("needs the team's key, and one team's DELETE leaves another's secret", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const secretB = await makeWebhookSecret(app, b.apiKey);
      for (const token of [undefined, "mem_nope_nope"]) {
        const init = token ? { token } : {};
        await expectError(await app.request("/v1/sources/webhook", init), 401, "unauthorized");
        await expectError(
          await app.request("/v1/sources/webhook", { method: "DELETE", ...init }),
          401,
          "unauthorized",
        );
      }
      await expectNoContent(await app.request("/v1/sources/webhook", { method: "DELETE", token: a.apiKey }));
      const event = { type: "entry.create", data: { title: "Still signed" } };
      await expectOk(await deliver(app, b.teamId, secretB, event), 200, webhookAnswer);
    }));
});

describe("POST /v1/webhooks/ingest/{teamId}", () => {
  it("applies document.upsert before the answer: the document is searchable with its title and path", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const res = await deliver(
        app,
        teamId,
        secret,
        upsert(
          "file:handbook/onboarding.md",
          "Onboarding",
          "# Laptops\n\nEvery newcomer gets a gleamwhistle.",
          {
            path: ["Handbook", "People"],
          },
        ),
      );
      const answer = await expectOk(res, 200, webhookAnswer);
      expect(answer).toEqual({
        ok: true,
        type: "document.upsert",
        duplicate: false,
        documentId: expect.any(String),
        created: true,
      });
      const hits = (await search(app, apiKey, "gleamwhistle")).hits;
      expect(hits.map((h) => h.documentId)).toEqual([answer.documentId]);
      expect(hits[0]).toMatchObject({
        title: "Onboarding",
        heading: "Laptops",
        path: ["Handbook", "People"],
      });
      const doc = await expectOk(
        await app.request(`/v1/documents/${answer.documentId}`, { token: apiKey }),
        200,
        documentWithContentAnswer,
      );
      expect(doc.document).toMatchObject({ externalId: "file:handbook/onboarding.md", format: "markdown" });
    }));

  it("replaces the document on a second document.upsert with the same externalId: old text gone, new found", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const first = await expectOk(
        await deliver(app, teamId, secret, upsert("ext-1", "Runbook", "Restart the quillfeather daemon.")),
        200,
        webhookAnswer,
      );
      const second = await expectOk(
        await deliver(app, teamId, secret, upsert("ext-1", "Runbook", "Restart the marrowlamp daemon.")),
        200,
        webhookAnswer,
      );
      expect(second).toMatchObject({ duplicate: false, created: false, documentId: first.documentId });
      expect((await search(app, apiKey, "quillfeather")).hits).toEqual([]);
      expect((await search(app, apiKey, "marrowlamp")).hits.map((h) => h.documentId)).toEqual([
        first.documentId,
      ]);
      expect((await stats(app, apiKey)).documents).toBe(1);
    }));

  it("takes format and extra envelope fields: an html document.upsert with a timestamp field", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const res = await deliver(app, teamId, secret, {
        type: "document.upsert",
        timestamp: new Date().toISOString(),
        data: {
          externalId: "wiki:42",
          title: "Wiki page",
          content: "<h2>Pantry</h2><p>The saffronkettle is on the left.</p>",
          format: "html",
        },
      });
      const answer = await expectOk(res, 200, webhookAnswer);
      const hits = (await search(app, apiKey, "saffronkettle")).hits;
      expect(hits.map((h) => [h.documentId, h.heading])).toEqual([[answer.documentId, "Pantry"]]);
    }));

  it("deletes the document holding the externalId on document.delete: gone from search and reads", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const made = await expectOk(
        await deliver(app, teamId, secret, upsert("ext-del", "Doomed", "The brindlefox note.")),
        200,
        webhookAnswer,
      );
      const res = await deliver(app, teamId, secret, {
        type: "document.delete",
        data: { externalId: "ext-del" },
      });
      expect(await expectOk(res, 200, webhookAnswer)).toEqual({
        ok: true,
        type: "document.delete",
        duplicate: false,
        deleted: true,
      });
      expect((await search(app, apiKey, "brindlefox")).hits).toEqual([]);
      await expectError(
        await app.request(`/v1/documents/${made.documentId}`, { token: apiKey }),
        404,
        "not_found",
      );
    }));

  it("answers document.delete of an externalId no document holds with 200 and deleted false", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      await deliver(app, teamId, secret, upsert("kept", "Kept", "The lanternmoss stays."));
      const res = await deliver(app, teamId, secret, {
        type: "document.delete",
        data: { externalId: "never" },
      });
      expect(await expectOk(res, 200, webhookAnswer)).toMatchObject({ deleted: false, duplicate: false });
      expect((await search(app, apiKey, "lanternmoss")).hits).toHaveLength(1);
    }));

  it("stores entry.create as an entry that working memory shows", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const res = await deliver(app, teamId, secret, {
        type: "entry.create",
        data: {
          title: "Moved billing to the cobaltheron queue",
          impact: "Invoices go out hourly",
          project: "billing",
          type: "decision",
          body: "Longer reasoning.",
        },
      });
      const answer = await expectOk(res, 200, webhookAnswer);
      expect(answer).toEqual({
        ok: true,
        type: "entry.create",
        duplicate: false,
        entryId: expect.any(String),
      });
      const memory = await expectOk(
        await app.request("/v1/memory?q=cobaltheron", { token: apiKey }),
        200,
        memoryAnswer,
      );
      expect(memory.items.map((i) => i.id)).toEqual([answer.entryId]);
      expect(memory.text).toContain("Moved billing to the cobaltheron queue");
      expect(memory.text).toContain("Invoices go out hourly");
      const entry = (await (
        await app.request(`/v1/entries/${answer.entryId}`, { token: apiKey })
      ).json()) as {
        entry: Record<string, unknown>;
      };
      expect(entry.entry).toMatchObject({ project: "billing", type: "decision", body: "Longer reasoning." });
    }));

  it("records an entry's delivery id in the same write as the entry: one exists exactly when the other does", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      expect(await recordedDeliveries(app)).toBe(0);
      const event = { type: "entry.create", data: { title: "Written with its delivery" } };
      await expectOk(await deliver(app, teamId, secret, event), 200, webhookAnswer);
      expect(await recordedDeliveries(app)).toBe(1);
      expect((await stats(app, apiKey)).entries).toBe(1);
      // Concurrent copies of one entry delivery: one entry, one record, the rest duplicates.
      const id = newDeliveryId();
      const answers = await Promise.all(
        [1, 2, 3, 4].map(async () =>
          expectOk(await deliver(app, teamId, secret, event, { id }), 200, webhookAnswer),
        ),
      );
      expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
      expect(await recordedDeliveries(app)).toBe(2);
      expect((await stats(app, apiKey)).entries).toBe(2);
    }));

  it("answers a redelivered id with 200 and duplicate, and does nothing twice", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const id = newDeliveryId();
      const event = { type: "entry.create", data: { title: "Only once" } };
      const first = await expectOk(await deliver(app, teamId, secret, event, { id }), 200, webhookAnswer);
      expect(first.duplicate).toBe(false);
      // The same delivery again, and again signed a minute later (a sender's retry signs anew).
      const again = await expectOk(await deliver(app, teamId, secret, event, { id }), 200, webhookAnswer);
      expect(again).toEqual({ ok: true, type: "entry.create", duplicate: true });
      const later = new Date(Date.now() + 60_000);
      expect(
        (await expectOk(await deliver(app, teamId, secret, event, { id, at: later }), 200, webhookAnswer))
          .duplicate,
      ).toBe(true);
      expect((await stats(app, apiKey)).entries).toBe(1);
    }));

  it("does not redo an old delete when its id is redelivered after the document came back", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const deleteId = newDeliveryId();
      const remove = { type: "document.delete", data: { externalId: "phoenix" } };
      await deliver(app, teamId, secret, upsert("phoenix", "Phoenix", "The emberwing rises."));
      await expectOk(await deliver(app, teamId, secret, remove, { id: deleteId }), 200, webhookAnswer);
      await deliver(app, teamId, secret, upsert("phoenix", "Phoenix", "The emberwing rises again."));
      const replay = await expectOk(
        await deliver(app, teamId, secret, remove, { id: deleteId }),
        200,
        webhookAnswer,
      );
      expect(replay).toEqual({ ok: true, type: "document.delete", duplicate: true });
      expect((await search(app, apiKey, "emberwing")).hits).toHaveLength(1);
    }));

  it("applies concurrent deliveries of one id once: one applied, the others duplicates", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const id = newDeliveryId();
      const event = { type: "entry.create", data: { title: "Raced" } };
      const answers = await Promise.all(
        Array.from({ length: 5 }, async () =>
          expectOk(await deliver(app, teamId, secret, event, { id }), 200, webhookAnswer),
        ),
      );
      expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
      expect((await stats(app, apiKey)).entries).toBe(1);
    }));

  it("keeps delivery ids per team: the same id at two teams is applied at both", () =>
    withApp(async (app) => {
      const a = await setUp(app);
      const b = await setUp(app);
      const id = newDeliveryId();
      const event = { type: "entry.create", data: { title: "Shared id" } };
      for (const team of [a, b]) {
        const answer = await expectOk(
          await deliver(app, team.teamId, team.secret, event, { id }),
          200,
          webhookAnswer,
        );
        expect(answer.duplicate).toBe(false);
        expect((await stats(app, team.apiKey)).entries).toBe(1);
      }
    }));

  it("remembers an id for 24 hours, then prunes it: a redelivery after that is applied again", async () => {
    let now = Date.now();
    await withApp(
      async (app) => {
        const { teamId, apiKey, secret } = await setUp(app);
        const id = newDeliveryId();
        const event = { type: "entry.create", data: { title: "Daily" } };
        await deliver(app, teamId, secret, event, { id });
        now += 23 * 3600_000;
        expect(
          (await expectOk(await deliver(app, teamId, secret, event, { id }), 200, webhookAnswer)).duplicate,
        ).toBe(true);
        expect(await recordedDeliveries(app)).toBe(1);
        now += 2 * 3600_000;
        // A different delivery prunes the old id; the old id, sent again, is then new.
        await deliver(app, teamId, secret, { type: "entry.create", data: { title: "Other" } });
        expect(await recordedDeliveries(app)).toBe(1);
        expect(
          (await expectOk(await deliver(app, teamId, secret, event, { id }), 200, webhookAnswer)).duplicate,
        ).toBe(false);
        expect((await stats(app, apiKey)).entries).toBe(3);
      },
      { clock: { now: () => new Date(now) } },
    );
  });

  it("does not record the id of a delivery refused with 400, so the corrected resend is applied", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const id = newDeliveryId();
      await expectError(
        await deliver(app, teamId, secret, { type: "entry.create", data: { title: "" } }, { id }),
        400,
        "invalid_request",
      );
      expect(await recordedDeliveries(app)).toBe(0);
      const fixed = await deliver(
        app,
        teamId,
        secret,
        { type: "entry.create", data: { title: "Fixed" } },
        { id },
      );
      expect((await expectOk(fixed, 200, webhookAnswer)).duplicate).toBe(false);
      expect((await stats(app, apiKey)).entries).toBe(1);
    }));

  it("forgets the id when applying fails, so the sender's retry is applied", () =>
    withApp(
      async (app) => {
        const { teamId, apiKey, secret } = await setUp(app);
        const id = newDeliveryId();
        // Within the body limit, over the content limit: the documents service refuses it while applying.
        const big = upsert("big", "Big", "x".repeat(2000));
        await expectError(await deliver(app, teamId, secret, big, { id }), 413, "payload_too_large");
        expect(await recordedDeliveries(app)).toBe(0);
        const retry = await deliver(app, teamId, secret, upsert("big", "Big", "The trimmed tanglewood."), {
          id,
        });
        expect((await expectOk(retry, 200, webhookAnswer)).duplicate).toBe(false);
        expect((await search(app, apiKey, "tanglewood")).hits).toHaveLength(1);
      },
      { config: { maxDocumentBytes: 1000 } },
    ));

  it("takes a document larger than the 1 MiB default body limit, up to the document limit", () =>
    withApp(async (app) => {
      const { teamId, apiKey, secret } = await setUp(app);
      const content = `# Big\n\nThe oxbowheron is here.\n\n${"filler words again. ".repeat(80_000)}`;
      expect(content.length).toBeGreaterThan(1024 * 1024);
      const res = await deliver(app, teamId, secret, upsert("large", "Large", content));
      await expectOk(res, 200, webhookAnswer);
      expect((await search(app, apiKey, "oxbowheron")).hits).toHaveLength(1);
    }));

  it("is described in /openapi.json with the secret route", () =>
    withApp(async (app) => {
      const doc = (await (await app.request("/openapi.json")).json()) as { paths: Record<string, object> };
      expect(Object.keys(doc.paths["/v1/sources/webhook"] ?? {})).toEqual(["put", "get", "delete"]);
      expect(Object.keys(doc.paths["/v1/webhooks/ingest/{teamId}"] ?? {})).toEqual(["post"]);
    }));
});
