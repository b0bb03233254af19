// The Notion client against the local double: the headers every request carries, Retry-After honoured on a
// 429 (with a real one-second wait), exponential backoff on 5xx, both bounded, and errors that name the
// status and never the token or Notion's message.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  NotionApiError,
  NotionClient,
  NotionUnreachableError,
  retryAfterMs,
} from "../../src/sources/notion/client.js";
import { NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";

let double: NotionDouble;
beforeAll(async () => {
  double = await NotionDouble.start();
});
afterAll(() => double.close());

/** A client whose waits are recorded and skipped. */
function fastClient(options: { token?: string; baseUrl?: string; maxAttempts?: number } = {}) {
  const waits: number[] = [];
  const client = new NotionClient({
    baseUrl: options.baseUrl ?? double.url,
    token: options.token ?? NOTION_DOUBLE_TOKEN,
    sleep: async (ms) => {
      waits.push(ms);
    },
    retry: { maxAttempts: options.maxAttempts ?? 5 },
  });
  return { client, waits };
}

describe("NotionClient", () => {
  it("sends the bearer token and Notion-Version 2025-09-03 on every request", async () => {
    const pageId = double.addPage({ title: "Headers", blocks: [{ type: "paragraph", text: "hi" }] });
    const { client } = fastClient();
    const page = await client.getPage(pageId);
    expect(page.id).toBe(pageId);
    const children = await client.listBlockChildren(pageId, null);
    expect(children.results).toHaveLength(1);
    const found = await client.searchPages(null);
    expect(found.results.map((p) => p.id)).toContain(pageId);
    expect(double.headerFailures).toEqual([]);
    const search = double.requestsTo("/v1/search").at(-1);
    expect(search?.body).toEqual({
      filter: { property: "object", value: "page" },
      sort: { direction: "descending", timestamp: "last_edited_time" },
      page_size: 100,
    });
  });

  it("waits out a 429 for its Retry-After seconds, then succeeds", async () => {
    const pageId = double.addPage({ title: "Throttled" });
    double.rateLimitNext(1, "1");
    // The wait is really taken (the double answers 429 until it has passed), and it is the one asked for.
    const waits: number[] = [];
    const client = new NotionClient({
      baseUrl: double.url,
      token: NOTION_DOUBLE_TOKEN,
      sleep: async (ms) => {
        waits.push(ms);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const page = await client.getPage(pageId);
    expect(page.id).toBe(pageId);
    expect(double.requestsTo(`/v1/pages/${pageId}`)).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it("cuts a long Retry-After to its bound and gives up after a bounded number of 429s", async () => {
    const pageId = double.addPage({ title: "Throttled for long" });
    double.rateLimitNext(4, "3600");
    const { client, waits } = fastClient({ maxAttempts: 4 });
    const error = await client.getPage(pageId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotionApiError);
    expect((error as NotionApiError).status).toBe(429);
    expect((error as NotionApiError).transient).toBe(true);
    expect(waits).toEqual([30_000, 30_000, 30_000]);
    expect(double.requestsTo(`/v1/pages/${pageId}`)).toHaveLength(4);
  });

  it("backs off exponentially on 5xx and succeeds once Notion recovers", async () => {
    const pageId = double.addPage({ title: "Flaky" });
    double.failNext(3, 502);
    const { client, waits } = fastClient();
    expect((await client.getPage(pageId)).id).toBe(pageId);
    expect(waits).toEqual([500, 1000, 2000]);
  });

  it("gives up on 5xx after the bounded tries, with the status and no body in the error", async () => {
    const pageId = double.addPage({ title: "Down" });
    double.failNext(5, 503);
    const { client, waits } = fastClient({ maxAttempts: 5 });
    const error = await client.getPage(pageId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotionApiError);
    expect((error as NotionApiError).status).toBe(503);
    expect(waits).toEqual([500, 1000, 2000, 4000]);
    expect(double.requestsTo(`/v1/pages/${pageId}`)).toHaveLength(5);
  });

  it("does not retry a 404, and the error holds Notion's code but neither its message nor the token", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const { client, waits } = fastClient();
    const error = (await client.getPage(missing).catch((e: unknown) => e)) as NotionApiError;
    expect(error).toBeInstanceOf(NotionApiError);
    expect(error.status).toBe(404);
    expect(error.notFound).toBe(true);
    expect(error.code).toBe("object_not_found");
    expect(waits).toEqual([]);
    expect(error.message).not.toContain(missing);
    expect(error.message).not.toContain("Could not find");
    expect(error.message).not.toContain(NOTION_DOUBLE_TOKEN);
  });

  it("refuses a wrong token with 401 and never echoes it", async () => {
    const wrong = "ntn_wrong_token_abcdef";
    const { client } = fastClient({ token: wrong });
    const error = (await client.searchPages(null).catch((e: unknown) => e)) as NotionApiError;
    expect(error.status).toBe(401);
    expect(error.message).not.toContain(wrong);
    double.headerFailures.length = 0;
  });

  it("treats an unreachable Notion as a bounded number of tries with backoff", async () => {
    const closed = await NotionDouble.start();
    const url = closed.url;
    await closed.close();
    const { client, waits } = fastClient({ baseUrl: url, maxAttempts: 3 });
    const error = await client.getPage("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotionUnreachableError);
    expect(waits).toEqual([500, 1000]);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs("1")).toBe(1000);
    expect(retryAfterMs("0.5")).toBe(500);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs("Wed, 01 Jan 2025 00:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("soon")).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});
