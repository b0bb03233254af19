// The Notion webhook's secret URL and the times it keeps (docs/api.md v1.1, "Note sources"): knowing a team id
// reaches nothing (the bare path, a wrong token and an unknown team are the same 404, and nothing is
// stored), the handshake at the URL GET /v1/sources/notion shows is taken, an event dated more than five
// minutes ahead of the app's clock is refused and recorded nowhere, and DELETE forgets the URL and every
// page's event time, so a re-subscribed team is not held back by an old event's time.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { notionSourceDetail, webhookAnswer } from "../../src/routes/notion.js";
import { blindIndex } from "../../src/seal/team-key.js";
import { makeTeam, search, type TestApp } from "../support/app.js";
import { NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";
import {
  barePath,
  connectNotion,
  deliver,
  handshake,
  notionEvent,
  postTo,
  signNotion,
  VERIFICATION_TOKEN,
  webhookPath,
} from "../support/notion-webhook.js";
import { expectError, expectNoContent, expectOk, withApp } from "./contract.js";

let double: NotionDouble;
beforeAll(async () => {
  double = await NotionDouble.start();
});
afterAll(() => double.close());

/** The app's clock, fixed: event times are judged against it, never against the wall clock. */
const NOW = Date.parse("2025-03-01T12:00:00.000Z");
const fixedClock: Clock = { now: () => new Date(NOW) };
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const MINUTE = 60_000;
const options = () => ({ config: { notionApiUrl: double.url }, clock: fixedClock });

type Team = { teamId: string; apiKey: string };

const putToken = (app: TestApp, team: Team) =>
  app.request("/v1/sources/notion", {
    method: "PUT",
    token: team.apiKey,
    json: { token: NOTION_DOUBLE_TOKEN },
  });

async function sourceOf(app: TestApp, team: Team) {
  return (
    await expectOk(await app.request("/v1/sources/notion", { token: team.apiKey }), 200, notionSourceDetail)
  ).source;
}

async function eventTime(app: TestApp, teamId: string, pageId: string): Promise<string | null> {
  const key = await app.memoria.directory.teamKey(teamId);
  if (!key) throw new Error("no key");
  return app.storage.pageEvents.newest(teamId, await blindIndex(key, `notion-page:${pageId}`));
}

const handshakeBody = (token = VERIFICATION_TOKEN) => JSON.stringify({ verification_token: token });

describe("the secret webhook URL", () => {
  it("is made at PUT, shown by GET (no-store), and takes the handshake; the bare team path is 404", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      expect((await putToken(app, team)).status).toBe(200);
      // Before anything else: the bare path a team id alone reaches is refused, and stores nothing.
      await expectError(await postTo(app, barePath(team.teamId), handshakeBody()), 404, "not_found");
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).toBeNull();

      const res = await app.request("/v1/sources/notion", { token: team.apiKey });
      expect(res.headers.get("cache-control")).toBe("no-store");
      const { webhookUrl, verified } = (await expectOk(res, 200, notionSourceDetail)).source;
      expect(verified).toBe(false);
      // The request's own origin, the team's path, and a token of 256 bits (43 base64url characters).
      const url = new URL(webhookUrl);
      expect(url.origin).toBe("http://localhost");
      const [, token] = url.pathname.split(`${barePath(team.teamId)}/`);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.pathname).toBe(await webhookPath(app, team.teamId));

      await expectOk(await postTo(app, url.pathname, handshakeBody()), 200, webhookAnswer);
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).not.toBeNull();
      expect(await sourceOf(app, team)).toEqual({
        kind: "notion",
        verified: true,
        verificationToken: VERIFICATION_TOKEN,
        webhookUrl,
      });
    }, options()));

  it("answers a wrong token, another team's token and an unknown team with one 404, and stores nothing", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await putToken(app, a);
      await putToken(app, b);
      const tokenOf = async (team: Team) => (await webhookPath(app, team.teamId)).split("/").at(-1) ?? "";
      const tokenA = await tokenOf(a);
      const tokenB = await tokenOf(b);
      expect(tokenA).not.toBe(tokenB);
      const refusals = [
        `${barePath(a.teamId)}/${tokenB}`,
        `${barePath(a.teamId)}/${tokenA.slice(0, -1)}`,
        `${barePath(a.teamId)}/${tokenA}x`,
        `${barePath("t_doesnotexist000000000000")}/${tokenA}`,
        barePath(a.teamId),
      ];
      const messages = new Set<string>();
      for (const path of refusals) {
        messages.add(
          (await expectError(await postTo(app, path, handshakeBody("secret_mine")), 404, "not_found")).error
            .message,
        );
      }
      // One answer for all: a caller cannot tell which part was wrong, nor that team A exists.
      expect([...messages]).toEqual(["No such route."]);
      expect(await app.storage.sources.get(a.teamId, "notion.verification")).toBeNull();
      expect(await app.storage.sources.get(b.teamId, "notion.verification")).toBeNull();
    }, options()));

  it("is kept when the Notion token is replaced, so the subscription goes on working", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const before = await sourceOf(app, team);
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: "ntn_a_replacement_token_0123456789" },
      });
      expect(await sourceOf(app, team)).toEqual(before);
    }, options()));

  it("is made on the first GET for a token stored before URLs existed", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await putToken(app, team);
      // A v1 team: a Notion token and no URL token row.
      const key = await app.memoria.directory.teamKey(team.teamId);
      if (!key) throw new Error("no key");
      await app.storage.sources.delete(team.teamId, ["notion.url"]);
      const { webhookUrl } = await sourceOf(app, team);
      expect((await sourceOf(app, team)).webhookUrl).toBe(webhookUrl);
      await expectOk(await postTo(app, new URL(webhookUrl).pathname, handshakeBody()), 200, webhookAnswer);
    }, options()));
});

describe("event times", () => {
  it("refuses an event dated 10 minutes ahead with 400: no time recorded, nothing fetched; later ones apply", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const pageId = double.addPage({ title: "Runbook", blocks: [{ type: "paragraph", text: "wombat" }] });
      await expectOk(
        await deliver(app, team.teamId, notionEvent("page.created", pageId, at(-60 * MINUTE))),
        200,
        webhookAnswer,
      );
      expect(await eventTime(app, team.teamId, pageId)).toBe(at(-60 * MINUTE));
      const fetchesBefore = double.requestsTo(new RegExp(pageId)).length;

      const ahead = notionEvent("page.content_updated", pageId, at(10 * MINUTE));
      const body = JSON.stringify(ahead);
      const path = await webhookPath(app, team.teamId);
      const refused = await expectError(
        await postTo(app, path, body, { "x-notion-signature": signNotion(body) }),
        400,
        "invalid_request",
      );
      expect(refused.error.message).toMatch(/timestamp/);
      expect(app.memoria.sources.pending).toBe(0);
      await app.memoria.sources.idle();
      expect(await eventTime(app, team.teamId, pageId)).toBe(at(-60 * MINUTE));
      expect(double.requestsTo(new RegExp(pageId))).toHaveLength(fetchesBefore);

      // A genuine later event (within five minutes of the clock, as a drifting Notion might send) applies.
      double.setBlocks(pageId, [{ type: "paragraph", text: "numbat" }]);
      await expectOk(
        await deliver(app, team.teamId, notionEvent("page.content_updated", pageId, at(4 * MINUTE))),
        200,
        webhookAnswer,
      );
      expect(await eventTime(app, team.teamId, pageId)).toBe(at(4 * MINUTE));
      expect((await search(app, team.apiKey, "numbat")).hits).toHaveLength(1);
      expect((await search(app, team.apiKey, "wombat")).hits).toHaveLength(0);
    }, options()));

  it("DELETE forgets every page's time: a re-subscribed team applies an event older than the old one", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const pageId = double.addPage({ title: "Runbook", blocks: [{ type: "paragraph", text: "wombat" }] });
      // The newest a page can be held at: just under the five-minute lead.
      await deliver(app, team.teamId, notionEvent("page.created", pageId, at(4 * MINUTE)));
      expect(await eventTime(app, team.teamId, pageId)).toBe(at(4 * MINUTE));
      const oldPath = await webhookPath(app, team.teamId);

      await expectNoContent(
        await app.request("/v1/sources/notion", { method: "DELETE", token: team.apiKey }),
      );
      expect(await eventTime(app, team.teamId, pageId)).toBeNull();
      expect(await app.storage.sources.get(team.teamId, "notion.url")).toBeNull();
      const rows = await app.storage.client.execute({
        sql: "SELECT COUNT(*) AS n FROM source_pages WHERE team_id = ?",
        args: [team.teamId],
      });
      expect(Number(rows.rows[0]?.n)).toBe(0);

      // Re-subscribed: a new URL (the old one stays refused), a new handshake, and an older event applies.
      await putToken(app, team);
      const newPath = await webhookPath(app, team.teamId);
      expect(newPath).not.toBe(oldPath);
      await expectError(await postTo(app, oldPath, handshakeBody("secret_new")), 404, "not_found");
      await expectOk(await handshake(app, team.teamId, "secret_new_subscription"), 200, webhookAnswer);
      double.setBlocks(pageId, [{ type: "paragraph", text: "numbat" }]);
      const older = notionEvent("page.content_updated", pageId, at(-30 * MINUTE));
      await expectOk(await deliver(app, team.teamId, older, "secret_new_subscription"), 200, webhookAnswer);
      expect(await eventTime(app, team.teamId, pageId)).toBe(at(-30 * MINUTE));
      expect((await search(app, team.apiKey, "numbat")).hits).toHaveLength(1);
    }, options()));
});
