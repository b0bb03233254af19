// The Notion source end to end, against the local double: a team stores its token, Notion verifies the
// webhook, and signed page events make, update and delete documents that search finds with their ancestry.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notionSourceAnswer, notionSourceDetail, webhookAnswer } from "../../src/routes/notion.js";
import { blindIndex } from "../../src/seal/team-key.js";
import { makeTeam, search, type TestApp } from "../support/app.js";
import { NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";
import {
  connectNotion,
  deliver,
  handshake,
  notionEvent,
  postWebhook,
  signNotion,
  VERIFICATION_TOKEN,
} from "../support/notion-webhook.js";
import { expectError, expectNoContent, expectOk, withApp } from "./contract.js";

let double: NotionDouble;
beforeAll(async () => {
  double = await NotionDouble.start();
});
afterAll(() => double.close());

/** A fresh app pointed at the double, with a team connected to "Notion". */
function withNotion(body: (app: TestApp, team: { teamId: string; apiKey: string }) => Promise<void>) {
  return withApp(
    async (app) => {
      try {
        const team = await makeTeam(app);
        await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
        await body(app, team);
      } finally {
        await app.memoria.sources.idle();
      }
    },
    { config: { notionApiUrl: double.url } },
  );
}

async function documentsOf(app: TestApp, apiKey: string) {
  const res = await app.request("/v1/documents", { token: apiKey });
  return ((await res.json()) as { documents: { id: string; title: string; externalId?: string }[] })
    .documents;
}

describe("PUT and DELETE /v1/sources/notion", () => {
  it("stores the token and says whether the webhook is verified yet", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const put = () =>
        app.request("/v1/sources/notion", {
          method: "PUT",
          token: apiKey,
          json: { token: NOTION_DOUBLE_TOKEN },
        });
      expect(await expectOk(await put(), 200, notionSourceAnswer)).toEqual({
        source: { kind: "notion", verified: false },
      });
      expect(await app.storage.sources.get(teamId, "notion.token")).not.toBeNull();
      await expectOk(await handshake(app, teamId), 200, webhookAnswer);
      // Replacing the token keeps the verification token.
      expect(await expectOk(await put(), 200, notionSourceAnswer)).toEqual({
        source: { kind: "notion", verified: true },
      });
    }));

  it("DELETE forgets the token and the verification token, so a new subscription can verify", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      await expectNoContent(
        await app.request("/v1/sources/notion", { method: "DELETE", token: team.apiKey }),
      );
      expect(await app.storage.sources.get(team.teamId, "notion.token")).toBeNull();
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).toBeNull();
      // A new subscription: the token first (a handshake needs it), then Notion's new verification token.
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: team.apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      await expectOk(await handshake(app, team.teamId, "secret_a_new_subscription"), 200, webhookAnswer);
      // Deleting again is fine: nothing stored is nothing to forget.
      await expectNoContent(
        await app.request("/v1/sources/notion", { method: "DELETE", token: team.apiKey }),
      );
    }));
});

describe("GET /v1/sources/notion", () => {
  it("shows the team key the verification token to paste into Notion: null before the handshake, then the token", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      const get = () => app.request("/v1/sources/notion", { token: apiKey });
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      const before = await get();
      expect(before.headers.get("cache-control")).toBe("no-store");
      const { webhookUrl } = (await expectOk(before, 200, notionSourceDetail)).source;
      expect(await expectOk(await get(), 200, notionSourceDetail)).toEqual({
        source: { kind: "notion", verified: false, verificationToken: null, webhookUrl },
      });
      await expectOk(await handshake(app, teamId), 200, webhookAnswer);
      const res = await get();
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await expectOk(res, 200, notionSourceDetail)).toEqual({
        source: { kind: "notion", verified: true, verificationToken: VERIFICATION_TOKEN, webhookUrl },
      });
    }));

  it("answers 404 not_found when no Notion token is stored, before a PUT and after a DELETE", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await expectError(await app.request("/v1/sources/notion", { token: team.apiKey }), 404, "not_found");
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      await expectOk(
        await app.request("/v1/sources/notion", { token: team.apiKey }),
        200,
        notionSourceDetail,
      );
      await app.request("/v1/sources/notion", { method: "DELETE", token: team.apiKey });
      await expectError(await app.request("/v1/sources/notion", { token: team.apiKey }), 404, "not_found");
    }));
});

describe("PUT /v1/sources/notion: the sync time", () => {
  it("a different token clears the team's sync time, so the next pull reads every page; the same token keeps it", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
      const syncedAt = async () =>
        (await app.storage.sources.get(team.teamId, "notion.token"))?.syncedAt ?? null;
      const put = (token: string) =>
        app.request("/v1/sources/notion", { method: "PUT", token: team.apiKey, json: { token } });
      const last = "2025-03-01T10:00:00.000Z";
      await app.storage.sources.setSyncedAt(team.teamId, "notion.token", last);

      await expectOk(await put(NOTION_DOUBLE_TOKEN), 200, notionSourceAnswer);
      expect(await syncedAt()).toBe(last);

      await expectOk(await put("ntn_a_token_for_another_workspace_0123"), 200, notionSourceAnswer);
      expect(await syncedAt()).toBeNull();
      // The verification token is the subscription's, not the integration token's: it stays.
      expect(await app.storage.sources.get(team.teamId, "notion.verification")).not.toBeNull();
    }));
});

describe("POST /v1/webhooks/notion/{teamId}: the handshake", () => {
  it("stores the verification token, answers 200, and answers 200 to the same token again", () =>
    withApp(async (app) => {
      const { teamId, apiKey } = await makeTeam(app);
      await app.request("/v1/sources/notion", {
        method: "PUT",
        token: apiKey,
        json: { token: NOTION_DOUBLE_TOKEN },
      });
      await expectOk(await handshake(app, teamId), 200, webhookAnswer);
      const row = await app.storage.sources.get(teamId, "notion.verification");
      expect(row).not.toBeNull();
      await expectOk(await handshake(app, teamId), 200, webhookAnswer);
      expect((await app.storage.sources.get(teamId, "notion.verification"))?.sealed).toEqual(row?.sealed);
    }));
});

describe("Notion page events", () => {
  it("page.created: the page becomes searchable with its title and its ancestry path", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const handbook = double.addPage({ title: "Handbook" });
      const onboarding = double.addPage({ title: "Onboarding", parent: { page: handbook } });
      const welcome = double.addPage({
        title: "Welcome aboard",
        parent: { page: onboarding },
        blocks: [
          { type: "heading_1", text: "Laptops" },
          { type: "paragraph", text: "Ask the platypus desk for a laptop." },
        ],
      });
      const res = await deliver(
        app,
        teamId,
        notionEvent("page.created", welcome, "2025-03-01T10:00:00.000Z"),
      );
      await expectOk(res, 200, webhookAnswer);
      const { hits } = await search(app, apiKey, "platypus");
      expect(hits).toHaveLength(1);
      expect(hits[0]?.title).toBe("Welcome aboard");
      expect(hits[0]?.path).toEqual(["Handbook", "Onboarding"]);
      expect(hits[0]?.heading).toBe("Laptops");
      const docs = await documentsOf(app, apiKey);
      expect(docs.map((d) => d.externalId)).toEqual([`notion:${welcome}`]);
      expect(double.headerFailures).toEqual([]);
    }));

  it("page.content_updated: the old text is gone and the new text found, in the same document", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({
        title: "Office",
        blocks: [{ type: "paragraph", text: "The wifi password is kookaburra." }],
      });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      const [before] = await documentsOf(app, apiKey);
      expect((await search(app, apiKey, "kookaburra")).hits).toHaveLength(1);

      double.setBlocks(pageId, [{ type: "paragraph", text: "The wifi password is cassowary." }]);
      await deliver(app, teamId, notionEvent("page.content_updated", pageId, "2025-03-01T10:05:00.000Z"));
      expect((await search(app, apiKey, "kookaburra")).hits).toHaveLength(0);
      expect((await search(app, apiKey, "cassowary")).hits).toHaveLength(1);
      const after = await documentsOf(app, apiKey);
      expect(after.map((d) => d.id)).toEqual([before?.id]);
    }));

  it("page.properties_updated: a renamed page is found by its new title", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Draft", blocks: [{ type: "paragraph", text: "body" }] });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      double.rename(pageId, "Quarterly wallaby review");
      await deliver(app, teamId, notionEvent("page.properties_updated", pageId, "2025-03-01T10:01:00.000Z"));
      expect((await search(app, apiKey, "wallaby")).hits[0]?.title).toBe("Quarterly wallaby review");
    }));

  it("an older event arriving after a newer one is ignored: Notion is not even asked", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Ordering", blocks: [{ type: "paragraph", text: "dingo" }] });
      await deliver(app, teamId, notionEvent("page.content_updated", pageId, "2025-03-01T10:05:00.000Z"));
      const asked = double.requestsTo(`/v1/pages/${pageId}`).length;
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      // The same time again is not newer either.
      await deliver(app, teamId, notionEvent("page.content_updated", pageId, "2025-03-01T10:05:00.000Z"));
      expect(double.requestsTo(`/v1/pages/${pageId}`)).toHaveLength(asked);
      // And an older delete does not remove what a newer event stored.
      await deliver(app, teamId, notionEvent("page.deleted", pageId, "2025-03-01T09:00:00.000Z"));
      expect((await search(app, apiKey, "dingo")).hits).toHaveLength(1);
    }));

  it("page.deleted: the document is gone from the documents list and from search", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Doomed", blocks: [{ type: "paragraph", text: "bandicoot" }] });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      expect((await search(app, apiKey, "bandicoot")).hits).toHaveLength(1);
      double.trash(pageId);
      await deliver(app, teamId, notionEvent("page.deleted", pageId, "2025-03-01T10:01:00.000Z"));
      expect((await search(app, apiKey, "bandicoot")).hits).toHaveLength(0);
      expect(await documentsOf(app, apiKey)).toEqual([]);
    }));

  it("page.deleted for a page Notion answers 404 for (deleted for good) deletes the document", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Gone", blocks: [{ type: "paragraph", text: "thylacine" }] });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      double.remove(pageId);
      await deliver(app, teamId, notionEvent("page.deleted", pageId, "2025-03-01T10:01:00.000Z"));
      expect((await search(app, apiKey, "thylacine")).hits).toHaveLength(0);
      expect(await documentsOf(app, apiKey)).toEqual([]);
    }));

  it("page.undeleted after a delete brings the page back", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Phoenix", blocks: [{ type: "paragraph", text: "firebird" }] });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      double.trash(pageId);
      await deliver(app, teamId, notionEvent("page.deleted", pageId, "2025-03-01T10:01:00.000Z"));
      expect((await search(app, apiKey, "firebird")).hits).toHaveLength(0);
      double.trash(pageId, false);
      await deliver(app, teamId, notionEvent("page.undeleted", pageId, "2025-03-01T10:02:00.000Z"));
      expect((await search(app, apiKey, "firebird")).hits).toHaveLength(1);
    }));

  it("an update event for a page found in the trash deletes its document", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Binned", blocks: [{ type: "paragraph", text: "wombat" }] });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      double.trash(pageId);
      await deliver(app, teamId, notionEvent("page.content_updated", pageId, "2025-03-01T10:01:00.000Z"));
      expect((await search(app, apiKey, "wombat")).hits).toHaveLength(0);
    }));

  it("page.moved refreshes the page's own path at once", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const from = double.addPage({ title: "Drafts" });
      const to = double.addPage({ title: "Published" });
      const pageId = double.addPage({
        title: "Essay",
        parent: { page: from },
        blocks: [{ type: "paragraph", text: "echidna" }],
      });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      expect((await search(app, apiKey, "echidna")).hits[0]?.path).toEqual(["Drafts"]);
      double.move(pageId, { page: to });
      await deliver(app, teamId, notionEvent("page.moved", pageId, "2025-03-01T10:01:00.000Z"));
      expect((await search(app, apiKey, "echidna")).hits[0]?.path).toEqual(["Published"]);
    }));

  it("a page under a database is found with the database in its path", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const wiki = double.addPage({ title: "Engineering" });
      const database = double.addDatabase({ title: "Runbooks", parent: { page: wiki } });
      const pageId = double.addPage({
        title: "Restart the queue",
        parent: { database },
        blocks: [{ type: "code", text: "systemctl restart quokka-queue", language: "shell" }],
      });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      const hit = (await search(app, apiKey, "quokka")).hits[0];
      expect(hit?.title).toBe("Restart the queue");
      expect(hit?.path).toEqual(["Engineering", "Runbooks"]);
    }));

  it("a long page with nested blocks is whole in its document (children pagination and recursion)", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({
        title: "Big page",
        blocks: [
          ...Array.from({ length: 130 }, (_, i) => ({ type: "paragraph", text: `Filler line ${i}.` })),
          {
            type: "toggle",
            text: "Open me",
            children: [
              {
                type: "bulleted_list_item",
                text: "Inner",
                children: [{ type: "paragraph", text: "pademelon" }],
              },
            ],
          },
        ],
      });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      expect(double.requestsTo(`/v1/blocks/${pageId}/children`)).toHaveLength(2);
      expect((await search(app, apiKey, "pademelon")).hits).toHaveLength(1);
      const [doc] = await documentsOf(app, apiKey);
      const full = await app.request(`/v1/documents/${doc?.id}`, { token: apiKey });
      const content = ((await full.json()) as { document: { content: string } }).document.content;
      expect(content).toContain("Filler line 0.");
      expect(content).toContain("Filler line 129.");
      expect(content).toContain("- Open me");
    }));

  it("a 429 from Notion is waited out (Retry-After: 1) and the page still arrives", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Patience", blocks: [{ type: "paragraph", text: "tortoise" }] });
      double.rateLimitNext(1, "1");
      const res = await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      expect(res.status).toBe(200);
      // Refused once, asked again after the wait, then answered.
      expect(double.requestsTo(`/v1/pages/${pageId}`)).toHaveLength(2);
      expect((await search(app, apiKey, "tortoise")).hits).toHaveLength(1);
    }));

  it("answers at once and does the fetching after the answer", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Later", blocks: [{ type: "paragraph", text: "sloth" }] });
      double.rateLimitNext(1, "1");
      const body = JSON.stringify(notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      const res = await postWebhook(app, teamId, body, { "x-notion-signature": signNotion(body) });
      expect(res.status).toBe(200);
      // Answered while the page's fetch is still waiting out its 429.
      expect(app.memoria.sources.pending).toBe(1);
      await app.memoria.sources.idle();
      expect((await search(app, apiKey, "sloth")).hits).toHaveLength(1);
    }));

  it("a page Notion no longer shares (404) loses its document on its next event", () =>
    withNotion(async (app, { teamId, apiKey }) => {
      const pageId = double.addPage({ title: "Shared once", blocks: [{ type: "paragraph", text: "quoll" }] });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      double.remove(pageId);
      await deliver(app, teamId, notionEvent("page.content_updated", pageId, "2025-03-01T10:01:00.000Z"));
      expect((await search(app, apiKey, "quoll")).hits).toHaveLength(0);
    }));

  it("acknowledges other event types and ignores them", () =>
    withNotion(async (app, { teamId }) => {
      const before = double.requests.length;
      const comment = notionEvent(
        "comment.created",
        "153104cd-477e-809d-8dc4-ff2d96ae3090",
        "2025-03-01T10:00:00Z",
      );
      await expectOk(await deliver(app, teamId, comment), 200, webhookAnswer);
      const database = notionEvent(
        "database.created",
        "153104cd-477e-809d-8dc4-ff2d96ae3091",
        "2025-03-01T10:00:00Z",
      );
      await expectOk(await deliver(app, teamId, database), 200, webhookAnswer);
      expect(double.requests.length).toBe(before);
    }));

  it("keeps the newest event time per page under a blind index, never the page id", () =>
    withNotion(async (app, { teamId }) => {
      const pageId = double.addPage({ title: "Blind", blocks: [] });
      await deliver(app, teamId, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
      const key = await app.memoria.directory.teamKey(teamId);
      if (!key) throw new Error("no key");
      const ref = await blindIndex(key, `notion-page:${pageId}`);
      expect(await app.storage.pageEvents.newest(teamId, ref)).toBe("2025-03-01T10:00:00.000Z");
      const rows = await app.storage.client.execute("SELECT page_ref FROM source_pages");
      expect(JSON.stringify(rows.rows)).not.toContain(pageId);
    }));
});
