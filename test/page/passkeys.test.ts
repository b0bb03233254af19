// The page's passkey routes against hostile callers, in process (the whole ceremony runs in Chromium in
// members-browser.test.ts): other sites, missing CSRF tokens, answers that are not WebAuthn's, a key session,
// another member's passkey, and a challenge answered twice.

import { afterEach, describe, expect, it } from "vitest";
import { hashSecretNow } from "../../src/seal/secret-hash.js";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { joinAs } from "../support/members.js";
import { ORIGIN, PageClient } from "./browser-client.js";

let app: TestApp | undefined;
afterEach(() => app?.close());

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

describe("the page's passkeys", () => {
  it("gives sign-in options only to this origin, and refuses answers that are not a passkey's", async () => {
    app = await buildTestApp();
    const page = app.memoria.app;
    expect((await page.request("/page/passkey/options", json({}))).status).toBe(403);
    expect(
      (await page.request("/page/passkey/options", json({}, { origin: "https://evil.example" }))).status,
    ).toBe(403);
    const options = await page.request("/page/passkey/options", json({}, { origin: ORIGIN }));
    expect(options.status).toBe(200);
    const body = (await options.json()) as { challenge: string; rpId: string; userVerification: string };
    expect(body.rpId).toBe("localhost");
    expect(body.userVerification).toBe("required");
    // Only the challenge's hash is kept.
    const kept = await app.storage.client.execute("SELECT * FROM passkey_challenges");
    expect(kept.rows[0]?.challenge_hash).toBe(hashSecretNow(body.challenge));
    expect(JSON.stringify(kept.rows)).not.toContain(body.challenge);
    for (const [answer, status] of [
      ["not json", 400],
      [{ id: "made-up", rawId: "made-up", type: "public-key", response: {} }, 401],
      [{ id: "x".repeat(5000) }, 401],
      [null, 400],
    ] as const) {
      const res = await page.request(
        "/page/passkey/sign-in",
        typeof answer === "string"
          ? { method: "POST", headers: { origin: ORIGIN }, body: answer }
          : json(answer, { origin: ORIGIN }),
      );
      expect(res.status, JSON.stringify(answer).slice(0, 40)).toBe(status);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("lets a member ask for registration options only with the session's CSRF token, and never a key session", async () => {
    app = await buildTestApp();
    const { apiKey } = await makeTeam(app);
    const member = await joinAs(app, apiKey, "member", { name: "Mika" });
    const csrf = await member.browser.csrf();
    const options = (token: string | null, browser = member.browser) =>
      app?.memoria.app.request("/page/passkeys/options", {
        ...json({}, { origin: ORIGIN, ...(token === null ? {} : { "x-csrf-token": token }) }),
        headers: {
          "content-type": "application/json",
          origin: ORIGIN,
          cookie: `memoria_session=${browser.cookie}`,
          ...(token === null ? {} : { "x-csrf-token": token }),
        },
      });
    expect((await options(null))?.status).toBe(403);
    expect((await options("0".repeat(64)))?.status).toBe(403);
    const granted = await options(csrf);
    expect(granted?.status).toBe(200);
    const made = (await granted?.json()) as { rp: { id: string }; user: { name: string }; challenge: string };
    expect(made.rp.id).toBe("localhost");
    expect(made.user.name).toBe("Mika");
    // A forged answer to it is refused, and the challenge it named is spent.
    const forged = await app.memoria.app.request("/page/passkeys", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: ORIGIN,
        cookie: `memoria_session=${member.browser.cookie}`,
        "x-csrf-token": csrf,
      },
      body: JSON.stringify({ id: "abc", rawId: "abc", type: "public-key", response: {} }),
    });
    expect(forged.status).toBe(401);
    expect((await app.storage.client.execute("SELECT * FROM passkeys")).rows).toHaveLength(0);
    // A session signed in with a key has no passkeys: people do.
    const keyed = new PageClient(app);
    await keyed.signIn(apiKey);
    const account = await keyed.get("/page/account");
    expect(account.status).toBe(403);
    expect(await account.text()).toContain("Passkeys belong to people");
    expect((await options(await keyed.csrf(), keyed))?.status).toBe(403);
    // Another member's passkey (or none) cannot be removed.
    const gone = await member.browser.post(
      `/page/passkeys/${"a".repeat(64)}/remove`,
      new URLSearchParams({ csrf }),
    );
    expect(gone.status).toBe(404);
  });

  it("lets one client address start 20 passkey ceremonies a minute, and no more", async () => {
    app = await buildTestApp({ config: { trustProxy: "x-forwarded-for" } });
    const start = (address: string) =>
      app?.memoria.app.request(
        "/page/passkey/options",
        json({}, { origin: ORIGIN, "x-forwarded-for": address }),
      );
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await start("198.51.100.7"))?.status ?? 0);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    expect((await start("198.51.100.8"))?.status).toBe(200);
    const waiting = await app.storage.client.execute("SELECT COUNT(*) AS n FROM passkey_challenges");
    expect(Number(waiting.rows[0]?.n)).toBe(21);
  });

  it("answers 400, not an error of its own, to a form body that does not parse", async () => {
    app = await buildTestApp();
    for (const path of ["/page/sign-in", "/page/oidc/start", `/page/invite/${"A".repeat(43)}`]) {
      const res = await app.memoria.app.request(path, {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "multipart/form-data; boundary=nope" },
        body: "--elsewhere\r\ngarbage",
      });
      expect(res.status, path).toBe(400);
    }
  });

  it("answers a challenge once", async () => {
    app = await buildTestApp();
    const now = new Date().toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    await app.storage.passkeys.putChallenge(
      { challengeHash: "h1", purpose: "sign-in", teamId: null, memberId: null, expiresAt: later },
      now,
      10,
    );
    expect((await app.storage.passkeys.takeChallenge("h1"))?.purpose).toBe("sign-in");
    // Past the bound, a challenge is not kept.
    for (let i = 0; i < 3; i++)
      expect(
        await app.storage.passkeys.putChallenge(
          { challengeHash: `f${i}`, purpose: "sign-in", teamId: null, memberId: null, expiresAt: later },
          now,
          2,
        ),
      ).toBe(i < 2);
    expect(await app.storage.passkeys.takeChallenge("h1")).toBeNull();
  });
});
