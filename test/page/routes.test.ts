import { afterEach, describe, expect, it } from "vitest";
import { PAGE_CSP } from "../../src/page/routes.js";
import { SESSION_IDLE_MS } from "../../src/page/sessions.js";
import { serveOnLoopback } from "../http/loopback.js";
import { ADMIN_TOKEN, addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { zip } from "../support/files.js";
import { form, PageClient } from "./browser-client.js";

let app: TestApp;
afterEach(() => app?.close());

/** A clock a test moves by hand. */
function movableClock() {
  let now = Date.parse("2026-12-01T09:00:00Z");
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

async function signedIn(options: { clock?: { now(): Date } } = {}) {
  app = await buildTestApp(options.clock ? { clock: options.clock } : {});
  const { teamId, apiKey } = await makeTeam(app);
  const browser = new PageClient(app);
  const res = await browser.signIn(apiKey);
  expect(res.status).toBe(303);
  return { teamId, apiKey, browser };
}

describe("the page: signing in", () => {
  it("shows the sign-in form to a signed-out person, with its CSP and security headers", async () => {
    app = await buildTestApp();
    const res = await new PageClient(app).get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('<label for="key">Team key</label>');
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toContain('name="viewport"');
    expect(html).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/);
  });

  it("says so on the page when the key is wrong, and sets no cookie", async () => {
    app = await buildTestApp();
    const { apiKey } = await makeTeam(app);
    const browser = new PageClient(app);
    const res = await browser.signIn(`${apiKey}x`);
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("That team key was not accepted");
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(browser.cookie).toBeNull();
  });

  it("signs in with an opaque HttpOnly SameSite=Strict cookie that is not the key", async () => {
    app = await buildTestApp();
    const { teamId, apiKey } = await makeTeam(app);
    const res = await new PageClient(app).signIn(apiKey);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const [cookie = ""] = res.headers.getSetCookie();
    expect(cookie).toMatch(new RegExp(`^memoria_session=${teamId}\\.[A-Za-z0-9_-]{43};`));
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/; Secure/);
    expect(cookie).not.toContain(apiKey.slice(`mem_${teamId}_`.length));
    // Storage holds only the hash of the cookie's secret and the key sealed: neither the key nor the secret.
    const rows = await app.storage.client.execute("SELECT * FROM page_sessions");
    expect(rows.rows).toHaveLength(1);
    const stored = JSON.stringify(rows.rows[0], (_k, v) =>
      v instanceof ArrayBuffer ? [...new Uint8Array(v)] : v,
    );
    const secret = cookie.split(";")[0]?.split(".")[1] ?? "";
    expect(stored).not.toContain(secret);
    expect(Buffer.from(rows.rows[0]?.sealed as ArrayBuffer).toString("latin1")).not.toContain(apiKey);
  });

  it("marks the cookie Secure when the request came over HTTPS", async () => {
    app = await buildTestApp();
    const { apiKey } = await makeTeam(app);
    const res = await app.memoria.app.request("https://memoria.example/page/sign-in", {
      method: "POST",
      headers: { origin: "https://memoria.example" },
      body: new URLSearchParams({ key: apiKey }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie()[0]).toMatch(/; Secure/);
  });

  it("names the cookie __Host- when it is Secure: Path=/ and no Domain, read back and cleared by that name", async () => {
    app = await buildTestApp();
    const { apiKey } = await makeTeam(app);
    const site = "https://memoria.example";
    const signIn = await app.memoria.app.request(`${site}/page/sign-in`, {
      method: "POST",
      headers: { origin: site },
      body: new URLSearchParams({ key: apiKey }),
    });
    const [set = ""] = signIn.headers.getSetCookie();
    expect(set).toMatch(/^__Host-memoria_session=t[a-z0-9]+\.[A-Za-z0-9_-]{43};/);
    expect(set).toMatch(/; Path=\/(;|$)/);
    expect(set).toMatch(/; Secure(;|$)/);
    expect(set).not.toMatch(/domain=/i);
    const cookie = set.split(";")[0] ?? "";
    const page = await app.memoria.app.request(`${site}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.getSetCookie()).toEqual([]);
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(await page.text())?.[1] ?? "";
    const signOut = await app.memoria.app.request(`${site}/page/sign-out`, {
      method: "POST",
      headers: { origin: site, cookie },
      body: new URLSearchParams({ csrf }),
    });
    expect(signOut.status).toBe(200);
    expect(signOut.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^__Host-memoria_session=;.*Max-Age=0.*; Path=\/.*; Secure/),
    ]);
  });

  it("refuses a sign-in posted from another site", async () => {
    app = await buildTestApp();
    const { apiKey } = await makeTeam(app);
    const browser = new PageClient(app);
    const res = await browser.post("/page/sign-in", new URLSearchParams({ key: apiKey }), {
      origin: "https://evil.example",
    });
    expect(res.status).toBe(403);
    expect(browser.cookie).toBeNull();
    expect((await app.storage.client.execute("SELECT COUNT(*) AS n FROM page_sessions")).rows[0]?.n).toBe(0);
  });
});

describe("the page: signed in", () => {
  it("shows the search box and Sign out, and search hits with path, trail and marked snippet", async () => {
    const { apiKey, browser } = await signedIn();
    await addDocument(app, apiKey, {
      title: "Welcome",
      content: "# First week\n\n## Laptops\n\nEvery newcomer gets a laptop on day one.",
      path: ["Handbook", "Onboarding"],
    });
    await addDocument(app, apiKey, { title: "Other", content: "Nothing about it." });
    const start = await (await browser.get("/")).text();
    expect(start).toContain('type="search"');
    expect(start).toContain(">Sign out</button>");

    const res = await browser.get("/?q=laptop");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("1 document (1 passage) matched among 2 documents");
    expect(html).toContain("Handbook › Onboarding");
    expect(html).toContain("First week › Laptops");
    expect(html).toContain("<mark>laptop</mark>");
    expect(html).toMatch(/<a href="\/page\/documents\/[^"]+">Welcome<\/a>/);
  });

  it("says how much it searched when nothing matched", async () => {
    const { apiKey, browser } = await signedIn();
    await addDocument(app, apiKey, { title: "Office", content: "The office phone number is 555-0100." });
    const html = await (await browser.get("/?q=passport")).text();
    expect(html).toContain("No passage matched &quot;passport&quot; among 1 document (1 passage)");
  });

  it("shows a document with its headings as headings, its path and dates", async () => {
    const { apiKey, browser } = await signedIn();
    const doc = await addDocument(app, apiKey, {
      title: "Welcome",
      content: "# First week\n\nSay *hello*.\n\n## Laptops\n\nOne each.",
      path: ["Handbook", "Onboarding"],
    });
    const res = await browser.get(`/page/documents/${doc.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<h1>Welcome</h1>");
    expect(html).toContain("<h2>First week</h2>");
    expect(html).toContain("<h3>Laptops</h3>");
    expect(html).toContain("<p>Say hello.</p>");
    expect(html).toContain("Handbook › Onboarding");
    expect(html).toMatch(/Created <time datetime="\d{4}-\d\d-\d\dT[^"]+">\d{4}-\d\d-\d\d<\/time>/);
    expect((await browser.get("/page/documents/d_missing")).status).toBe(404);
  });

  it("shows the working-memory block and its accounting", async () => {
    const { apiKey, browser } = await signedIn();
    for (const title of ["Use libSQL", "Seal every row", "Ship the page"]) {
      const res = await app.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        json: { title, project: "memoria" },
      });
      expect(res.status).toBe(201);
    }
    const form = await (await browser.get("/page/memory")).text();
    expect(form).toContain('<label for="budget">Budget in tokens</label>');
    const res = await browser.get("/page/memory?q=page&project=memoria&budget=2000&ask=1");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<dt>Candidates<\/dt><dd>3<\/dd>/);
    expect(html).toMatch(/<dt>Included<\/dt><dd>3<\/dd>/);
    expect(html).toMatch(/<dt>Skipped<\/dt><dd>0<\/dd>/);
    expect(html).toMatch(
      /<dt>Tokens<\/dt><dd>\d+<!-- --> of <!-- -->2000<\/dd>|<dt>Tokens<\/dt><dd>\d+ of 2000<\/dd>/,
    );
    expect(html).toContain("Ship the page");
    const tight = await (await browser.get("/page/memory?budget=1&ask=1")).text();
    expect(tight).toMatch(/<dt>Skipped<\/dt><dd>3<\/dd>/);
    expect((await browser.get("/page/memory?budget=0&ask=1")).status).toBe(400);
  });

  it("adds a pasted note that search finds at once", async () => {
    const { apiKey, browser } = await signedIn();
    const csrf = await browser.csrf();
    const res = await browser.post(
      "/page/notes",
      form({
        csrf,
        title: "Parking",
        path: "Handbook / Office",
        content: "# Parking\n\nBikes go in the yard.",
      }),
    );
    expect(res.status).toBe(303);
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/page\/documents\/[^?]+\?added=1$/);
    expect(await (await browser.get(location)).text()).toContain("The note was added");
    const found = await search(app, apiKey, "bikes");
    expect(found.hits.map((h) => [h.title, h.path])).toEqual([["Parking", ["Handbook", "Office"]]]);
    expect(await (await browser.get("/?q=bikes")).text()).toContain("Handbook › Office");
  });

  it("adds an uploaded file, titled by its heading (else its name) unless a title is given", async () => {
    const { apiKey, browser } = await signedIn();
    const data = form({ csrf: await browser.csrf(), title: "", path: "", content: "" });
    data.set(
      "file",
      new File(["<h1>Lunch</h1><p>Soup on Fridays.</p>"], "canteen.html", { type: "text/html" }),
    );
    expect((await browser.post("/page/notes", data)).status).toBe(303);
    const found = await search(app, apiKey, "soup");
    expect(found.hits.map((h) => h.title)).toEqual(["Lunch"]);
  });

  it("adds an uploaded DOCX as its text, titled by its own heading, and refuses one that is not a DOCX", async () => {
    const { apiKey, browser } = await signedIn();
    const xml =
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
      '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Canteen rules</w:t></w:r></w:p>' +
      "<w:p><w:r><w:t>Trays go back by the kookaburra window, 3 * 2 a day.</w:t></w:r></w:p></w:body></w:document>";
    const docx = zip([{ name: "word/document.xml", data: Buffer.from(xml) }]);
    const data = form({ csrf: await browser.csrf(), title: "", path: "Office", content: "" });
    data.set("file", new File([docx as Uint8Array<ArrayBuffer>], "rules.docx"));
    expect((await browser.post("/page/notes", data)).status).toBe(303);
    const found = await search(app, apiKey, "kookaburra");
    expect(found.hits.map((h) => [h.title, h.path])).toEqual([["Canteen rules", ["Office"]]]);
    // Its view shows the text as the markdown it is stored as: the heading a heading, no escapes.
    const view = await (await browser.get(`/page/documents/${found.hits[0]?.documentId}`)).text();
    expect(view).toContain("Trays go back by the kookaburra window, 3 * 2 a day.");
    expect(view).not.toContain("\\*");

    const notDocx = form({ csrf: await browser.csrf(), title: "", path: "", content: "" });
    notDocx.set("file", new File(["<h1>just html</h1>"], "fake.docx"));
    const refused = await browser.post("/page/notes", notDocx);
    expect(refused.status).toBe(415);
    expect(await refused.text()).toContain("The file is not a DOCX");
  });

  it("adds a file larger than other requests' 1 MiB limit, as the documents API would take it", async () => {
    const { apiKey, browser } = await signedIn();
    const data = form({ csrf: await browser.csrf(), title: "Big log", path: "", content: "" });
    const big = `# Log\n\n${"line of the harbour log\n".repeat(100_000)}walrusword at the end\n`;
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    data.set("file", new File([big], "log.md", { type: "text/markdown" }));
    expect((await browser.post("/page/notes", data)).status).toBe(303);
    expect((await search(app, apiKey, "walrusword")).hits.map((h) => h.title)).toEqual(["Big log"]);
  });

  it("refuses an empty note on the page and keeps what was typed", async () => {
    const { browser } = await signedIn();
    const res = await browser.post(
      "/page/notes",
      form({ csrf: await browser.csrf(), title: "Kept", content: " " }),
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("Paste the note&#39;s content or choose a file.");
    expect(html).toContain('value="Kept"');
  });

  it("shows a hostile title and content as text, everywhere", async () => {
    const { apiKey, browser } = await signedIn();
    const hostile = "<img src=x onerror=alert(1)>";
    const doc = await addDocument(app, apiKey, {
      title: hostile,
      content: `# ${hostile}\n\nfindme <script>alert(2)</script>`,
      path: [hostile],
    });
    const escaped = "&lt;img src=x onerror=alert(1)&gt;";
    const hits = await (await browser.get("/?q=findme")).text();
    const view = await (await browser.get(`/page/documents/${doc.id}`)).text();
    for (const html of [hits, view]) {
      expect(html).toContain(escaped);
      expect(html).not.toContain("<img");
      expect(html).not.toContain("<script>alert");
    }
    expect(hits).toContain("<mark>findme</mark>");
  });
});

describe("the page: refusals", () => {
  async function noteCount(apiKey: string): Promise<number> {
    return (await search(app, apiKey, "smuggled")).hits.length;
  }

  it("refuses a cross-site POST and stores nothing", async () => {
    const { apiKey, browser } = await signedIn();
    const csrf = await browser.csrf();
    const fields = { csrf, title: "Smuggled", content: "smuggled text" };
    const foreign = await browser.post("/page/notes", form(fields), { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const missing = await browser.post("/page/notes", form(fields), { origin: null });
    expect(missing.status).toBe(403);
    expect(await noteCount(apiKey)).toBe(0);
    // The same form from the page itself is stored: the refusals above were the Origin's.
    expect((await browser.post("/page/notes", form(fields))).status).toBe(303);
    expect(await noteCount(apiKey)).toBe(1);
  });

  it("takes Origin: null only with Sec-Fetch-Site: same-origin, and refuses any other Sec-Fetch-Site", async () => {
    const { apiKey, browser } = await signedIn();
    const fields = { csrf: await browser.csrf(), title: "Smuggled", content: "smuggled text" };
    const post = (origin: string | null, fetchSite?: string) =>
      browser.post("/page/notes", form(fields), { origin, ...(fetchSite ? { fetchSite } : {}) });
    expect((await post("null")).status).toBe(403);
    expect((await post("null", "cross-site")).status).toBe(403);
    expect((await post("http://localhost", "same-site")).status).toBe(403);
    expect((await post("http://localhost", "cross-site")).status).toBe(403);
    expect(await noteCount(apiKey)).toBe(0);
    expect((await post("null", "same-origin")).status).toBe(303);
    expect(await noteCount(apiKey)).toBe(1);
  });

  it("refuses a form without the session's CSRF token, or with another session's", async () => {
    const { apiKey, browser } = await signedIn();
    const other = new PageClient(app);
    await other.signIn(apiKey);
    const othersToken = await other.csrf();
    expect(othersToken).not.toBe(await browser.csrf());
    for (const csrf of [undefined, "", othersToken]) {
      const fields: Record<string, string> = { title: "Smuggled", content: "smuggled text" };
      if (csrf !== undefined) fields.csrf = csrf;
      expect((await browser.post("/page/notes", form(fields))).status).toBe(403);
      expect((await browser.post("/page/sign-out", form(fields))).status).toBe(403);
    }
    expect(await noteCount(apiKey)).toBe(0);
    expect((await browser.get("/page/notes")).status).toBe(200);
  });

  it("sends a signed-out person from every page to sign in", async () => {
    app = await buildTestApp();
    const browser = new PageClient(app);
    for (const path of ["/page/memory", "/page/notes", "/page/documents/d_x"]) {
      const res = await browser.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/");
    }
    expect((await browser.post("/page/notes", form({ title: "t", content: "c" }))).status).toBe(303);
  });
});

describe("the page: a request without the session cookie", () => {
  it("never clears the cookie: every page and form answered over a real socket sets no cookie", async () => {
    const { browser } = await signedIn();
    const http = await serveOnLoopback(app);
    try {
      // What a link or a form on another site sends: SameSite=Strict keeps the cookie out of it.
      const crossSite = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" };
      const answers = [
        ...(await Promise.all(
          ["/", "/?q=anything", "/page/memory", "/page/notes", "/page/documents/d_x"].map((path) =>
            fetch(`${http.base}${path}`, { headers: crossSite, redirect: "manual" }),
          ),
        )),
        ...(await Promise.all(
          ["/page/sign-out", "/page/notes"].map((path) =>
            fetch(`${http.base}${path}`, {
              method: "POST",
              headers: { ...crossSite, origin: "https://elsewhere.example" },
              body: new URLSearchParams({ csrf: "x", title: "t", content: "c" }),
              redirect: "manual",
            }),
          ),
        )),
      ];
      for (const res of answers) {
        expect([200, 303, 403]).toContain(res.status);
        expect(res.headers.getSetCookie()).toEqual([]);
        expect(res.headers.has("set-cookie")).toBe(false);
      }
      // The person is still signed in.
      const res = await browser.get("/");
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("Sign out");
    } finally {
      await http.close();
    }
  });
});

describe("the page: MEMORIA_RATE_LIMIT", () => {
  it("counts page requests under the signed-in key, with its API requests", async () => {
    app = await buildTestApp({ config: { rateLimit: 5 } });
    const { apiKey } = await makeTeam(app);
    const browser = new PageClient(app);
    expect((await browser.signIn(apiKey)).status).toBe(303);
    for (const path of ["/", "/page/memory", "/page/notes"])
      expect((await browser.get(path)).status).toBe(200);
    expect((await app.request("/v1/stats", { token: apiKey })).status).toBe(200);
    expect((await browser.get("/?q=anything")).status).toBe(200);
    // The sixth request of the minute on this key, whether a page or the API, is over the limit.
    const limited = await browser.get("/page/memory");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await limited.text()).toContain("Too many requests");
    expect(limited.headers.getSetCookie()).toEqual([]);
    expect((await app.request("/v1/stats", { token: apiKey })).status).toBe(429);
    // Another team's key has its own budget.
    const other = await makeTeam(app, "Other");
    const otherBrowser = new PageClient(app);
    expect((await otherBrowser.signIn(other.apiKey)).status).toBe(303);
    expect((await otherBrowser.get("/")).status).toBe(200);
  });
});

describe("the page: the session ends", () => {
  it("on Sign out: the cookie is cleared and the old cookie no longer works", async () => {
    const { browser } = await signedIn();
    const old = browser.cookie;
    const res = await browser.post("/page/sign-out", form({ csrf: await browser.csrf() }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("You are signed out.");
    expect(res.headers.getSetCookie()[0]).toMatch(/^memoria_session=;.*Max-Age=0/);
    expect(browser.cookie).toBeNull();
    browser.cookie = old;
    const ended = await browser.get("/");
    expect(ended.status).toBe(303);
    expect(ended.headers.getSetCookie()[0]).toMatch(/^memoria_session=;.*Max-Age=0/);
    expect(browser.cookie).toBeNull();
    expect(await (await browser.get("/")).text()).toContain("Team key");
    browser.cookie = old;
    expect((await browser.get("/page/memory")).status).toBe(303);
  });

  it("when its key is revoked", async () => {
    const { teamId, browser } = await signedIn();
    expect((await browser.get("/page/memory")).status).toBe(200);
    const keys = await app.request(`/v1/teams/${teamId}/keys`, { token: ADMIN_TOKEN });
    const { keys: list } = (await keys.json()) as { keys: { keyId: string }[] };
    for (const key of list) {
      const res = await app.request(`/v1/teams/${teamId}/keys/${key.keyId}`, {
        method: "DELETE",
        token: ADMIN_TOKEN,
      });
      expect(res.status).toBe(204);
    }
    expect((await browser.get("/page/memory")).status).toBe(303);
    expect((await app.storage.client.execute("SELECT COUNT(*) AS n FROM page_sessions")).rows[0]?.n).toBe(0);
  });

  it("when its team is deleted", async () => {
    const { teamId, browser } = await signedIn();
    expect((await app.request(`/v1/teams/${teamId}`, { method: "DELETE", token: ADMIN_TOKEN })).status).toBe(
      204,
    );
    expect((await browser.get("/page/memory")).status).toBe(303);
    expect((await app.storage.client.execute("SELECT COUNT(*) AS n FROM page_sessions")).rows[0]?.n).toBe(0);
  });

  it("after 12 hours idle, but not while in use", async () => {
    const clock = movableClock();
    const { browser } = await signedIn({ clock });
    clock.advance(SESSION_IDLE_MS - 60_000);
    expect((await browser.get("/page/memory")).status).toBe(200);
    clock.advance(SESSION_IDLE_MS - 60_000);
    expect((await browser.get("/page/memory")).status).toBe(200);
    clock.advance(SESSION_IDLE_MS + 1);
    expect((await browser.get("/page/memory")).status).toBe(303);
    expect(browser.cookie).toBeNull();
    expect(await (await browser.get("/")).text()).toContain("Team key");
  });

  it("refuses a made-up cookie, one naming another team, and one of the right shape but unknown", async () => {
    const { teamId, browser } = await signedIn();
    const secret = browser.cookie?.split(".")[1] ?? "";
    const other = await makeTeam(app, "Other");
    for (const cookie of ["nonsense", `${other.teamId}.${secret}`, `${teamId}.${"A".repeat(43)}`, secret]) {
      const probe = new PageClient(app);
      probe.cookie = cookie;
      expect((await probe.get("/page/memory")).status).toBe(303);
    }
    expect((await browser.get("/page/memory")).status).toBe(200);
  });
});

describe("the page: assets", () => {
  it("serves its stylesheet and script from this origin", async () => {
    app = await buildTestApp();
    const css = await app.memoria.app.request("/page/assets/page.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    const js = await app.memoria.app.request("/page/assets/page.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
  });
});

describe("the page: export", () => {
  it("links the signed-in team's export, which downloads what GET /v1/export answers", async () => {
    const { apiKey, browser } = await signedIn();
    await addDocument(app, apiKey, { title: "Kiwi notes", content: "the kiwi ledger balances" });
    const home = await (await browser.get("/")).text();
    expect(home).toMatch(/<a href="\/page\/export" download="">Export<\/a>/);
    const res = await browser.get("/page/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="memoria-export-/);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const fromPage = (await res.text()).split("\n").slice(1);
    const fromApi = (await (await app.request("/v1/export", { token: apiKey })).text()).split("\n").slice(1);
    expect(fromPage).toEqual(fromApi);
    expect(fromPage.join("\n")).toContain("the kiwi ledger balances");
  });

  it("sends a signed-out person to sign in instead of exporting", async () => {
    app = await buildTestApp();
    const res = await new PageClient(app).get("/page/export");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
  });
});
