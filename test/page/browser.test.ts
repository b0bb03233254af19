// The page in a real browser: Debian's Chromium driven by playwright-core, against the app served on a
// loopback port. One pass with JavaScript on walks every page a person uses (sign in, the start page, search,
// open a hit at its passage, ask the working memory, remember and forget an entry, add a note, delete a
// document after confirming, see a hostile title as text, be refused a cross-site post, sign out); one pass
// with JavaScript off shows the page does not need it. Screenshots of each state are kept in a temp
// folder (its path is printed) so a person can look.
//
// Skipped, saying so, where /usr/bin/chromium is missing (`apt-get install -y chromium`).

import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type Served, serveOnLoopback } from "../http/loopback.js";
import { addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { makeKey } from "../support/keys.js";
import { needs, outside } from "../support/outside.js";

const CHROMIUM = outside.chromium.name;
const hasChromium = outside.chromium.missing === null;
const HOSTILE = "<img src=x onerror=alert(1)>";

let app: TestApp;
let served: Served;
let evil: { server: Server; base: string };
let browser: Browser;
let apiKey: string;
/** The screenshots' folder, kept after the run so a person can look. */
let shots = "";

/**
 * Another origin: one page whose form posts a note to memoria, as a cross-site attack would, and a plain
 * link to memoria's working-memory page, as any site (a chat, a wiki) has.
 */
async function serveEvilSite(target: string): Promise<{ server: Server; base: string }> {
  const page = `<!doctype html><html><body><form method="post" action="${target}/page/notes">
<input type="hidden" name="title" value="Smuggled"><input type="hidden" name="content" value="smuggled text">
<button type="submit">Win a prize</button></form>
<p><a href="${target}/page/memory">Read the team's memory</a></p></body></html>`;
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Waits for the element, then its text (playwright-core has no web-first assertions of its own). */
async function textOf(locator: Locator): Promise<string> {
  await locator.first().waitFor({ state: "visible" });
  return ((await locator.first().textContent()) ?? "").trim();
}

async function visible(locator: Locator): Promise<void> {
  await locator.first().waitFor({ state: "visible" });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${served.base}/`);
  await page.getByLabel("Team key").fill(key);
  await page.getByRole("button", { name: "Sign in with the key" }).click();
}

async function searchFor(page: Page, words: string): Promise<void> {
  const box = page.getByRole("searchbox");
  await box.fill(words);
  await box.press("Enter");
  await page.waitForURL(/\?q=/);
}

beforeAll(async () => {
  if (!hasChromium) return;
  shots = mkdtempSync(join(tmpdir(), "memoria-page-"));
  app = await buildTestApp();
  ({ apiKey } = await makeTeam(app));
  await addDocument(app, apiKey, {
    title: "Welcome",
    content: "# First week\n\n## Laptops\n\nEvery newcomer gets a laptop on day one.",
    path: ["Handbook", "Onboarding"],
  });
  await addDocument(app, apiKey, { title: HOSTILE, content: `# ${HOSTILE}\n\nfindme ${HOSTILE}` });
  const rules = Array.from(
    { length: 6 },
    (_, i) =>
      `### Rule ${i}\n\nThe cookie rule ${i}: ${"keep the jar closed. ".repeat(30 + i)}\n\n\`\`\`\nbake --cookies ${i}\n\`\`\``,
  );
  await addDocument(app, apiKey, {
    title: "Cookies",
    content: `# Cookies\n\n## Rules\n\n${rules.join("\n\n")}`,
  });
  const entry = await app.request("/v1/entries", {
    method: "POST",
    token: apiKey,
    json: { title: "Ship the page", impact: "People can search without curl", project: "memoria" },
  });
  expect(entry.status).toBe(201);
  served = await serveOnLoopback(app);
  evil = await serveEvilSite(served.base);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  console.log(`page screenshots: ${shots}`);
}, 60_000);

afterAll(async () => {
  if (!hasChromium) return;
  await browser?.close();
  await new Promise((resolve) => evil?.server.close(resolve));
  await served?.close();
  app?.close();
});

describe("the page in Chromium", () => {
  needs(outside.chromium).it(
    "signs in, searches, opens a hit, asks memory, adds a note, refuses a cross-site post, signs out",
    async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      const dialogs: string[] = [];
      page.on("dialog", async (dialog) => {
        dialogs.push(dialog.message());
        await dialog.dismiss();
      });

      await page.goto(`${served.base}/`);
      await visible(page.getByLabel("Team key"));
      await shot(page, "01-signed-out");

      await signIn(page, `${apiKey}x`);
      expect(await textOf(page.getByRole("alert"))).toContain("That team key was not accepted");
      await shot(page, "02-wrong-key");

      await signIn(page, apiKey);
      await visible(page.getByRole("searchbox"));
      await visible(page.getByRole("button", { name: "Sign out" }));
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Acme");
      expect(await textOf(page.locator(".counts"))).toContain("3 documents (");
      await visible(page.locator(".recent").getByRole("link", { name: "Welcome" }));
      await shot(page, "02b-start-page");
      // The tab icon is this server's own.
      const icon = await page.request.get(`${served.base}/favicon.ico`);
      expect(icon.status()).toBe(200);
      expect(icon.headers()["content-type"]).toBe("image/svg+xml");
      const cookies = await context.cookies();
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
        ["memoria_session", true, "Strict"],
      ]);
      expect(cookies[0]?.value).not.toContain(apiKey);

      await searchFor(page, "laptop");
      expect(await textOf(page.getByRole("status"))).toContain(
        "1 document (1 passage) matched among 3 documents",
      );
      await visible(page.getByText("Handbook › Onboarding"));
      expect(await textOf(page.locator("mark").first())).toBe("laptop");
      await shot(page, "03-search-hits");

      await searchFor(page, "passport");
      expect(await textOf(page.getByRole("status"))).toContain(
        'No passage matched "passport" among 3 documents',
      );
      await shot(page, "04-search-no-hits");

      // One long document: shown once, three passages named by their trails, stop words unmarked.
      await searchFor(page, "the cookie");
      expect(await page.locator("li.hit").count()).toBe(1);
      const passageLinks = page.locator("li.hit .passage-link");
      expect(await passageLinks.count()).toBe(3);
      expect(await textOf(passageLinks.first())).toMatch(/^Cookies › Rules › Rule \d+$/);
      expect(await page.locator("mark", { hasText: /^the$/i }).count()).toBe(0);
      await shot(page, "04b-search-grouped");
      const target = (await passageLinks.nth(1).getAttribute("href")) ?? "";
      const trail = (await passageLinks.nth(1).textContent()) ?? "";
      await passageLinks.nth(1).click();
      await page.waitForURL(/#p\d+$/);
      const anchor = target.slice(target.indexOf("#"));
      const section = page.locator(`section${anchor}`);
      await visible(section);
      expect(trail.endsWith(await textOf(section.getByRole("heading")))).toBe(true);
      // Landed at the passage: its section's top is on screen. These functions run in the page, where
      // globalThis is the window (the casts are only for this file's types, which have no DOM globals).
      expect(
        await section.evaluate(
          (el) =>
            el.getBoundingClientRect().top < (globalThis as unknown as { innerHeight: number }).innerHeight,
        ),
      ).toBe(true);
      expect(await textOf(section.locator("pre code"))).toContain("bake --cookies");
      expect(
        await section
          .locator("pre code")
          .evaluate((el) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { fontFamily: string } })
              .getComputedStyle(el)
              .fontFamily.toLowerCase(),
          ),
      ).toMatch(/mono/);
      await shot(page, "04c-document-at-passage");

      await page.getByRole("link", { name: "Search", exact: true }).click();
      await searchFor(page, "laptop");
      await page.getByRole("link", { name: "Welcome", exact: true }).click();
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Welcome");
      expect(await textOf(page.getByRole("heading", { level: 2 }))).toBe("First week");
      expect(await textOf(page.getByRole("heading", { level: 3 }))).toBe("Laptops");
      await shot(page, "05-document");

      await page.getByRole("link", { name: "Working memory" }).click();
      await page.getByLabel("What the agent is working on (optional)").fill("page");
      await page.getByLabel("Project (optional)", { exact: true }).fill("memoria");
      await page.getByLabel("Budget in tokens").fill("500");
      await page.getByRole("button", { name: "Ask" }).click();
      expect(await textOf(page.locator("dl.accounting"))).toContain("Candidates1");
      expect(await textOf(page.locator("pre"))).toContain("Ship the page");
      await shot(page, "06-working-memory");

      await page.getByLabel("Entry title").fill("Group hits by document");
      await page.getByLabel("Impact (optional)").fill("One README no longer fills the page");
      await page.getByLabel("Entry project (optional)").fill("memoria");
      await page.getByLabel("Type (optional)").fill("decision");
      await page.getByRole("button", { name: "Remember" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The entry was remembered.");
      await visible(page.locator(".entries").getByText("Group hits by document"));
      await shot(page, "06b-entry-remembered");
      await page.getByLabel("Budget in tokens").fill("30");
      await page.getByRole("button", { name: "Ask" }).click();
      expect(await textOf(page.locator("dl.accounting"))).toContain("Skipped1");
      expect(await textOf(page.locator("ul.skipped"))).toMatch(/^Ship the page rank 2 · e/);
      await shot(page, "06c-skipped-named");
      await page.getByRole("button", { name: "Forget Group hits by document" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The entry was forgotten.");
      expect(await page.locator(".entries").getByText("Group hits by document").count()).toBe(0);
      await shot(page, "06d-entry-forgotten");

      await page.getByRole("link", { name: "Add a note" }).click();
      await page.getByLabel("Title", { exact: true }).fill("Parking");
      await page.getByLabel("Folders (optional)").fill("Handbook / Office");
      await page.getByLabel("Content (markdown)").fill("# Parking\n\nBikes go in the yard.");
      await page.getByRole("button", { name: "Add the note" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The note was added");
      await shot(page, "07-note-added");
      await page.getByRole("link", { name: "Search" }).click();
      await searchFor(page, "bikes");
      await visible(page.getByRole("link", { name: "Parking", exact: true }));

      // Delete, after a confirmation page; Keep it goes back, Delete deletes.
      await page.getByRole("link", { name: "Parking", exact: true }).first().click();
      await page.getByRole("link", { name: "Delete this document" }).click();
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Delete this document?");
      await shot(page, "07b-confirm-delete");
      await page.getByRole("link", { name: "Keep it" }).click();
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Parking");
      await page.getByRole("link", { name: "Delete this document" }).click();
      await page.getByRole("button", { name: "Delete" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The document was deleted.");
      expect((await search(app, apiKey, "bikes")).hits).toEqual([]);
      await shot(page, "07c-deleted");

      // A hostile title is text: shown as written, no <img> made of it, no script run.
      await searchFor(page, "findme");
      await visible(page.getByRole("link", { name: HOSTILE, exact: true }));
      await page.getByRole("link", { name: HOSTILE, exact: true }).first().click();
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe(HOSTILE);
      expect(await page.locator("img").count()).toBe(0);
      expect(dialogs).toEqual([]);
      await shot(page, "08-hostile-title");

      // Another site's form posts to memoria with the person's cookie (same site, other origin): refused.
      await page.goto(`${evil.base}/`);
      await page.getByRole("button", { name: "Win a prize" }).click();
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Refused");
      await shot(page, "09-cross-site-refused");
      expect((await search(app, apiKey, "smuggled")).hits).toEqual([]);

      await page.goto(`${served.base}/`);
      await page.getByRole("button", { name: "Sign out" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("You are signed out.");
      expect(await context.cookies()).toEqual([]);
      await page.goto(`${served.base}/page/memory`);
      await visible(page.getByLabel("Team key"));
      await shot(page, "10-signed-out-again");
      await context.close();
    },
    120_000,
  );

  needs(outside.chromium).it(
    "draws a read key no change to make, and shows an admin the audit trail of what was done in the browser",
    async () => {
      const reader = await makeKey(app, apiKey, "read", { name: "Wall display" });
      const writer = await makeKey(app, apiKey, "write", { name: "Ana's laptop" });
      const context = await browser.newContext();
      const page = await context.newPage();
      await signIn(page, reader.apiKey);
      await visible(page.getByRole("button", { name: "Sign out" }));
      expect(await textOf(page.locator(".who"))).toBe("Wall display · read");
      for (const name of ["Add a note", "Export", "Audit trail"]) {
        expect(await page.getByRole("link", { name }).count(), name).toBe(0);
      }
      await searchFor(page, "laptop");
      await page.getByRole("link", { name: "Welcome", exact: true }).click();
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Welcome");
      expect(await page.getByRole("link", { name: "Delete this document" }).count()).toBe(0);
      await page.goto(`${served.base}/page/memory`);
      expect(await page.getByRole("button", { name: "Remember" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: /^Forget / }).count()).toBe(0);
      await shot(page, "14-read-key");
      await page.goto(`${served.base}/page/audit`);
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Not with this key");
      await page.getByRole("button", { name: "Sign out" }).click();

      // Ana adds a note with her write key; the team's admin key reads who did it.
      await signIn(page, writer.apiKey);
      await page.getByRole("link", { name: "Add a note" }).click();
      await page.getByLabel("Title", { exact: true }).fill("Desk booking");
      await page.getByLabel("Content (markdown)").fill("# Desk booking\n\nBook a desk the day before.");
      await page.getByRole("button", { name: "Add the note" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The note was added");
      const noteUrl = page.url();
      await page.getByRole("button", { name: "Sign out" }).click();
      await signIn(page, apiKey);
      await page.getByRole("link", { name: "Audit trail" }).click();
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Audit trail");
      const newest = page.locator("table.audit tbody tr").first();
      expect(await textOf(newest)).toMatch(/Ana's laptop \(key k[a-z0-9]+\)\s*added document d[a-z0-9]+/);
      // The row names the document by id, never its title, and links to it.
      expect(await newest.textContent()).not.toContain("Desk booking");
      await shot(page, "15-audit-trail");
      await newest.getByRole("link").click();
      expect(page.url().split("?")[0]).toBe(noteUrl.split("?")[0]);
      expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Desk booking");
      await context.close();
    },
    120_000,
  );

  needs(outside.chromium).it(
    "keeps the person signed in after following a link to memoria from another site",
    async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await signIn(page, apiKey);
      await visible(page.getByRole("button", { name: "Sign out" }));
      const [before] = await context.cookies();
      expect(before?.name).toBe("memoria_session");

      // localhost and 127.0.0.1 are different sites: the SameSite=Strict cookie stays out of this navigation.
      await page.goto(`${evil.base.replace("127.0.0.1", "localhost")}/`);
      await page.getByRole("link", { name: "Read the team's memory" }).click();
      await page.waitForURL(`${served.base}/**`);
      await shot(page, "13-arrived-from-another-site");
      expect((await context.cookies()).map((c) => [c.name, c.value])).toEqual([
        [before?.name, before?.value],
      ]);

      // Typed or bookmarked, the page carries the cookie again: still signed in.
      await page.goto(`${served.base}/page/memory`);
      await visible(page.getByRole("button", { name: "Sign out" }));
      await context.close();
    },
    120_000,
  );

  needs(outside.chromium).it(
    "works with JavaScript off: sign in, search, add a note, delete it, remember and forget, sign out",
    async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await signIn(page, apiKey);
      await searchFor(page, "laptop");
      await visible(page.getByRole("link", { name: "Welcome" }));
      await shot(page, "11-no-js-search");

      await page.getByRole("link", { name: "Add a note" }).click();
      await page.getByLabel("Title", { exact: true }).fill("Printer");
      await page.getByLabel("Content (markdown)").fill("The printer is on the second floor.");
      await page.getByRole("button", { name: "Add the note" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The note was added");
      expect((await search(app, apiKey, "printer")).hits.map((h) => h.title)).toEqual(["Printer"]);
      await shot(page, "12-no-js-note-added");
      await page.getByRole("link", { name: "Delete this document" }).click();
      await page.getByRole("button", { name: "Delete" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The document was deleted.");
      expect((await search(app, apiKey, "printer")).hits).toEqual([]);
      await shot(page, "13-no-js-deleted");

      await page.getByRole("link", { name: "Working memory" }).click();
      await page.getByLabel("Entry title").fill("No script needed");
      await page.getByRole("button", { name: "Remember" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The entry was remembered.");
      await page.getByRole("button", { name: "Forget No script needed" }).click();
      expect(await textOf(page.getByRole("status"))).toContain("The entry was forgotten.");
      await shot(page, "14-no-js-memory");

      await page.getByRole("button", { name: "Sign out" }).click();
      await visible(page.getByLabel("Team key"));
      await context.close();
    },
    120_000,
  );
});
