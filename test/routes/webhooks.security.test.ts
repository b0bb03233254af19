// The generic signed webhook and the one rule: the signing secret is sealed at rest and never logged; delivery
// ids are stored as blind indexes; what a delivery carries is sealed like any other write.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { createLogger } from "../../src/logger.js";
import { webhookAnswer } from "../../src/routes/webhooks.js";
import { fromBase64 } from "../../src/seal/bytes.js";
import { buildTestApp, makeTeam, newMasterKey, search, type TestApp, tempDir } from "../support/app.js";
import { watchedBody } from "../support/streams.js";
import { deliver, makeWebhookSecret, newDeliveryId, recordedDeliveries } from "../support/webhooks.js";
import { expectError, expectOk, withApp } from "./contract.js";

const distinctive = ["gossamerquince", "halcyonvetch", "umbralpippin"];
const deliveryId = "msg_tamarindsextant";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Each needle found in any file under `dir`, as UTF-8 or UTF-16 text or as raw bytes. */
function findings(dir: string, needles: (string | Uint8Array)[]): string[] {
  const found: string[] = [];
  for (const file of filesUnder(dir)) {
    const bytes = readFileSync(file);
    for (const needle of needles) {
      const forms =
        typeof needle === "string"
          ? [Buffer.from(needle, "utf8"), Buffer.from(needle, "utf16le")]
          : [Buffer.from(needle)];
      if (forms.some((form) => bytes.includes(form))) found.push(`${String(needle)} in ${file}`);
    }
  }
  return found;
}

describe("the generic webhook at rest", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("leaves no signing secret (current or rotated away), delivery id or delivered text readable in any file", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const app = await buildTestApp({ dbUrl: tmp.dbUrl });
    const { teamId, apiKey } = await makeTeam(app);
    const first = await makeWebhookSecret(app, apiKey);
    const secret = await makeWebhookSecret(app, apiKey);
    await expectOk(
      await deliver(
        app,
        teamId,
        secret,
        {
          type: "document.upsert",
          data: {
            externalId: "file:gossamerquince.md",
            title: "Gossamerquince",
            content: "# Halcyonvetch\n\nThe umbralpippin ledger.",
            path: ["Umbralpippin"],
          },
        },
        { id: deliveryId },
      ),
      200,
      webhookAnswer,
    );
    await expectOk(
      await deliver(app, teamId, secret, {
        type: "entry.create",
        data: { title: "Halcyonvetch decision", impact: "gossamerquince", body: "umbralpippin" },
      }),
      200,
      webhookAnswer,
    );
    expect((await search(app, apiKey, "umbralpippin")).hits).toHaveLength(1);
    // The rows the scan must not read are there: one sealed secret, two blind delivery ids.
    const rows = await app.storage.client.execute(
      "SELECT (SELECT count(*) FROM sources) AS s, (SELECT count(*) FROM webhook_deliveries) AS d",
    );
    expect([Number(rows.rows[0]?.s), Number(rows.rows[0]?.d)]).toEqual([1, 2]);
    app.close();

    const needles: (string | Uint8Array)[] = [...distinctive, deliveryId];
    for (const s of [first, secret]) {
      const base64 = s.slice("whsec_".length);
      const raw = fromBase64(base64);
      if (!raw) throw new Error("secret is not base64");
      needles.push(s, base64, raw);
    }
    expect(findings(tmp.dir, needles)).toEqual([]);
  });

  it("opens the sealed secret after a restart over the same database, with the same master key", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const masterKey = newMasterKey();
    const before = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey });
    const { teamId, apiKey } = await makeTeam(before);
    const secret = await makeWebhookSecret(before, apiKey);
    before.close();
    const after = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey });
    try {
      const res = await deliver(after, teamId, secret, {
        type: "entry.create",
        data: { title: "After restart" },
      });
      expect((await expectOk(res, 200, webhookAnswer)).duplicate).toBe(false);
    } finally {
      after.close();
    }
  });
});

describe("the generic webhook in logs", () => {
  it("never logs the secret, the delivery id or what a delivery carries, accepted or refused", async () => {
    const lines: string[] = [];
    const app = await buildTestApp({
      config: { cronToken: null, maxDocumentBytes: 10_000, catchupMs: 0 },
      logger: createLogger("debug", (line) => lines.push(line)),
    });
    try {
      const { teamId, apiKey } = await makeTeam(app);
      const secret = await makeWebhookSecret(app, apiKey);
      const event = {
        type: "document.upsert",
        data: { externalId: "gossamerquince", title: "Halcyonvetch", content: "umbralpippin" },
      };
      await expectOk(await deliver(app, teamId, secret, event, { id: deliveryId }), 200, webhookAnswer);
      await deliver(app, teamId, secret, event, { id: deliveryId });
      await deliver(app, teamId, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", event, { id: deliveryId });
      await deliver(app, teamId, secret, event, { id: deliveryId, at: new Date(Date.now() - 3600_000) });
      await deliver(app, teamId, secret, { type: "umbralpippin", data: {} });
      await deliver(app, teamId, secret, '{"type": "gossamerquince');
      await deliver(app, teamId, secret, { ...event, data: { ...event.data, content: "x".repeat(20_000) } });

      const log = lines.join("\n");
      expect(lines.length).toBeGreaterThan(5);
      for (const needle of [secret, secret.slice("whsec_".length), deliveryId, ...distinctive]) {
        expect(log.toLowerCase()).not.toContain(needle.toLowerCase());
      }
      // Refusals are logged with a reason an operator can act on, and nothing else of the delivery.
      const refusals = lines.filter((l) => l.includes("webhook delivery refused"));
      expect(refusals.map((l) => (JSON.parse(l) as { reason: string }).reason).sort()).toEqual([
        "bad_signature",
        "stale_timestamp",
      ]);
    } finally {
      app.close();
    }
  });
});

/** Posts a streamed body to the team's ingest webhook with the given headers. */
function post(app: TestApp, teamId: string, headers: Record<string, string>, body: ReadableStream) {
  return app.request(`/v1/webhooks/ingest/${teamId}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

function signedHeaders(secret: string, body: string, at = new Date()): Record<string, string> {
  const id = newDeliveryId();
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}

const REFUSED = "Missing or invalid webhook signature, or a webhook-timestamp more than 5 minutes off.";

describe("the generic webhook before the body", () => {
  it("reads and verifies a streamed body whose headers pass", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const secret = await makeWebhookSecret(app, apiKey);
      const text = JSON.stringify({ type: "entry.create", data: { title: "Streamed" } });
      const body = watchedBody([new TextEncoder().encode(text)]);
      await expectOk(await post(app, teamId, signedHeaders(secret, text), body.stream), 200, webhookAnswer);
      expect(body.pulls()).toBeGreaterThan(0);
      expect(await recordedDeliveries(app)).toBe(1);
    }));

  it("refuses missing or malformed headers, a timestamp 5 minutes off, an unknown team or no secret with 401, reading nothing", async () => {
    const lines: string[] = [];
    await withApp(
      async (app) => {
        const { teamId, apiKey } = await makeTeam(app);
        const secret = await makeWebhookSecret(app, apiKey);
        const unconfigured = (await makeTeam(app, "No secret")).teamId;
        const text = JSON.stringify({ type: "entry.create", data: { title: "Never read" } });
        const good = signedHeaders(secret, text);
        const without = (name: string) =>
          Object.fromEntries(Object.entries(good).filter(([n]) => n !== name));
        const signature = good["webhook-signature"] ?? "";
        const cases: [string, string, Record<string, string>, string][] = [
          ["no webhook-id", teamId, without("webhook-id"), "missing_headers"],
          ["no webhook-timestamp", teamId, without("webhook-timestamp"), "missing_headers"],
          ["no webhook-signature", teamId, without("webhook-signature"), "missing_headers"],
          [
            "a signature of another version",
            teamId,
            { ...good, "webhook-signature": signature.replace("v1,", "v2,") },
            "missing_headers",
          ],
          [
            "a signature too short to match",
            teamId,
            { ...good, "webhook-signature": "v1,c2hvcnQ=" },
            "missing_headers",
          ],
          [
            "a timestamp that is no number",
            teamId,
            { ...good, "webhook-timestamp": "soon" },
            "stale_timestamp",
          ],
          [
            "a timestamp an hour old",
            teamId,
            signedHeaders(secret, text, new Date(Date.now() - 3600_000)),
            "stale_timestamp",
          ],
          [
            "a timestamp an hour ahead",
            teamId,
            signedHeaders(secret, text, new Date(Date.now() + 3600_000)),
            "stale_timestamp",
          ],
          ["an unknown team", newId("t"), good, "unknown_team"],
          ["a path that is no team id", "not-a-team", good, "unknown_team"],
          ["a team without a secret", unconfigured, good, "no_secret"],
        ];
        for (const [name, target, headers, reason] of cases) {
          const body = watchedBody();
          lines.length = 0;
          // The body never ends: the answer arrives only because nothing waits for it.
          const error = await expectError(await post(app, target, headers, body.stream), 401, "unauthorized");
          expect(error.error.message, name).toBe(REFUSED);
          expect(body.pulls(), name).toBe(0);
          const refusals = lines.filter((l) => l.includes("webhook delivery refused"));
          expect(
            refusals.map((l) => (JSON.parse(l) as { reason: string }).reason),
            name,
          ).toEqual([reason]);
          await body.stream.cancel();
        }
        expect(await recordedDeliveries(app)).toBe(0);
      },
      { logger: createLogger("debug", (line) => lines.push(line)) },
    );
  });
});
