// NotionSync over the local double. pullSince, the healing half of the Notion source (reindex calls it):
// every page on the first sync, then only pages Notion's search reports edited since the last sync (less a
// minute, as Notion rounds edit times to the minute), so a page changed while no webhook arrived is
// re-pulled. And applyEvent's bounded retries and outcomes, with waits recorded instead of slept; its
// check against a newer event recorded by another instance; and the per-team limit on page syncs in flight.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { type LogFields, type Logger, silentLogger } from "../../src/logger.js";
import { blindIndex, type TeamKey } from "../../src/seal/team-key.js";
import { DocumentService } from "../../src/services/documents.js";
import { defaultRetryPolicy } from "../../src/sources/notion/client.js";
import {
  FULL_PULL,
  MAX_SEARCH_REQUESTS,
  NotionSync,
  PAGE_SYNCS_PER_TEAM,
  TASK_ATTEMPTS,
  TASK_RETRY_MS,
} from "../../src/sources/notion/sync.js";
import { SourceSecrets } from "../../src/sources/secrets.js";
import { buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { minuteOf, NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";
import { connectNotion, deliver, notionEvent, postWebhook, signNotion } from "../support/notion-webhook.js";

let double: NotionDouble;
let app: TestApp;
let team: { teamId: string; apiKey: string };
let key: TeamKey;

beforeEach(async () => {
  // A fresh double per test (an empty workspace): several tests count what the first pull reads.
  double = await NotionDouble.start();
  app = await buildTestApp({ config: { notionApiUrl: double.url } });
  team = await makeTeam(app);
  await connectNotion(app, team, NOTION_DOUBLE_TOKEN);
  const opened = await app.memoria.directory.teamKey(team.teamId);
  if (!opened) throw new Error("no key");
  key = opened;
});
afterEach(async () => {
  await app.memoria.sources.idle();
  app.close();
  await double.close();
});

/**
 * A NotionSync of its own over the test app's storage, whose retries are recorded instead of waited. Two of
 * them over one storage are two instances of memoria.
 */
function fastSync(maxDocumentBytes = 5 * 1024 * 1024, logger: Logger = silentLogger) {
  const waits: number[] = [];
  const sync = new NotionSync({
    storage: app.storage,
    secrets: new SourceSecrets({ storage: app.storage, clock: systemClock }),
    documents: new DocumentService({
      storage: app.storage,
      indexes: app.memoria.indexes,
      clock: systemClock,
      maxDocumentBytes,
    }),
    clock: systemClock,
    logger,
    apiUrl: double.url,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { sync, waits };
}

const syncedAt = async () => (await app.storage.sources.get(team.teamId, "notion.token"))?.syncedAt ?? null;

/** A logger that keeps its lines, for tests that read what was logged. */
function recordingLogger() {
  const lines: { level: string; message: string; fields: LogFields }[] = [];
  const at =
    (level: string) =>
    (message: string, fields: LogFields = {}) => {
      lines.push({ level, message, fields });
    };
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

describe("NotionSync.pullSince", () => {
  it("pulls every page on the first sync, with paths, and records when the pull started", async () => {
    const handbook = double.addPage({
      title: "Handbook",
      blocks: [{ type: "paragraph", text: "root bilby" }],
    });
    const onboarding = double.addPage({ title: "Onboarding", parent: { page: handbook } });
    double.addPage({
      title: "Welcome",
      parent: { page: onboarding },
      blocks: [{ type: "paragraph", text: "Ask the platypus desk." }],
      lastEdited: "2020-01-01T00:00:00.000Z",
    });
    expect(await syncedAt()).toBeNull();
    const before = new Date().toISOString();
    expect(await app.memoria.notion.pullSince(key)).toBe(3);
    const at = await syncedAt();
    expect(at).not.toBeNull();
    expect((at ?? "") >= before).toBe(true);
    const hit = (await search(app, team.apiKey, "platypus")).hits[0];
    expect(hit?.title).toBe("Welcome");
    expect(hit?.path).toEqual(["Handbook", "Onboarding"]);
    expect(double.headerFailures).toEqual([]);
  });

  it("re-pulls a page changed while no webhook arrived, and leaves pages edited long before alone", async () => {
    const old = double.addPage({
      title: "Old",
      blocks: [{ type: "paragraph", text: "ancient gharial" }],
      lastEdited: minuteOf(Date.now() - 3600_000),
    });
    const live = double.addPage({
      title: "Live",
      blocks: [{ type: "paragraph", text: "The code is dugong." }],
    });
    expect(await app.memoria.notion.pullSince(key)).toBe(2);
    expect((await search(app, team.apiKey, "dugong")).hits).toHaveLength(1);

    // Edited in Notion; the webhook never came.
    double.setBlocks(live, [{ type: "paragraph", text: "The code is manatee." }]);
    const asked = double.requestsTo(`/v1/pages/${old}`).length;
    expect(await app.memoria.notion.pullSince(key)).toBe(1);
    expect((await search(app, team.apiKey, "dugong")).hits).toHaveLength(0);
    expect((await search(app, team.apiKey, "manatee")).hits).toHaveLength(1);
    expect(double.requestsTo(`/v1/pages/${old}`)).toHaveLength(asked);
    expect((await search(app, team.apiKey, "gharial")).hits).toHaveLength(1);
  });

  it("keeps a minute's margin: a page whose rounded edit time is just before the last sync is re-pulled", async () => {
    const pageId = double.addPage({ title: "Edge", blocks: [{ type: "paragraph", text: "first tapir" }] });
    await app.memoria.notion.pullSince(key);
    const last = Date.parse((await syncedAt()) ?? "");
    // Notion reports the edit rounded down to the minute, which can be before the sync time it followed.
    double.setBlocks(
      pageId,
      [{ type: "paragraph", text: "second okapi" }],
      new Date(last - 59_000).toISOString(),
    );
    expect(await app.memoria.notion.pullSince(key)).toBe(1);
    expect((await search(app, team.apiKey, "okapi")).hits).toHaveLength(1);
  });

  it("pages through search results (more than one page of 100)", async () => {
    for (let i = 0; i < 120; i++) double.addPage({ title: `Page ${i}`, blocks: [] });
    expect(await app.memoria.notion.pullSince(key)).toBe(120);
    expect(double.requestsTo("/v1/search")).toHaveLength(2);
  });

  it("pulls nothing for a team without a Notion token", async () => {
    double.addPage({ title: "Unseen", blocks: [{ type: "paragraph", text: "kiwi" }] });
    await app.request("/v1/sources/notion", { method: "DELETE", token: team.apiKey });
    expect(await app.memoria.notion.pullSince(key)).toBe(0);
    expect(double.requests).toEqual([]);
  });

  it("shares one pull between concurrent callers for the same team", async () => {
    double.addPage({ title: "Once", blocks: [] });
    const [a, b] = await Promise.all([app.memoria.notion.pullSince(key), app.memoria.notion.pullSince(key)]);
    expect([a, b]).toEqual([1, 1]);
    expect(double.requestsTo("/v1/search")).toHaveLength(1);
  });

  it("waits out a 429 during a pull", async () => {
    double.addPage({ title: "Slow", blocks: [{ type: "paragraph", text: "sloth" }] });
    double.rateLimitNext(1, "1");
    expect(await app.memoria.notion.pullSince(key)).toBe(1);
    expect((await search(app, team.apiKey, "sloth")).hits).toHaveLength(1);
  });

  it("throws when Notion refuses the token, and keeps the last sync time", async () => {
    double.addPage({ title: "Locked", blocks: [] });
    await app.memoria.notion.pullSince(key);
    const before = await syncedAt();
    double.token = "ntn_rotated_elsewhere";
    await expect(app.memoria.notion.pullSince(key)).rejects.toMatchObject({
      name: "NotionApiError",
      status: 401,
    });
    expect(await syncedAt()).toBe(before);
  });

  it("after a page moves, the next pull reads every page, so descendants' paths follow", async () => {
    const from = double.addPage({ title: "Drafts", lastEdited: minuteOf(Date.now() - 7200_000) });
    const to = double.addPage({ title: "Published", lastEdited: minuteOf(Date.now() - 7200_000) });
    const section = double.addPage({
      title: "Section",
      parent: { page: from },
      lastEdited: minuteOf(Date.now() - 7200_000),
    });
    double.addPage({
      title: "Chapter",
      parent: { page: section },
      blocks: [{ type: "paragraph", text: "narwhal" }],
      lastEdited: minuteOf(Date.now() - 7200_000),
    });
    await app.memoria.notion.pullSince(key);
    expect((await search(app, team.apiKey, "narwhal")).hits[0]?.path).toEqual(["Drafts", "Section"]);

    // The section moves; the chapter under it is not edited, so its edit time stays old.
    double.move(section, { page: to });
    await deliver(app, team.teamId, notionEvent("page.moved", section, new Date().toISOString()));
    expect(await app.memoria.notion.pullSince(key)).toBe(4);
    expect((await search(app, team.apiKey, "narwhal")).hits[0]?.path).toEqual(["Published", "Section"]);
  });

  it("skips a page that keeps failing, keeps the last sync time, and gets it on the next pull", async () => {
    const { sync, waits } = fastSync();
    const broken = double.addPage({ title: "Broken", blocks: [{ type: "paragraph", text: "jerboa" }] });
    double.addPage({ title: "Fine", blocks: [{ type: "paragraph", text: "meerkat" }] });
    double.failNext(1000, 500, new RegExp(broken));
    expect(await sync.pullSince(key)).toBe(1);
    expect((await search(app, team.apiKey, "meerkat")).hits).toHaveLength(1);
    expect(await syncedAt()).toBeNull();
    // Bounded: the client's tries for each of the page's tries, no more. (The pull reads the page object
    // from its search, so what fails is the page's blocks.)
    expect(double.requestsTo(new RegExp(broken))).toHaveLength(
      TASK_ATTEMPTS * defaultRetryPolicy.maxAttempts,
    );
    const client = [500, 1000, 2000, 4000];
    expect(waits).toEqual([...client, TASK_RETRY_MS, ...client, TASK_RETRY_MS * 4, ...client]);

    double.recover();
    expect(await sync.pullSince(key)).toBe(2);
    expect((await search(app, team.apiKey, "jerboa")).hits).toHaveLength(1);
    expect(await syncedAt()).not.toBeNull();
  });
});

describe("NotionSync.pullSince: requests", () => {
  it("reads each page it found through search from the search result, without asking Notion for the page again", async () => {
    for (const title of ["One", "Two", "Three"]) {
      double.addPage({ title, blocks: [{ type: "paragraph", text: `${title} gecko` }] });
    }
    expect(await app.memoria.notion.pullSince(key)).toBe(3);
    expect((await search(app, team.apiKey, "gecko")).hits).toHaveLength(3);
    // Pages at the workspace's top have no ancestors to look up: one search, each page's blocks, nothing else.
    expect(double.requestsTo(/^\/v1\/pages\//)).toEqual([]);
    expect(double.requestsTo("/v1/search")).toHaveLength(1);
    expect(double.requestsTo(/^\/v1\/blocks\/[^/]+\/children$/)).toHaveLength(3);
  });

  it("stops a search that gives the same cursor again, logs it, keeps what it read and the last sync time", async () => {
    const { logger, lines } = recordingLogger();
    const { sync } = fastSync(undefined, logger);
    double.addPage({ title: "Looped", blocks: [{ type: "paragraph", text: "ouroboros" }] });
    double.stallListing(/^\/v1\/search$/, "repeat");
    // Notion answers has_more with the same cursor every time: the second answer repeats it, and that ends
    // the search. Both answers listed the page, so it was read twice.
    expect(await sync.pullSince(key)).toBe(2);
    expect(double.requestsTo("/v1/search")).toHaveLength(2);
    expect((await search(app, team.apiKey, "ouroboros")).hits).toHaveLength(1);
    expect(await syncedAt()).toBeNull();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "notion search stopped",
        fields: expect.objectContaining({ reason: "repeated_cursor" }),
      }),
    );
  });

  it("stops a search that keeps giving new cursors after MAX_SEARCH_REQUESTS requests", async () => {
    const { logger, lines } = recordingLogger();
    const { sync } = fastSync(undefined, logger);
    double.stallListing(/^\/v1\/search$/, "endless");
    expect(await sync.pullSince(key)).toBe(0);
    expect(double.requestsTo("/v1/search")).toHaveLength(MAX_SEARCH_REQUESTS);
    expect(await syncedAt()).toBeNull();
    expect(lines.find((l) => l.message === "notion search stopped")?.fields.reason).toBe("too_many_requests");
  });
});

describe("NotionSync.pullSince and pages that can never be stored", () => {
  it("skips a page too large to store without holding the sync time back", async () => {
    const { sync } = fastSync(10);
    double.addPage({ title: "Huge", blocks: [{ type: "paragraph", text: "far more than ten bytes" }] });
    double.addPage({ title: "Tiny", blocks: [] });
    expect(await sync.pullSince(key)).toBe(1);
    expect(await syncedAt()).not.toBeNull();
  });
});

describe("NotionSync.applyEvent", () => {
  it("tries a page's work again when Notion stays down longer than the client's own retries", async () => {
    const { sync, waits } = fastSync();
    const pageId = double.addPage({ title: "Outage", blocks: [{ type: "paragraph", text: "pangolin" }] });
    double.failNext(defaultRetryPolicy.maxAttempts + 1, 503, new RegExp(pageId));
    const outcome = await sync.applyEvent(
      key,
      notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"),
    );
    expect(outcome).toBe("upserted");
    expect(waits).toContain(TASK_RETRY_MS);
    expect((await search(app, team.apiKey, "pangolin")).hits).toHaveLength(1);
  });

  it("does not retry what retrying cannot fix (a page too large to store)", async () => {
    const { sync, waits } = fastSync(10);
    const pageId = double.addPage({
      title: "Huge",
      blocks: [{ type: "paragraph", text: "far more than ten bytes" }],
    });
    await expect(
      sync.applyEvent(key, notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z")),
    ).rejects.toMatchObject({ code: "payload_too_large" });
    expect(double.requestsTo(`/v1/pages/${pageId}`)).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("keeps no time for an event dated more than five minutes after its clock, and fetches nothing", async () => {
    const { sync } = fastSync();
    const pageId = double.addPage({ title: "Ahead", blocks: [{ type: "paragraph", text: "tarsier" }] });
    // systemClock here: the sync judges against the clock it was given (the app's), never against Date.now
    // behind its back — a minute past the lead is refused, a minute inside it is applied.
    const ahead = new Date(systemClock.now().getTime() + 6 * 60_000).toISOString();
    expect(await sync.applyEvent(key, notionEvent("page.created", pageId, ahead))).toBe("ahead");
    expect(double.requestsTo(new RegExp(pageId))).toEqual([]);
    expect(
      await app.storage.pageEvents.newest(team.teamId, await blindIndex(key, `notion-page:${pageId}`)),
    ).toBe(null);
    const inside = new Date(systemClock.now().getTime() + 4 * 60_000).toISOString();
    expect(await sync.applyEvent(key, notionEvent("page.created", pageId, inside))).toBe("upserted");
  });

  it("reports what it did: ignored, stale, no token", async () => {
    const { sync } = fastSync();
    const pageId = double.addPage({ title: "Outcomes", blocks: [] });
    expect(await sync.applyEvent(key, notionEvent("comment.created", pageId, "2025-03-01T10:00:00Z"))).toBe(
      "ignored",
    );
    expect(await sync.applyEvent(key, notionEvent("page.created", "not-an-id", "2025-03-01T10:00:00Z"))).toBe(
      "ignored",
    );
    expect(await sync.applyEvent(key, notionEvent("page.created", pageId, "yesterday"))).toBe("ignored");
    expect(await sync.applyEvent(key, notionEvent("page.created", pageId, "2025-03-01T10:00:00Z"))).toBe(
      "upserted",
    );
    expect(await sync.applyEvent(key, notionEvent("page.created", pageId, "2025-03-01T09:00:00Z"))).toBe(
      "stale",
    );
    await app.request("/v1/sources/notion", { method: "DELETE", token: team.apiKey });
    expect(await sync.applyEvent(key, notionEvent("page.moved", pageId, "2025-03-01T11:00:00Z"))).toBe(
      "no_token",
    );
  });
});

describe("NotionSync.applyEvent across instances", () => {
  it("an older event whose read finishes after another instance applied a newer one does not overwrite it", async () => {
    const a = fastSync().sync;
    const b = fastSync().sync;
    const pageId = double.addPage({ title: "Race", blocks: [{ type: "paragraph", text: "old caracal" }] });
    // Instance A reads the page as it is now; its answer is held back until B is done.
    const held = double.holdNext(new RegExp(`^/v1/blocks/${pageId}/children$`));
    const older = a.applyEvent(key, notionEvent("page.content_updated", pageId, "2025-03-01T10:00:00.000Z"));
    await held.arrived;
    double.setBlocks(pageId, [{ type: "paragraph", text: "new serval" }]);
    expect(
      await b.applyEvent(key, notionEvent("page.content_updated", pageId, "2025-03-01T10:01:00.000Z")),
    ).toBe("upserted");
    held.release();
    expect(await older).toBe("superseded");
    expect((await search(app, team.apiKey, "serval")).hits).toHaveLength(1);
    expect((await search(app, team.apiKey, "caracal")).hits).toHaveLength(0);
  });

  it("an older delete whose read finishes after another instance applied an undelete does not delete the page", async () => {
    const a = fastSync().sync;
    const b = fastSync().sync;
    const pageId = double.addPage({ title: "Lazarus", blocks: [{ type: "paragraph", text: "axolotl" }] });
    await b.applyEvent(key, notionEvent("page.created", pageId, "2025-03-01T09:00:00.000Z"));
    double.trash(pageId);
    const held = double.holdNext(new RegExp(`^/v1/pages/${pageId}$`));
    const deleted = a.applyEvent(key, notionEvent("page.deleted", pageId, "2025-03-01T10:00:00.000Z"));
    await held.arrived;
    double.trash(pageId, false);
    expect(await b.applyEvent(key, notionEvent("page.undeleted", pageId, "2025-03-01T10:01:00.000Z"))).toBe(
      "upserted",
    );
    held.release();
    expect(await deleted).toBe("superseded");
    expect((await search(app, team.apiKey, "axolotl")).hits).toHaveLength(1);
  });
});

describe("NotionSync.applyEvent: page.moved", () => {
  it("asks for a full pull even when reading the moved page fails, so descendants' paths still follow", async () => {
    const { sync } = fastSync();
    const from = double.addPage({ title: "Drafts", lastEdited: minuteOf(Date.now() - 7200_000) });
    const to = double.addPage({ title: "Published", lastEdited: minuteOf(Date.now() - 7200_000) });
    const section = double.addPage({
      title: "Section",
      parent: { page: from },
      lastEdited: minuteOf(Date.now() - 7200_000),
    });
    double.addPage({
      title: "Chapter",
      parent: { page: section },
      blocks: [{ type: "paragraph", text: "beluga" }],
      lastEdited: minuteOf(Date.now() - 7200_000),
    });
    await sync.pullSince(key);
    expect(await syncedAt()).not.toBe(FULL_PULL);

    double.move(section, { page: to });
    double.failNext(1000, 503, new RegExp(section));
    await expect(
      sync.applyEvent(key, notionEvent("page.moved", section, new Date().toISOString())),
    ).rejects.toMatchObject({ name: "NotionApiError", status: 503 });
    expect(await syncedAt()).toBe(FULL_PULL);

    double.recover();
    expect(await sync.pullSince(key)).toBe(4);
    expect((await search(app, team.apiKey, "beluga")).hits[0]?.path).toEqual(["Published", "Section"]);
  });
});

describe("NotionSync: page syncs in flight per team", () => {
  it(`a burst of 10 events never has more than ${PAGE_SYNCS_PER_TEAM} page syncs in flight at Notion`, async () => {
    // Top-level pages: a page sync asks one thing at a time (the page, then its blocks), so requests in
    // flight at the double are page syncs in flight. Each answer takes a while, so unlimited syncs would overlap.
    const pages = Array.from({ length: 10 }, (_, i) =>
      double.addPage({ title: `Burst ${i}`, blocks: [{ type: "paragraph", text: `lemming${i}` }] }),
    );
    double.delayAnswers(40);
    const answers = await Promise.all(
      pages.map((pageId) => {
        const body = JSON.stringify(notionEvent("page.created", pageId, "2025-03-01T10:00:00.000Z"));
        return postWebhook(app, team.teamId, body, { "x-notion-signature": signNotion(body) });
      }),
    );
    expect(answers.map((r) => r.status)).toEqual(pages.map(() => 200));
    await app.memoria.sources.idle();
    expect(double.maxInFlight).toBe(PAGE_SYNCS_PER_TEAM);
    expect(double.requestsTo(/^\/v1\/pages\//)).toHaveLength(10);
    for (let i = 0; i < 10; i++) expect((await search(app, team.apiKey, `lemming${i}`)).hits).toHaveLength(1);
  });
});
