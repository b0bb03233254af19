// The reindex ping's second half: a Notion page edited while no webhook arrived is pulled on the next ping,
// and a team whose Notion pull fails is still reported with its index level, and with the failure's code.

import { afterEach, beforeEach, expect, it } from "vitest";
import { reindexAnswer } from "../../src/routes/reindex.js";
import { pullFailureOf } from "../../src/services/reindex.js";
import { NotionApiError, NotionShapeError, NotionUnreachableError } from "../../src/sources/notion/client.js";
import { buildTestApp, CRON_TOKEN, makeTeam, search, type TestApp } from "../support/app.js";
import { NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";
import { connectNotion } from "../support/notion-webhook.js";
import { expectOk } from "./contract.js";

let double: NotionDouble;
let app: TestApp;

beforeEach(async () => {
  double = await NotionDouble.start();
  app = await buildTestApp({ config: { notionApiUrl: double.url } });
});
afterEach(async () => {
  await app.memoria.sources.idle();
  app.close();
  await double.close();
});

const ping = () => app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN });

it("re-pulls a Notion page changed while no webhook arrived", async () => {
  const team = await makeTeam(app);
  await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
  const page = double.addPage({
    title: "Handbook",
    blocks: [{ type: "paragraph", text: "The code is dugong." }],
  });
  // The first ping loads nothing yet: name the team, as the Cloudflare cron does.
  const first = await expectOk(
    await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN, json: { teamId: team.teamId } }),
    200,
    reindexAnswer,
  );
  expect(first.teams[0]).toMatchObject({ teamId: team.teamId, synced: 1 });
  expect((await search(app, team.apiKey, "dugong")).hits).toHaveLength(1);

  // Edited in Notion; the webhook never came. The next ping heals it.
  double.setBlocks(page, [{ type: "paragraph", text: "The code is manatee." }]);
  const second = await expectOk(await ping(), 200, reindexAnswer);
  expect(second.teams[0]).toMatchObject({ teamId: team.teamId, synced: 1, rebuilt: false });
  expect((await search(app, team.apiKey, "dugong")).hits).toHaveLength(0);
  expect((await search(app, team.apiKey, "manatee")).hits).toHaveLength(1);
});

it("still reports a team whose Notion pull fails (Notion answers 401), with nothing pulled and the error", async () => {
  const team = await makeTeam(app);
  await connectNotion(app, team, "ntn_a_token_the_double_does_not_know_0123");
  await app.request("/v1/entries", { method: "POST", token: team.apiKey, json: { title: "Kept" } });
  const answer = await expectOk(
    await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN, json: { teamId: team.teamId } }),
    200,
    reindexAnswer,
  );
  expect(answer.teams[0]).toMatchObject({
    teamId: team.teamId,
    synced: 0,
    entries: 1,
    error: "notion_unauthorized",
  });
  // Every other team of the ping is still reindexed, and its row carries no error.
  const other = await makeTeam(app, "Other");
  await connectNotion(app, other, NOTION_DOUBLE_TOKEN);
  const all = await expectOk(await ping(), 200, reindexAnswer);
  expect(all.teams.find((t) => t.teamId === team.teamId)?.error).toBe("notion_unauthorized");
  expect(all.teams.find((t) => t.teamId === other.teamId)).not.toHaveProperty("error");
});

it("reports a Notion that keeps failing (500 after every retry) as notion_unavailable, then heals", async () => {
  const team = await makeTeam(app);
  await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
  double.addPage({ title: "Handbook", blocks: [{ type: "paragraph", text: "The code is quokka." }] });
  // The client's five tries of the search, all answered 500.
  double.failNext(5, 500, /\/v1\/search/);
  const named = { method: "POST", token: CRON_TOKEN, json: { teamId: team.teamId } } as const;
  const failed = await expectOk(await app.request("/v1/reindex", named), 200, reindexAnswer);
  expect(failed.teams[0]).toMatchObject({ teamId: team.teamId, synced: 0, error: "notion_unavailable" });
  expect((await search(app, team.apiKey, "quokka")).hits).toHaveLength(0);
  // Notion is back: the next ping pulls what the failed one could not, and reports no error.
  const healed = await expectOk(await app.request("/v1/reindex", named), 200, reindexAnswer);
  expect(healed.teams[0]).toMatchObject({ teamId: team.teamId, synced: 1 });
  expect(healed.teams[0]).not.toHaveProperty("error");
  expect((await search(app, team.apiKey, "quokka")).hits).toHaveLength(1);
}, 30_000);

it("names each kind of pull failure by what the operator does about it", () => {
  expect(pullFailureOf(new NotionApiError(401, "unauthorized", "POST /v1/search"))).toBe(
    "notion_unauthorized",
  );
  expect(pullFailureOf(new NotionApiError(403, "restricted_resource", "POST /v1/search"))).toBe(
    "notion_unauthorized",
  );
  expect(pullFailureOf(new NotionApiError(429, "rate_limited", "POST /v1/search"))).toBe(
    "notion_unavailable",
  );
  expect(pullFailureOf(new NotionApiError(502, null, "POST /v1/search"))).toBe("notion_unavailable");
  expect(pullFailureOf(new NotionUnreachableError("POST /v1/search"))).toBe("notion_unavailable");
  expect(pullFailureOf(new NotionApiError(400, "validation_error", "POST /v1/search"))).toBe("notion_failed");
  expect(pullFailureOf(new NotionShapeError("POST /v1/search"))).toBe("notion_failed");
});

it("pulls a team with a Notion token even when no request has loaded it here", async () => {
  const team = await makeTeam(app);
  await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
  double.addPage({ title: "Handbook", blocks: [{ type: "paragraph", text: "The code is okapi." }] });
  // A fresh instance over the same storage: nothing loaded, yet the team has a Notion source.
  const answer = await expectOk(await ping(), 200, reindexAnswer);
  const row = answer.teams.find((t) => t.teamId === team.teamId);
  expect(row).toMatchObject({ synced: 1 });
  expect(row?.documents).toBeUndefined();
  expect((await search(app, team.apiKey, "okapi")).hits).toHaveLength(1);
});
