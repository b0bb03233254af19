// The page's document view (src/page/document.tsx, document-body.tsx, confirm-delete.tsx): the title once,
// code as code, and Delete — a confirmation page first (it works without JavaScript), then a POST that must
// come from this origin with the session's CSRF token.

import { afterEach, describe, expect, it } from "vitest";
import { addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { PageClient } from "./browser-client.js";

let app: TestApp;
afterEach(() => app?.close());

async function signedIn() {
  app = await buildTestApp();
  const { apiKey } = await makeTeam(app);
  const browser = new PageClient(app);
  expect((await browser.signIn(apiKey)).status).toBe(303);
  return { apiKey, browser };
}

describe("the page's document view", () => {
  it("shows the title once and code in <pre><code>", async () => {
    const { apiKey, browser } = await signedIn();
    const doc = await addDocument(app, apiKey, {
      title: "Finance",
      content: "# Finance\n\n## Revenue\n\n```\nrevenue = 4.2\n```",
    });
    const html = await (await browser.get(`/page/documents/${doc.id}`)).text();
    const main = /<main>([\s\S]*)<\/main>/.exec(html)?.[1] ?? "";
    expect(main).toContain("<h1>Finance</h1>");
    expect(main.match(/Finance/g)?.length).toBe(1);
    expect(html).toContain("<pre><code>revenue = 4.2</code></pre>");
    expect(html).toContain(`href="/page/documents/${doc.id}/delete"`);
  });
});

describe("deleting a document from the page", () => {
  it("asks first, then deletes on the confirmed POST, and search no longer finds it", async () => {
    const { apiKey, browser } = await signedIn();
    const doc = await addDocument(app, apiKey, { title: "Old plan", content: "The zeppelin plan." });
    const confirm = await browser.get(`/page/documents/${doc.id}/delete`);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toContain("<h1>Delete this document?</h1>");
    expect(html).toContain(`<form method="post" action="/page/documents/${doc.id}/delete">`);
    // Asking is not deleting.
    expect((await search(app, apiKey, "zeppelin")).hits.length).toBe(1);

    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1] ?? "";
    const res = await browser.post(`/page/documents/${doc.id}/delete`, new URLSearchParams({ csrf }));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/?deleted=1");
    expect(await (await browser.get("/?deleted=1")).text()).toContain("The document was deleted.");
    expect((await search(app, apiKey, "zeppelin")).hits).toEqual([]);
    expect((await app.request(`/v1/documents/${doc.id}`, { token: apiKey })).status).toBe(404);
    // Asked again (a second tab, Back and resubmit): it is not there, and nothing else happens.
    expect(
      (await browser.post(`/page/documents/${doc.id}/delete`, new URLSearchParams({ csrf }))).status,
    ).toBe(404);
    expect((await browser.get(`/page/documents/${doc.id}/delete`)).status).toBe(404);
  });

  it("refuses a delete without the CSRF token, or from another site, and keeps the document", async () => {
    const { apiKey, browser } = await signedIn();
    const doc = await addDocument(app, apiKey, { title: "Keep", content: "The lighthouse log." });
    const csrf = await browser.csrf();
    const path = `/page/documents/${doc.id}/delete`;
    expect((await browser.post(path, new URLSearchParams({}))).status).toBe(403);
    expect((await browser.post(path, new URLSearchParams({ csrf: "0".repeat(64) }))).status).toBe(403);
    expect(
      (await browser.post(path, new URLSearchParams({ csrf }), { origin: "https://evil.example" })).status,
    ).toBe(403);
    expect((await browser.post(path, new URLSearchParams({ csrf }), { cookie: null })).status).toBe(303);
    expect((await search(app, apiKey, "lighthouse")).hits.length).toBe(1);
  });

  it("cannot delete another team's document", async () => {
    const { browser } = await signedIn();
    const other = await makeTeam(app, "Other");
    const theirs = await addDocument(app, other.apiKey, { title: "Theirs", content: "The albatross." });
    const csrf = await browser.csrf();
    expect((await browser.get(`/page/documents/${theirs.id}/delete`)).status).toBe(404);
    expect(
      (await browser.post(`/page/documents/${theirs.id}/delete`, new URLSearchParams({ csrf }))).status,
    ).toBe(404);
    expect((await search(app, other.apiKey, "albatross")).hits.length).toBe(1);
  });
});
