// People on the page in a real browser: Debian's Chromium driven by playwright-core. The first owner opens the
// invite link the admin token's new team answered, joins with a password, adds a passkey through Chromium's
// virtual authenticator (CDP WebAuthn: a platform authenticator with user verification), signs out and back in
// with it; invites a reader on the Members page, who joins in another browser and is refused a change; removing
// the reader signs them out at their next page. The host is `localhost`: Chromium refuses an IP address as a
// passkey's relying party.
//
// Skipped, saying so, where /usr/bin/chromium is missing (`apt-get install -y chromium`).

import { createHash } from "node:crypto";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { createTeamAnswer } from "../../src/routes/teams.js";
import { type Served, serveOnLoopback } from "../http/loopback.js";
import { expectOk } from "../routes/contract.js";
import { ADMIN_TOKEN, buildTestApp, type TestApp } from "../support/app.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { members } from "../support/members.js";
import { needs, outside } from "../support/outside.js";

let app: TestApp;
let served: Served;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (outside.chromium.missing !== null) return;
  app = await buildTestApp();
  served = await serveOnLoopback(app);
  base = served.base.replace("127.0.0.1", "localhost");
  browser = await chromium.launch({
    executablePath: outside.chromium.name,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}, 60_000);

afterAll(async () => {
  if (outside.chromium.missing !== null) return;
  await browser?.close();
  await served?.close();
  app?.close();
});

async function join(page: Page, link: string, person: { name: string; email: string; password: string }) {
  await page.goto(link);
  await page.getByLabel("Your name").fill(person.name);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Join", exact: true }).click();
  await page.waitForURL(`${base}/`);
}

const who = (page: Page) => page.locator(".who").textContent();

describe("people on the page in Chromium", () => {
  needs(outside.chromium).it(
    "joins by the first owner's link, adds a passkey, signs in with it, invites a reader and removes them",
    async () => {
      const created = await expectOk(
        await app.request("/v1/teams", { method: "POST", token: ADMIN_TOKEN, json: { name: "Acme" } }),
        201,
        createTeamAnswer,
      );
      const ownerLink = `${base}${new URL(created.invite?.url ?? "").pathname}`;
      const context = await browser.newContext();
      const page = await context.newPage();
      await join(page, ownerLink, { name: "Ana", email: "ana@example.com", password: "a long pass phrase" });
      expect(await who(page)).toBe("Ana · owner");

      // A passkey, made by Chromium's virtual authenticator.
      const cdp = await context.newCDPSession(page);
      await cdp.send("WebAuthn.enable");
      const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
        },
      });
      await page.goto(`${base}/page/account`);
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.waitForURL(/added=1/);
      expect(await page.getByRole("status").first().textContent()).toContain("The passkey was added");
      expect(await page.locator("tbody tr").count()).toBe(1);
      const stored = (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
      expect(stored).toHaveLength(1);
      expect(stored[0]?.rpId).toBe("localhost");
      // memoria keeps the credential's id only as its hash, and its public key sealed.
      const credentialId = Buffer.from(stored[0]?.credentialId ?? "", "base64").toString("base64url");
      const rows = await app.storage.client.execute("SELECT * FROM passkeys");
      expect(rows.rows).toHaveLength(1);
      expect(rows.rows[0]?.id_hash).toBe(createHash("sha256").update(credentialId).digest("hex"));
      expect(JSON.stringify(rows.rows)).not.toContain(credentialId);

      const trail = (await (await app.request("/v1/audit", { token: created.apiKey })).json()) as {
        events: { action: string; actor: { name: string | null }; target?: { id: string } }[];
      };
      expect(trail.events[0]).toMatchObject({
        action: "passkey.added",
        actor: { name: "Ana" },
        target: { id: rows.rows[0]?.id_hash },
      });

      // Signed out, then in again with the passkey alone.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("button", { name: "Sign in with a passkey" }).click();
      await page.waitForURL(`${base}/`);
      await page.locator(".who").waitFor();
      expect(await who(page)).toBe("Ana · owner");
      // The authenticator's counter moved on, and memoria kept its last use.
      await page.goto(`${base}/page/account`);
      expect(await page.locator("tbody td").nth(1).textContent()).not.toBe("never");

      // A reader invited on the Members page joins in another browser.
      await page.goto(`${base}/page/members`);
      await page.getByLabel("Invite someone as").selectOption("reader");
      await page.getByRole("button", { name: "Make an invite link" }).click();
      const readerLink = (await page.getByLabel("Invite link").inputValue()).replace(
        "127.0.0.1",
        "localhost",
      );
      const readerContext = await browser.newContext();
      const readerPage = await readerContext.newPage();
      await join(readerPage, readerLink, {
        name: "Rui",
        email: "rui@example.com",
        password: "another pass phrase",
      });
      expect(await who(readerPage)).toBe("Rui · reader");
      expect(await readerPage.getByRole("link", { name: "Add a note" }).count()).toBe(0);
      await readerPage.goto(`${base}/page/notes`);
      expect(await readerPage.locator("h1").textContent()).toBe("Not with your role");

      // The owner removes the reader: the reader's next page is the sign-in.
      const rui = (await members(app, created.apiKey)).find((m) => m.name === "Rui");
      await page.goto(`${base}/page/members`);
      await page.locator(`form[action="/page/members/${rui?.id}/remove"] button`).click();
      await page.waitForURL(/removed=1/);
      await readerPage.goto(`${base}/page/memory`);
      expect(await readerPage.getByRole("heading", { name: "Sign in" }).count()).toBe(1);
      await readerContext.close();

      // A member joins with a passkey alone, and signs in with it; their address signs in with no password.
      await page.goto(`${base}/page/members`);
      await page.getByLabel("Invite someone as").selectOption("member");
      await page.getByRole("button", { name: "Make an invite link" }).click();
      const memberLink = (await page.getByLabel("Invite link").inputValue()).replace(
        "127.0.0.1",
        "localhost",
      );
      const moContext = await browser.newContext();
      const mo = await moContext.newPage();
      const moCdp = await moContext.newCDPSession(mo);
      await moCdp.send("WebAuthn.enable");
      await moCdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
        },
      });
      await mo.goto(memberLink);
      await mo.getByLabel("Your name").fill("Mo");
      await mo.getByLabel("Email").fill("mo@example.com");
      await mo.getByRole("button", { name: "Join with a passkey instead" }).click();
      await mo.waitForURL(`${base}/`);
      await mo.locator(".who").waitFor();
      expect(await who(mo)).toBe("Mo · member");
      await mo.getByRole("button", { name: "Sign out" }).click();
      await mo.getByRole("button", { name: "Sign in with a passkey" }).click();
      await mo.waitForURL(`${base}/`);
      await mo.locator(".who").waitFor();
      expect(await who(mo)).toBe("Mo · member");
      const noPassword = await app.memoria.app.request("/page/sign-in", {
        method: "POST",
        headers: { origin: "http://localhost" },
        body: new URLSearchParams({ email: "mo@example.com", password: "any password at all" }),
      });
      expect(noPassword.status).toBe(401);
      // Mo's only passkey is Mo's only way in: removing it is refused; the join recorded it.
      await mo.goto(`${base}/page/account`);
      await mo.getByRole("button", { name: "Remove" }).click();
      expect(await mo.locator(".error, [role=alert]").first().textContent()).toContain("your only passkey");
      expect(await mo.locator("tbody tr").count()).toBe(1);
      const moTrail = (await (await app.request("/v1/audit", { token: created.apiKey })).json()) as {
        events: { action: string; actor: { name: string | null } }[];
      };
      expect(
        moTrail.events
          .filter((e) => e.actor.name === "Mo")
          .map((e) => e.action)
          .sort(),
      ).toEqual(["member.joined", "passkey.added"]);
      await moContext.close();
      await context.close();
    },
    120_000,
  );

  needs(outside.chromium).it("offers no passkey button with JavaScript off", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    expect(await page.getByRole("button", { name: "Sign in with a passkey" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Sign in", exact: true }).isVisible()).toBe(true);
    await context.close();
  });
});
