// The generic signed webhook, refused deliveries: every authentication failure is 401 with nothing applied and
// the id not recorded (a correct resend with the same id is then applied); every malformed event is 400.

import { describe, expect, it } from "vitest";
import { statsAnswer } from "../../src/routes/stats.js";
import { webhookAnswer } from "../../src/routes/webhooks.js";
import { ADMIN_TOKEN, makeTeam, type TestApp } from "../support/app.js";
import { deliver, makeWebhookSecret, newDeliveryId, recordedDeliveries } from "../support/webhooks.js";
import { expectError, expectOk, withApp } from "./contract.js";

async function entries(app: TestApp, apiKey: string): Promise<number> {
  return (await expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer)).entries;
}

async function setUp(app: TestApp) {
  const { teamId, apiKey } = await makeTeam(app);
  const secret = await makeWebhookSecret(app, apiKey);
  return { teamId, apiKey, secret };
}

const entryEvent = { type: "entry.create", data: { title: "Signed" } };

/** Expects 401, nothing stored and nothing recorded; then a correct delivery with the same id is applied. */
async function expectRefusedThenAccepted(
  app: TestApp,
  team: { teamId: string; apiKey: string; secret: string },
  res: Response,
  id: string,
): Promise<void> {
  await expectError(res, 401, "unauthorized");
  expect(await entries(app, team.apiKey)).toBe(0);
  expect(await recordedDeliveries(app)).toBe(0);
  const resend = await deliver(app, team.teamId, team.secret, entryEvent, { id });
  expect((await expectOk(resend, 200, webhookAnswer)).duplicate).toBe(false);
  expect(await entries(app, team.apiKey)).toBe(1);
}

describe("POST /v1/webhooks/ingest/{teamId}: 401", () => {
  it("refuses a delivery signed with another secret", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const other = await setUp(app);
      const id = newDeliveryId();
      await expectRefusedThenAccepted(
        app,
        team,
        await deliver(app, team.teamId, other.secret, entryEvent, { id }),
        id,
      );
    }));

  it("refuses a delivery signed with the secret a rotation replaced, at once", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const old = team.secret;
      team.secret = await makeWebhookSecret(app, team.apiKey);
      const id = newDeliveryId();
      await expectRefusedThenAccepted(
        app,
        team,
        await deliver(app, team.teamId, old, entryEvent, { id }),
        id,
      );
    }));

  it("refuses a timestamp six minutes old", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const id = newDeliveryId();
      const at = new Date(Date.now() - 6 * 60_000);
      await expectRefusedThenAccepted(
        app,
        team,
        await deliver(app, team.teamId, team.secret, entryEvent, { id, at }),
        id,
      );
    }));

  it("refuses a timestamp six minutes in the future", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const id = newDeliveryId();
      const at = new Date(Date.now() + 6 * 60_000);
      await expectRefusedThenAccepted(
        app,
        team,
        await deliver(app, team.teamId, team.secret, entryEvent, { id, at }),
        id,
      );
    }));

  it("accepts a timestamp four minutes off either way", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      for (const offset of [-4 * 60_000, 4 * 60_000]) {
        const at = new Date(Date.now() + offset);
        await expectOk(await deliver(app, team.teamId, team.secret, entryEvent, { at }), 200, webhookAnswer);
      }
      expect(await entries(app, team.apiKey)).toBe(2);
    }));

  it("refuses a body changed after signing", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const id = newDeliveryId();
      const res = await deliver(app, team.teamId, team.secret, entryEvent, {
        id,
        sentBody: JSON.stringify({ type: "entry.create", data: { title: "Forged" } }),
      });
      await expectRefusedThenAccepted(app, team, res, id);
    }));

  it("refuses a delivery missing any of the three headers", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      for (const header of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
        const res = await deliver(app, team.teamId, team.secret, entryEvent, { omit: [header] });
        await expectError(res, 401, "unauthorized");
      }
      expect(await entries(app, team.apiKey)).toBe(0);
      expect(await recordedDeliveries(app)).toBe(0);
    }));

  it("refuses a signature under another delivery id (the id is signed too)", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const signed = await deliver(app, team.teamId, team.secret, entryEvent, { id: "msg_a" });
      await expectOk(signed, 200, webhookAnswer);
      // A captured signature replayed under a fresh id, to slip past the replay check, does not verify.
      const at = new Date();
      const { Webhook } = await import("standardwebhooks");
      const body = JSON.stringify(entryEvent);
      const res = await app.request(`/v1/webhooks/ingest/${team.teamId}`, {
        method: "POST",
        headers: {
          "webhook-id": "msg_b",
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": new Webhook(team.secret).sign("msg_a", at, body),
        },
        body,
      });
      await expectError(res, 401, "unauthorized");
      expect(await entries(app, team.apiKey)).toBe(1);
    }));

  it("refuses a delivery for an unknown team, well-formed or not", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const { teamId: gone, apiKey: goneKey } = await makeTeam(app, "Gone");
      const goneSecret = await makeWebhookSecret(app, goneKey);
      const del = await app.request(`/v1/teams/${gone}`, { method: "DELETE", token: ADMIN_TOKEN });
      expect(del.status).toBe(204);
      await expectError(await deliver(app, gone, goneSecret, entryEvent), 401, "unauthorized");
      await expectError(
        await deliver(app, "t_doesnotexist000000000", team.secret, entryEvent),
        401,
        "unauthorized",
      );
      await expectError(await deliver(app, "not a team", team.secret, entryEvent), 401, "unauthorized");
      expect(await recordedDeliveries(app)).toBe(0);
    }));

  it("refuses every delivery for a team that has made no secret", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const stranger = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
      await expectError(await deliver(app, teamId, stranger, entryEvent), 401, "unauthorized");
      expect(await entries(app, apiKey)).toBe(0);
      expect(await recordedDeliveries(app)).toBe(0);
    }));

  it("gives every refusal the same message, so a stranger cannot tell a team exists", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      const { teamId: noSecret } = await makeTeam(app, "No secret");
      const wrong = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
      const messages = new Set<string>();
      for (const res of [
        await deliver(app, "t_doesnotexist000000000", wrong, entryEvent),
        await deliver(app, noSecret, wrong, entryEvent),
        await deliver(app, team.teamId, wrong, entryEvent),
        await deliver(app, team.teamId, team.secret, entryEvent, { at: new Date(Date.now() - 3600_000) }),
      ]) {
        messages.add((await expectError(res, 401, "unauthorized")).error.message);
      }
      expect(messages.size).toBe(1);
    }));
});

describe("POST /v1/webhooks/ingest/{teamId}: 400", () => {
  const cases: [string, unknown, RegExp][] = [
    ["an unknown type", { type: "document.archive", data: { externalId: "x" } }, /type: must be one of/],
    ["no type", { data: { title: "x" } }, /type:/],
    ["no data", { type: "entry.create" }, /data:/],
    ["a JSON array", [entryEvent], /body:/],
    ["a body that is not JSON", "{ not json", /body: must be a JSON object/],
    ["an empty body", "", /body: must be a JSON object/],
    [
      "document.upsert without externalId",
      { type: "document.upsert", data: { title: "T", content: "c" } },
      /data\.externalId/,
    ],
    [
      "document.upsert without content",
      { type: "document.upsert", data: { externalId: "e", title: "T" } },
      /data\.content/,
    ],
    [
      "document.upsert with a blank title",
      { type: "document.upsert", data: { externalId: "e", title: "  ", content: "c" } },
      /data\.title: must not be blank/,
    ],
    [
      "document.upsert with an unknown format",
      { type: "document.upsert", data: { externalId: "e", title: "T", content: "c", format: "rtf" } },
      /data\.format/,
    ],
    [
      "document.upsert with 33 path parts",
      {
        type: "document.upsert",
        data: { externalId: "e", title: "T", content: "c", path: Array(33).fill("p") },
      },
      /data\.path/,
    ],
    [
      "document.upsert with an externalId of 513 characters",
      { type: "document.upsert", data: { externalId: "e".repeat(513), title: "T", content: "c" } },
      /data\.externalId/,
    ],
    [
      "document.upsert with a notion: externalId",
      { type: "document.upsert", data: { externalId: "notion:abc", title: "T", content: "c" } },
      /data\.externalId: externalIds starting with notion: are reserved/,
    ],
    [
      "document.delete with a notion: externalId",
      { type: "document.delete", data: { externalId: "notion:abc" } },
      /data\.externalId: externalIds starting with notion: are reserved/,
    ],
    ["document.delete without externalId", { type: "document.delete", data: {} }, /data\.externalId/],
    ["entry.create without title", { type: "entry.create", data: { impact: "x" } }, /data\.title/],
    [
      "entry.create with a project that is not a label",
      { type: "entry.create", data: { title: "T", project: "two words" } },
      /data\.project/,
    ],
  ];

  for (const [name, event, message] of cases) {
    it(`refuses ${name} with invalid_request, applying and recording nothing`, () =>
      withApp(async (app) => {
        const team = await setUp(app);
        const body = await expectError(
          await deliver(app, team.teamId, team.secret, event),
          400,
          "invalid_request",
        );
        expect(body.error.message).toMatch(message);
        const stats = await expectOk(
          await app.request("/v1/stats", { token: team.apiKey }),
          200,
          statsAnswer,
        );
        expect([stats.documents, stats.entries]).toEqual([0, 0]);
        expect(await recordedDeliveries(app)).toBe(0);
      }));
  }

  it("never quotes the body in a 400's message", () =>
    withApp(async (app) => {
      const team = await setUp(app);
      for (const event of [
        '{"type": "entry.create", "data": {"title": "fennelgrotto',
        { type: "fennelgrotto", data: {} },
        { type: "entry.create", data: { title: "T", project: "fennel grotto" } },
      ]) {
        const body = await expectError(
          await deliver(app, team.teamId, team.secret, event),
          400,
          "invalid_request",
        );
        expect(body.error.message.toLowerCase()).not.toContain("fennel");
      }
    }));
});

describe("PUT /v1/sources/webhook: 401", () => {
  it("needs a team key: none, a malformed one, a revoked one and the admin token are all refused", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const put = (token?: string) =>
        app.request("/v1/sources/webhook", { method: "PUT", ...(token ? { token } : {}) });
      await expectError(await put(), 401, "unauthorized");
      await expectError(await put("mem_nope"), 401, "unauthorized");
      await expectError(await put(ADMIN_TOKEN), 401, "unauthorized");
      await expectError(await put(`${apiKey}x`), 401, "unauthorized");
      const keys = (await (await app.request(`/v1/teams/${teamId}/keys`, { token: ADMIN_TOKEN })).json()) as {
        keys: { keyId: string }[];
      };
      const keyId = keys.keys[0]?.keyId ?? "";
      const revoke = await app.request(`/v1/teams/${teamId}/keys/${keyId}`, {
        method: "DELETE",
        token: ADMIN_TOKEN,
      });
      expect(revoke.status).toBe(204);
      await expectError(await put(apiKey), 401, "unauthorized");
      // No secret was made by any of them: a delivery still has nothing to verify against.
      const rs = await app.storage.client.execute("SELECT count(*) AS n FROM sources");
      expect(Number(rs.rows[0]?.n)).toBe(0);
    }));
});
