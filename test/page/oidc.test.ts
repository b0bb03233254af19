// Joining and signing in with an organisation's OpenID Connect provider: a real provider (`oidc-provider`, the
// certified implementation) on loopback, with its development login form standing in for the organisation's
// sign-in page, and memoria served on loopback. A small browser follows the redirects with a cookie jar per
// host and fills the provider's forms. Hostile: an answer carried to another browser, an answer without its
// attempt, an account no member joined with, one account joining twice, a removed member.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Served, serveOnLoopback } from "../http/loopback.js";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { invitePath, members } from "../support/members.js";

const CLIENT_ID = "memoria";
const CLIENT_SECRET = "memoria-test-secret-0123456789abcdef";

let opServer: Server;
let issuer: string;
let app: TestApp;
let served: Served;
let adminKey: string;

beforeAll(async () => {
  let handler: ((req: never, res: never) => void) | null = null;
  opServer = createServer((req, res) => (handler ? handler(req as never, res as never) : res.end()));
  await new Promise<void>((resolve) => opServer.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(opServer.address() as AddressInfo).port}`;
  app = await buildTestApp({
    config: { oidc: { issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, allowHttp: true } },
  });
  served = await serveOnLoopback(app);
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${served.base}/page/oidc/callback`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    cookies: { keys: ["a test provider's cookie key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({
        sub: id,
        email: `${id}@example.org`,
        email_verified: true,
        name: `Person ${id}`,
      }),
    }),
    features: { devInteractions: { enabled: true } },
  });
  handler = provider.callback() as unknown as typeof handler;
  ({ apiKey: adminKey } = await makeTeam(app));
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => opServer?.close(resolve));
  await served?.close();
  app?.close();
});

/** A browser: a cookie jar per host, redirects followed by hand, the provider's login and consent filled in. */
class Browser {
  readonly jars = new Map<string, Map<string, string>>();

  #jar(url: string): Map<string, string> {
    const host = new URL(url).host;
    const jar = this.jars.get(host) ?? new Map<string, string>();
    this.jars.set(host, jar);
    return jar;
  }

  async fetch(url: string, init: { method?: string; body?: string } = {}): Promise<Response> {
    const jar = this.#jar(url);
    const res = await fetch(url, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(init.body
          ? { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin }
          : {}),
      },
      ...(init.body ? { body: init.body } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  }

  /**
   * Follows a sign-in from `start` as `login` until it leaves the provider for memoria's callback; that URL, not
   * yet opened.
   */
  async toCallback(
    start: string,
    login: string,
    first: { method?: string; body?: string } = {},
  ): Promise<string> {
    let url = start;
    let init: { method?: string; body?: string } = first;
    for (let hop = 0; hop < 20; hop++) {
      if (url.startsWith(`${served.base}/page/oidc/callback`)) return url;
      const res = await this.fetch(url, init);
      init = {};
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url).href;
        continue;
      }
      const html = await res.text();
      const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html);
      if (res.status !== 200 || !form?.[1])
        throw new Error(`stuck at ${url}: ${res.status} ${html.slice(0, 200)}`);
      const fields = new URLSearchParams();
      for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
        fields.set(m[1] ?? "", m[2] ?? "");
      if (/name="login"/.test(html)) {
        fields.set("login", login);
        fields.set("password", "any");
      }
      url = new URL(form[1].replaceAll("&amp;", "&"), url).href;
      init = { method: "POST", body: fields.toString() };
    }
    throw new Error("too many redirects");
  }

  /** Opens memoria's callback; the page it lands on (after its redirect, when signed in), and the status. */
  async finish(callback: string): Promise<{ status: number; html: string }> {
    const res = await this.fetch(callback);
    if (res.status === 303) {
      const page = await this.fetch(new URL(res.headers.get("location") ?? "/", served.base).href);
      return { status: 303, html: await page.text() };
    }
    return { status: res.status, html: await res.text() };
  }
}

describe("signing in with an organisation's OpenID Connect provider", () => {
  it("joins by an invite with the provider's account, then signs in with it alone", async () => {
    const path = await invitePath(app, adminKey, "member");
    const browser = new Browser();
    const joinPage = await (await browser.fetch(`${served.base}${path}`)).text();
    const host = new URL(issuer).host;
    expect(joinPage).toContain(`Join with your ${host} account`);
    const code = path.slice(path.lastIndexOf("/") + 1);
    // A link from elsewhere does not join: the invite's own form (a POST from this origin) does.
    const linked = new Browser();
    const notJoined = await linked.finish(
      await linked.toCallback(`${served.base}/page/oidc/start?invite=${code}`, "alice"),
    );
    expect(notJoined.status).toBe(401);
    const crossSite = await fetch(`${served.base}/page/oidc/start`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: `invite=${code}`,
    });
    expect(crossSite.status).toBe(403);
    const joined = await browser.finish(
      await browser.toCallback(`${served.base}/page/oidc/start`, "alice", {
        method: "POST",
        body: `invite=${code}`,
      }),
    );
    expect(joined.status).toBe(303);
    expect(joined.html).toContain(">Person alice · member</span>");
    const alice = (await members(app, adminKey)).find((m) => m.name === "Person alice");
    expect(alice?.role).toBe("member");

    // Another browser, signing in with the same account: the same member.
    const later = new Browser();
    const signInPage = await (await later.fetch(`${served.base}/`)).text();
    expect(signInPage).toContain(`Sign in with ${host}`);
    const signedIn = await later.finish(await later.toCallback(`${served.base}/page/oidc/start`, "alice"));
    expect(signedIn.status).toBe(303);
    expect(signedIn.html).toContain(">Person alice · member</span>");

    // The same account cannot join a second time, and the invite stays unspent for someone else.
    const second = await invitePath(app, adminKey, "reader");
    const again = new Browser();
    const twice = await again.finish(
      await again.toCallback(`${served.base}/page/oidc/start`, "alice", {
        method: "POST",
        body: `invite=${second.slice(second.lastIndexOf("/") + 1)}`,
      }),
    );
    expect(twice.status).toBe(409);

    // Removed, the account signs nobody in.
    await app.request(`/v1/members/${alice?.id}`, { method: "DELETE", token: adminKey });
    const removed = new Browser();
    const refused = await removed.finish(await removed.toCallback(`${served.base}/page/oidc/start`, "alice"));
    expect(refused.status).toBe(401);
    expect(refused.html).toContain("No member here signs in with that account");
  }, 60_000);

  it("refuses an account no member joined with, an answer without its attempt, and one carried to another browser", async () => {
    const nobody = new Browser();
    const unknown = await nobody.finish(await nobody.toCallback(`${served.base}/page/oidc/start`, "mallory"));
    expect(unknown.status).toBe(401);
    expect(unknown.html).not.toContain('class="who"');

    // The attacker's own sign-in, its answer opened by a victim's browser (login CSRF): the victim's browser has
    // no attempt, or another one, so the answer's state does not match.
    const path = await invitePath(app, adminKey, "owner");
    const attacker = new Browser();
    const callback = await attacker.toCallback(`${served.base}/page/oidc/start`, "mallory", {
      method: "POST",
      body: `invite=${path.slice(path.lastIndexOf("/") + 1)}`,
    });
    const victim = new Browser();
    const bare = await victim.finish(callback);
    expect(bare.status).toBe(401);
    await victim.fetch(`${served.base}/page/oidc/start`);
    const carried = await victim.finish(callback);
    expect(carried.status).toBe(401);
    expect(carried.html).toContain("was not accepted");
    // The attacker's invite was not spent by either.
    expect((await members(app, adminKey)).some((m) => m.name === "Person mallory")).toBe(false);
  }, 60_000);

  it("over HTTPS keeps the attempt in a __Host- cookie, and takes no other there", async () => {
    const https = { "x-forwarded-proto": "https" };
    const started = await app.memoria.app.request("/page/oidc/start", { headers: https });
    expect(started.status).toBe(303);
    const cookie = started.headers.getSetCookie().join("\n");
    expect(cookie).toMatch(/^__Host-memoria_oidc=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("Path=/;");
    expect(cookie).toContain("Secure");
    // A plain-named cookie over HTTPS could have come from a sibling host: refused, the state never checked.
    const secret = /=([A-Za-z0-9_-]{43})/.exec(cookie)?.[1] ?? "";
    const planted = await app.memoria.app.request("/page/oidc/callback?code=x&state=y", {
      headers: { ...https, cookie: `memoria_oidc=${secret}` },
    });
    expect(planted.status).toBe(401);
    expect(await planted.text()).toContain("was not started here");
  });

  it("says so when the instance has no provider", async () => {
    const plain = await buildTestApp();
    try {
      expect((await plain.memoria.app.request("/page/oidc/start")).status).toBe(404);
      expect(await (await plain.memoria.app.request("/")).text()).not.toContain("/page/oidc/start");
    } finally {
      plain.close();
    }
  });
});
