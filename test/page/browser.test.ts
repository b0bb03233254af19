// The page in a real browser: Debian's Chromium driven by playwright-core, against the app served on a
// loopback port. One pass with JavaScript on walks every page a person uses (sign in, search, open a hit, ask
// the working memory, add a note, see a hostile title as text, be refused a cross-site post, sign out); one
// pass with JavaScript off shows the page does not need it. Screenshots of each state are kept in a temp
// folder (its path is printed) so a person can look.
//
// Skipped, saying so, where /usr/bin/chromium is missing (`apt-get install -y chromium`).

import { existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveOnLoopback } from "../http/loopback.js";
import { addDocument, buildTestApp, makeTeam, search, type TestApp } from "../support/app.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = existsSync(CHROMIUM);
/** Headless in a container: no sandbox (no user namespaces), no GPU, no /dev/shm, nothing phoning home. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
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
  await page.getByRole("button", { name: "Sign in" }).click();
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
  it("signs in, searches, opens a hit, asks memory, adds a note, refuses a cross-site post, signs out", async (ctx) => {
    if (!hasChromium) ctx.skip(`${CHROMIUM} is missing: apt-get install -y chromium to run the browser test`);
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
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
      ["memoria_session", true, "Strict"],
    ]);
    expect(cookies[0]?.value).not.toContain(apiKey);

    await searchFor(page, "laptop");
    expect(await textOf(page.getByRole("status"))).toContain("1 hit among 2 documents");
    await visible(page.getByText("Handbook › Onboarding"));
    expect(await textOf(page.locator("mark").first())).toBe("laptop");
    await shot(page, "03-search-hits");

    await searchFor(page, "passport");
    expect(await textOf(page.getByRole("status"))).toContain(
      'No passage matched "passport" among 2 documents',
    );
    await shot(page, "04-search-no-hits");

    await searchFor(page, "laptop");
    await page.getByRole("link", { name: "Welcome" }).click();
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Welcome");
    expect(await textOf(page.getByRole("heading", { level: 2 }))).toBe("First week");
    expect(await textOf(page.getByRole("heading", { level: 3 }))).toBe("Laptops");
    await shot(page, "05-document");

    await page.getByRole("link", { name: "Working memory" }).click();
    await page.getByLabel("What the agent is working on (optional)").fill("page");
    await page.getByLabel("Project (optional)").fill("memoria");
    await page.getByLabel("Budget in tokens").fill("500");
    await page.getByRole("button", { name: "Ask" }).click();
    expect(await textOf(page.locator("dl.accounting"))).toContain("Candidates1");
    expect(await textOf(page.locator("pre"))).toContain("Ship the page");
    await shot(page, "06-working-memory");

    await page.getByRole("link", { name: "Add a note" }).click();
    await page.getByLabel("Title", { exact: true }).fill("Parking");
    await page.getByLabel("Folders (optional)").fill("Handbook / Office");
    await page.getByLabel("Content (markdown)").fill("# Parking\n\nBikes go in the yard.");
    await page.getByRole("button", { name: "Add the note" }).click();
    expect(await textOf(page.getByRole("status"))).toContain("The note was added");
    await shot(page, "07-note-added");
    await page.getByRole("link", { name: "Search" }).click();
    await searchFor(page, "bikes");
    await visible(page.getByRole("link", { name: "Parking" }));

    // A hostile title is text: shown as written, no <img> made of it, no script run.
    await searchFor(page, "findme");
    await visible(page.getByRole("link", { name: HOSTILE }));
    await page.getByRole("link", { name: HOSTILE }).click();
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
  }, 120_000);

  it("keeps the person signed in after following a link to memoria from another site", async (ctx) => {
    if (!hasChromium) ctx.skip(`${CHROMIUM} is missing: apt-get install -y chromium to run the browser test`);
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
    expect((await context.cookies()).map((c) => [c.name, c.value])).toEqual([[before?.name, before?.value]]);

    // Typed or bookmarked, the page carries the cookie again: still signed in.
    await page.goto(`${served.base}/page/memory`);
    await visible(page.getByRole("button", { name: "Sign out" }));
    await context.close();
  }, 120_000);

  it("works with JavaScript off: sign in, search, add a note, sign out", async (ctx) => {
    if (!hasChromium) ctx.skip(`${CHROMIUM} is missing: apt-get install -y chromium to run the browser test`);
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

    await page.getByRole("button", { name: "Sign out" }).click();
    await visible(page.getByLabel("Team key"));
    await context.close();
  }, 120_000);
});
