// The page's start and search (src/page/search.tsx, hit.tsx, hit-groups.ts, team-overview.tsx): the start page
// names the team with its counts and recent documents; hits are grouped by document with at most three
// passages, each linking to its passage by a name that says which one; stop words are not marked on the page
// while the search API still marks every matched term.

import { afterEach, describe, expect, it } from "vitest";
import { addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { PageClient } from "./browser-client.js";

let app: TestApp;
afterEach(() => app?.close());

async function signedIn(teamName = "Acme") {
  app = await buildTestApp();
  const { apiKey } = await makeTeam(app, teamName);
  const browser = new PageClient(app);
  expect((await browser.signIn(apiKey)).status).toBe(303);
  return { apiKey, browser };
}

describe("the page's start", () => {
  it("names the team and shows its counts and its most recently changed documents", async () => {
    const { apiKey, browser } = await signedIn("Harbour <Ops>");
    const empty = await (await browser.get("/")).text();
    expect(empty).toContain("<h1>Harbour &lt;Ops&gt;</h1>");
    expect(empty).toContain("0 documents (0 passages)");
    expect(empty).toContain("No documents yet");

    const first = await addDocument(app, apiKey, { title: "Cranes", content: "# A\n\none\n\n# B\n\ntwo" });
    await addDocument(app, apiKey, { title: "Tides", content: "High at noon.", path: ["Log"] });
    const entry = await app.request("/v1/entries", {
      method: "POST",
      token: apiKey,
      json: { title: "Buy rope" },
    });
    expect(entry.status).toBe(201);
    // Rewriting the first makes it the most recently changed, though it was created first.
    const put = await app.request(`/v1/documents/${first.id}`, {
      method: "PUT",
      token: apiKey,
      json: { title: "Cranes", content: "Rewritten." },
    });
    expect(put.status).toBe(200);

    const html = await (await browser.get("/")).text();
    expect(html).toContain("2 documents (2 passages)");
    expect(html).toContain("1 memory entry");
    const recent = /<ul class="recent">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? "";
    expect([...recent.matchAll(/<a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1])).toEqual([
      "Cranes",
      "Tides",
    ]);
    expect(recent).toContain(`href="/page/documents/${first.id}"`);
    expect(recent).toContain("Log");
  });
});

describe("the page's search results", () => {
  it("show each document once, with its best three passages linked by title and heading trail", async () => {
    const { apiKey, browser } = await signedIn();
    const sections = Array.from({ length: 8 }, (_, i) => `## Part ${i}\n\nThe cookie jar rule number ${i}.`);
    const long = await addDocument(app, apiKey, {
      title: "Handbook",
      content: `# Rules\n\n${sections.join("\n\n")}`,
    });
    const short = await addDocument(app, apiKey, { title: "Kitchen", content: "Who ate the cookie?" });

    const api = await search(app, apiKey, "cookie");
    expect(api.hits.filter((h) => h.documentId === long.id).length).toBe(8);

    const html = await (await browser.get("/?q=cookie")).text();
    expect(html).toContain("2 documents (9 passages) matched among 2 documents");
    const groups = [...html.matchAll(/<li class="hit">([\s\S]*?)<\/ul>/g)].map((m) => m[1] ?? "");
    expect(groups.length).toBe(2);
    const handbook = groups.find((g) => g.includes(">Handbook</a></h2>")) ?? "";
    const links = [...handbook.matchAll(/<a class="passage-link" href="([^"]+)">([^<]+)<\/a>/g)];
    expect(links.length).toBe(3);
    for (const [, href, name] of links) {
      expect(href).toMatch(new RegExp(`^/page/documents/${long.id}#p\\d+$`));
      expect(name).toMatch(/^Handbook › Rules › Part \d$/);
    }
    // The ordinal in each link is the passage's own, as the search API numbers it.
    const best = api.hits.filter((h) => h.documentId === long.id).slice(0, 3);
    expect(links.map((l) => l[1])).toEqual(best.map((h) => `/page/documents/${long.id}#p${h.ordinal}`));
    expect(html).toContain("5 more passages of this document matched.");
    expect(groups.find((g) => g.includes(">Kitchen</a></h2>"))).toContain(`${short.id}#p0">Kitchen</a>`);

    // Each linked passage is an element of the document view.
    const view = await (await browser.get(`/page/documents/${long.id}`)).text();
    for (const hit of best) expect(view).toContain(`id="p${hit.ordinal}"`);
    const part = /Part (\d)/.exec(links[0]?.[2] ?? "")?.[1];
    const section = new RegExp(
      `<section id="p${best[0]?.ordinal}" class="passage">([\\s\\S]*?)</section>`,
    ).exec(view);
    expect(section?.[1]).toContain(`rule number ${part}`);
  });

  it("do not mark stop words on the page, while the search API marks every matched term", async () => {
    const { apiKey, browser } = await signedIn();
    await addDocument(app, apiKey, { title: "Deploy", content: "How to deploy the worker to the edge." });
    const api = await search(app, apiKey, "how to deploy the worker");
    expect(api.hits[0]?.snippet).toContain("<mark>the</mark>");
    const html = await (await browser.get("/?q=how+to+deploy+the+worker")).text();
    const snippet = /<p class="snippet">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "";
    expect([...snippet.matchAll(/<mark>([^<]+)<\/mark>/g)].map((m) => m[1])).toEqual(["deploy", "worker"]);
    expect(snippet).toContain(
      "How to deploy the worker to the edge.".replace(/deploy|worker/g, (w) => `<mark>${w}</mark>`),
    );
  });
});

describe("the page's icon", () => {
  it("answers /favicon.ico with this repository's SVG, signed in or not", async () => {
    app = await buildTestApp();
    const res = await new PageClient(app).get("/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.getSetCookie()).toEqual([]);
    const svg = await res.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).not.toMatch(/href=|<script/);
  });
});
