// The page's scope table (src/page/scopes.ts) against the page as served: a person signed in with a read key
// reads and searches but adds, deletes, forgets and exports nothing; a write key adds and remembers; every
// signed-in page route is in the table.

import { afterEach, describe, expect, it } from "vitest";
import { PAGE_SCOPES } from "../../src/page/scopes.js";
import type { Scope } from "../../src/scope.js";
import { addDocument, buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { makeKey } from "../support/keys.js";
import { form, PageClient } from "./browser-client.js";

let app: TestApp | undefined;
afterEach(() => app?.close());

/** Page routes no session is needed for: signing in (a passkey too), joining by an invite, and the assets every page loads. */
const SIGNED_OUT = [
  "GET /",
  "POST /page/sign-in",
  "GET /page/assets/page.css",
  "GET /page/assets/page.js",
  "GET /page/invite/:code",
  "POST /page/invite/:code",
  "POST /page/passkey/options",
  "POST /page/passkey/sign-in",
  "POST /page/invite/:code/passkey/options",
  "POST /page/invite/:code/passkey",
  "GET /page/oidc/start",
  "POST /page/oidc/start",
  "GET /page/oidc/callback",
  // Shows the sign-in page to a person not signed in, the consent page to one who is (oauth-routes.tsx).
  "GET /page/oauth/consent",
];

async function signedInWith(scope: Scope) {
  app = await buildTestApp();
  const { apiKey: admin } = await makeTeam(app);
  const doc = await addDocument(app, admin, { title: "Handbook", content: "Laptops on day one." });
  const browser = new PageClient(app);
  expect((await browser.signIn((await makeKey(app, admin, scope)).apiKey)).status).toBe(303);
  return { admin, doc, browser, csrf: await browser.csrf() };
}

describe("the page: scopes", () => {
  it("names every signed-in page route", async () => {
    app = await buildTestApp();
    const pageRoutes = app.memoria.app.routes
      .filter((r) => r.method !== "ALL" && (r.path === "/" || r.path.startsWith("/page/")))
      .map((r) => `${r.method} ${r.path}`)
      .filter((route) => !SIGNED_OUT.includes(route));
    expect(pageRoutes.length).toBeGreaterThan(5);
    expect(pageRoutes.filter((route) => !(route in PAGE_SCOPES))).toEqual([]);
  });

  it("lets a read key search and read, and refuses it every change, changing nothing", async () => {
    const { admin, doc, browser, csrf } = await signedInWith("read");
    await app?.request("/v1/entries", { method: "POST", token: admin, json: { title: "Laptops first" } });
    // Drawn without the actions it may not take.
    const start = await (await browser.get("/?q=laptops")).text();
    expect(start).toContain("<mark>Laptops</mark>");
    expect(start).not.toContain('href="/page/notes"');
    expect(start).not.toContain('href="/page/export"');
    const document = await (await browser.get(`/page/documents/${doc.id}`)).text();
    expect(document).toContain("<h1>Handbook</h1>");
    expect(document).not.toContain("/delete");
    const memory = await (await browser.get("/page/memory")).text();
    expect(memory).toContain("Laptops first");
    expect(memory).not.toContain("/forget");
    expect(memory).not.toContain("Remember an entry");
    for (const [path, needed] of [
      [`/page/documents/${doc.id}/delete`, "admin"],
      ["/page/notes", "write"],
      ["/page/export", "admin"],
    ] as const) {
      const res = await browser.get(path);
      expect(res.status, path).toBe(403);
      expect(await res.text()).toContain(
        `This needs a team key with the ${needed} scope; the key you signed in with has the read scope.`,
      );
    }
    expect((await browser.post(`/page/documents/${doc.id}/delete`, form({ csrf }))).status).toBe(403);
    expect((await browser.post("/page/notes", form({ csrf, title: "x", content: "y" }))).status).toBe(403);
    expect((await browser.post("/page/entries", form({ csrf, title: "x", impact: "y" }))).status).toBe(403);
    expect((await app?.request(`/v1/documents/${doc.id}`, { token: admin }))?.status).toBe(200);
    const documents = (await (await app?.request("/v1/documents", { token: admin }))?.json()) as {
      documents: { title: string }[];
    };
    expect(documents.documents.map((d) => d.title)).toEqual(["Handbook"]);
    const entries = (await (await app?.request("/v1/entries", { token: admin }))?.json()) as {
      entries: { title: string }[];
    };
    expect(entries.entries.map((e) => e.title)).toEqual(["Laptops first"]);
  });

  it("lets a write key add and remember, and refuses it deleting and forgetting", async () => {
    const { admin, doc, browser, csrf } = await signedInWith("write");
    const start = await (await browser.get("/")).text();
    expect(start).toContain('href="/page/notes"');
    expect(start).not.toContain('href="/page/export"');
    expect(await (await browser.get("/page/memory")).text()).toContain("Remember an entry");
    expect((await browser.get("/page/notes")).status).toBe(200);
    expect(
      (await browser.post("/page/entries", form({ csrf, title: "Keep notes short", impact: "x" }))).status,
    ).toBe(303);
    const entries = (await (await app?.request("/v1/entries", { token: admin }))?.json()) as {
      entries: { id: string }[];
    };
    const id = entries.entries[0]?.id ?? "";
    expect((await browser.post(`/page/entries/${id}/forget`, form({ csrf }))).status).toBe(403);
    expect((await browser.post(`/page/documents/${doc.id}/delete`, form({ csrf }))).status).toBe(403);
    expect((await app?.request(`/v1/entries/${id}`, { token: admin }))?.status).toBe(200);
  });

  it("says on every page which key the person signed in with, and its scope", async () => {
    const { admin, browser } = await signedInWith("write");
    // signedInWith names its key after its scope (test/support/keys.ts).
    for (const path of ["/", "/page/memory", "/page/notes"]) {
      expect(await (await browser.get(path)).text(), path).toContain(
        '<span class="who" title="The key you signed in with, and its scope">write key · write</span>',
      );
    }
    // The team's first key has no name.
    const first = new PageClient(app as TestApp);
    await first.signIn(admin);
    expect(await (await first.get("/")).text()).toContain(">Team key · admin</span>");
    // A name is text, never markup.
    const hostile = await makeKey(app as TestApp, admin, "read", { name: "<img src=x onerror=alert(1)>" });
    const third = new PageClient(app as TestApp);
    await third.signIn(hostile.apiKey);
    const html = await (await third.get("/")).text();
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt; · read");
    expect(html).not.toContain("<img src=x");
  });

  it("takes a key's scope as it is now: revoked, the session ends", async () => {
    const { admin, doc, browser } = await signedInWith("admin");
    const start = await (await browser.get("/")).text();
    expect(start).toContain('href="/page/notes"');
    expect(start).toContain('href="/page/export"');
    expect(await (await browser.get(`/page/documents/${doc.id}`)).text()).toContain(
      `/page/documents/${doc.id}/delete`,
    );
    const keys = (await (await app?.request("/v1/keys", { token: admin }))?.json()) as {
      keyId: string;
      name: string | null;
    }[];
    const signedInKey = keys.find((k) => k.name === "admin key");
    await app?.request(`/v1/keys/${signedInKey?.keyId}`, { method: "DELETE", token: admin });
    const res = await browser.get("/page/memory");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
  });
});
