// Reading a page from the double: every page of block children, nested children, and the ancestry path
// through pages, databases and blocks, each ancestor asked for once per reader; a listing that would not end
// is stopped.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotionClient } from "../../src/sources/notion/client.js";
import { MAX_BLOCK_DEPTH, MAX_CHILDREN_REQUESTS, PageReader } from "../../src/sources/notion/page-reader.js";
import { type BlockSpec, NOTION_DOUBLE_TOKEN, NotionDouble } from "../support/notion-double.js";

let double: NotionDouble;
beforeAll(async () => {
  double = await NotionDouble.start();
});
afterAll(() => double.close());

const reader = () => new PageReader(new NotionClient({ baseUrl: double.url, token: NOTION_DOUBLE_TOKEN }));

async function read(pageId: string) {
  const result = await reader().read(pageId);
  if ("trashed" in result) throw new Error("unexpectedly trashed");
  return result;
}

describe("PageReader", () => {
  it("reads every page of a long page's block children (has_more, next_cursor)", async () => {
    const blocks: BlockSpec[] = Array.from({ length: 250 }, (_, i) => ({
      type: "paragraph",
      text: `Line ${i} marmot${i}`,
    }));
    const pageId = double.addPage({ title: "Long page", blocks });
    const doc = await read(pageId);
    expect(doc.title).toBe("Long page");
    for (const i of [0, 99, 100, 199, 200, 249]) expect(doc.content).toContain(`marmot${i}`);
    const calls = double.requestsTo(`/v1/blocks/${pageId}/children`);
    expect(calls).toHaveLength(3);
    expect(calls.map((c) => c.query.page_size)).toEqual(["100", "100", "100"]);
    expect(calls[0]?.query.start_cursor).toBeUndefined();
    expect(calls[1]?.query.start_cursor).toBeTruthy();
  });

  it("recurses into blocks that have children, several levels down", async () => {
    const pageId = double.addPage({
      title: "Nested",
      blocks: [
        {
          type: "toggle",
          text: "Level one",
          children: [
            {
              type: "bulleted_list_item",
              text: "Level two",
              children: [{ type: "paragraph", text: "Level three axolotl" }],
            },
          ],
        },
        { type: "child_page", title: "A child page" },
      ],
    });
    const doc = await read(pageId);
    expect(doc.content).toContain("Level one");
    expect(doc.content).toContain("Level two");
    expect(doc.content).toContain("Level three axolotl");
    expect(doc.content).toContain("A child page");
  });

  it("stops at the depth bound instead of following nesting forever", async () => {
    let spec: BlockSpec = { type: "paragraph", text: "bottom" };
    for (let i = MAX_BLOCK_DEPTH + 2; i > 0; i--)
      spec = { type: "toggle", text: `depth${i}`, children: [spec] };
    const pageId = double.addPage({ title: "Deep", blocks: [spec] });
    const doc = await read(pageId);
    expect(doc.content).toContain(`depth${MAX_BLOCK_DEPTH}`);
    expect(doc.content).not.toContain(`depth${MAX_BLOCK_DEPTH + 1}`);
    expect(doc.content).not.toContain("bottom");
  });

  it("names the path by the titles above the page, root first", async () => {
    const handbook = double.addPage({ title: "Handbook" });
    const onboarding = double.addPage({ title: "Onboarding", parent: { page: handbook } });
    const welcome = double.addPage({ title: "Welcome", parent: { page: onboarding } });
    const doc = await read(welcome);
    expect(doc.title).toBe("Welcome");
    expect(doc.path).toEqual(["Handbook", "Onboarding"]);
  });

  it("names a database page's path through the database's title (2025-09-03 data source parent)", async () => {
    const wiki = double.addPage({ title: "Wiki" });
    const database = double.addDatabase({ title: "Runbooks", parent: { page: wiki } });
    const page = double.addPage({ title: "Restart the queue", parent: { database } });
    const doc = await read(page);
    expect(doc.title).toBe("Restart the queue");
    expect(doc.path).toEqual(["Wiki", "Runbooks"]);
  });

  it("walks through a block parent to the page that holds the block", async () => {
    const host = double.addPage({ title: "Host", blocks: [{ type: "toggle", text: "Drawer" }] });
    const drawer = double.blockWithText(host, "Drawer");
    const inner = double.addPage({ title: "Inner", parent: { block: drawer } });
    expect((await read(inner)).path).toEqual(["Host"]);
  });

  it("asks for each ancestor once per reader, however many pages share it", async () => {
    const root = double.addPage({ title: "Shared root" });
    const a = double.addPage({ title: "A", parent: { page: root } });
    const b = double.addPage({ title: "B", parent: { page: root } });
    const one = reader();
    await one.read(a);
    await one.read(b);
    expect(double.requestsTo(`/v1/pages/${root}`)).toHaveLength(1);
  });

  it("ends the path at an ancestor the integration cannot see", async () => {
    const hidden = double.addPage({ title: "Hidden" });
    const visible = double.addPage({ title: "Visible", parent: { page: hidden } });
    const page = double.addPage({ title: "Leaf", parent: { page: visible } });
    double.remove(hidden);
    expect((await read(page)).path).toEqual(["Visible"]);
  });

  it("reports a page in the trash as trashed without reading its blocks", async () => {
    const pageId = double.addPage({ title: "Binned", blocks: [{ type: "paragraph", text: "x" }] });
    double.trash(pageId);
    expect(await reader().read(pageId)).toEqual({ pageId, trashed: true });
    expect(double.requestsTo(`/v1/blocks/${pageId}/children`)).toHaveLength(0);
  });

  it("calls a page with an empty title Untitled, as Notion shows it", async () => {
    const pageId = double.addPage({ title: "" });
    expect((await read(pageId)).title).toBe("Untitled");
  });

  it("stops a block listing that gives the same cursor again with a NotionListingError, never looping", async () => {
    const pageId = double.addPage({ title: "Loop", blocks: [{ type: "paragraph", text: "again" }] });
    double.stallListing(new RegExp(`^/v1/blocks/${pageId}/children$`), "repeat");
    await expect(reader().read(pageId)).rejects.toMatchObject({
      name: "NotionListingError",
      reason: "repeated_cursor",
    });
    expect(double.requestsTo(`/v1/blocks/${pageId}/children`)).toHaveLength(2);
  });

  it("stops a block listing that keeps giving new cursors after MAX_CHILDREN_REQUESTS requests", async () => {
    const pageId = double.addPage({ title: "Endless" });
    double.stallListing(new RegExp(`^/v1/blocks/${pageId}/children$`), "endless");
    await expect(reader().read(pageId)).rejects.toMatchObject({
      name: "NotionListingError",
      reason: "too_many_requests",
    });
    expect(double.requestsTo(`/v1/blocks/${pageId}/children`)).toHaveLength(MAX_CHILDREN_REQUESTS);
  });
});
