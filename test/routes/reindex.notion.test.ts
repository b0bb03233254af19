// The reindex ping's second half: a Notion page edited while no webhook arrived is pulled on the next ping,
// and a team whose Notion pull fails is still reported with its index level.

import { afterEach, beforeEach, expect, it } from "vitest";
import { reindexAnswer } from "../../src/routes/reindex.js";
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

it("still reports a team whose Notion pull fails, with nothing pulled", async () => {
  const team = await makeTeam(app);
  await connectNotion(app, team, "ntn_a_token_the_double_does_not_know_0123");
  await app.request("/v1/entries", { method: "POST", token: team.apiKey, json: { title: "Kept" } });
  const answer = await expectOk(
    await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN, json: { teamId: team.teamId } }),
    200,
    reindexAnswer,
  );
  expect(answer.teams[0]).toMatchObject({ teamId: team.teamId, synced: 0, entries: 1 });
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
