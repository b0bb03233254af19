// The hostile side of members: invites reused, expired, forged or sent from another site; an address taken;
// the last owner; another team's member; a form without its CSRF token; guessing passwords; and a master key
// rotated away from, under which members still sign in.

import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { INVITE_TTL_MS } from "../../src/services/members.js";
import { PageClient } from "../page/browser-client.js";
import { buildTestApp, makeTeam, newMasterKey, tempDir } from "../support/app.js";
import { invitePath, joinAs, members, sendJoin } from "../support/members.js";
import { expectError, withApp } from "./contract.js";

const person = { name: "Pat", email: "pat@example.com", password: "twelve chars!" };

/** A clock the test moves. */
function movableClock(): Clock & { advance(ms: number): void } {
  let now = Date.parse("2026-01-01T00:00:00.000Z");
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

describe("invites", () => {
  it("works once: a second person opening a spent link is told so, and nothing of theirs is kept", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const path = await invitePath(app, apiKey, "member");
      expect((await sendJoin(new PageClient(app), path, person)).status).toBe(303);
      const second = await sendJoin(new PageClient(app), path, { ...person, email: "other@example.com" });
      expect(second.status).toBe(404);
      expect(await second.text()).toContain("used already");
      expect((await new PageClient(app).get(path)).status).toBe(404);
      expect((await members(app, apiKey)).map((m) => m.name)).toEqual(["Pat"]);
    }));

  it("expires after a day", async () => {
    const clock = movableClock();
    await withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const path = await invitePath(app, apiKey, "reader");
        clock.advance(INVITE_TTL_MS);
        const res = await sendJoin(new PageClient(app), path, person);
        expect(res.status).toBe(404);
        expect(await res.text()).toContain("expired");
        expect(await members(app, apiKey)).toEqual([]);
      },
      { clock },
    );
  });

  it("refuses a forged code, a cross-site form and a form that does not parse, without spending the invite", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const path = await invitePath(app, apiKey, "owner");
      const forged = await sendJoin(
        new PageClient(app),
        "/page/invite/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        person,
      );
      expect(forged.status).toBe(404);
      const crossSite = await new PageClient(app).post(path, new URLSearchParams(person), {
        origin: "https://evil.example",
      });
      expect(crossSite.status).toBe(403);
      for (const bad of [
        { ...person, password: "short" },
        { ...person, email: "not an address" },
        { ...person, name: "   " },
        { ...person, password: "x".repeat(257) },
      ]) {
        const res = await sendJoin(new PageClient(app), path, bad);
        expect(res.status).toBe(400);
        // The form comes back with what was typed, but never the password.
        const html = await res.text();
        expect(html).not.toContain(bad.password);
      }
      expect(await members(app, apiKey)).toEqual([]);
      expect((await sendJoin(new PageClient(app), path, person)).status).toBe(303);
    }));

  it("refuses an address that already signs in here, in any case, and leaves the invite for another", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await joinAs(app, a.apiKey, "member", { email: "sam@example.com" });
      const path = await invitePath(app, b.apiKey, "member");
      const res = await sendJoin(new PageClient(app), path, { ...person, email: "SAM@example.com" });
      expect(res.status).toBe(409);
      expect(await res.text()).toContain("already signs in");
      expect((await sendJoin(new PageClient(app), path, person)).status).toBe(303);
    }));

  it("withdraws the unspent invites of a member removed or given another role, and of a key revoked", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const owner = await joinAs(app, apiKey, "owner");
      const second = await joinAs(app, apiKey, "owner");
      // A third owner stays, so the team keeps one through both changes.
      await joinAs(app, apiKey, "owner");
      const inviteOnPage = async (who: typeof owner) => {
        const made = await who.browser.post(
          "/page/invites",
          new URLSearchParams({ csrf: await who.browser.csrf(), role: "owner" }),
        );
        const link = /class="invite-link" readonly="" value="([^"]+)"/.exec(await made.text())?.[1];
        return new URL(link ?? "").pathname;
      };
      const byOwner = await inviteOnPage(owner);
      const bySecond = await inviteOnPage(second);
      const agent = (await (
        await app.request("/v1/keys", { method: "POST", token: apiKey, json: { name: "a", scope: "admin" } })
      ).json()) as { keyId: string; apiKey: string };
      const byKey = await invitePath(app, agent.apiKey, "owner");
      // An owner removed, one demoted, a key revoked: what each handed out stops working with them.
      await app.request(`/v1/members/${owner.memberId}`, { method: "DELETE", token: apiKey });
      await app.request(`/v1/members/${second.memberId}`, {
        method: "PATCH",
        token: apiKey,
        json: { role: "reader" },
      });
      await app.request(`/v1/keys/${agent.keyId}`, { method: "DELETE", token: apiKey });
      for (const path of [byOwner, bySecond, byKey]) {
        const res = await sendJoin(new PageClient(app), path, {
          ...person,
          email: `${path.length}${Math.random()}@example.com`,
        });
        expect(res.status, path).toBe(404);
        expect(await res.text()).toContain("withdrawn");
      }
      // An invite of a key still live works.
      expect(
        (await sendJoin(new PageClient(app), await invitePath(app, apiKey, "reader"), person)).status,
      ).toBe(303);
    }));

  it("takes away, with a removed owner, the keys and invites their keys made", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const owner = await joinAs(app, apiKey, "owner");
      await joinAs(app, apiKey, "owner");
      // The owner's own admin key, made on the page, then a second key and an owner invite made with it.
      const made = await owner.browser.post(
        "/page/keys",
        new URLSearchParams({ csrf: await owner.browser.csrf(), name: "ops", scope: "admin", days: "" }),
      );
      const ownersKey = /value="(mem_[^"]+)"/.exec(await made.text())?.[1] ?? "";
      const second = (await (
        await app.request("/v1/keys", {
          method: "POST",
          token: ownersKey,
          json: { name: "spare", scope: "admin" },
        })
      ).json()) as { keyId: string; apiKey: string };
      const listed = (await (await app.request("/v1/keys", { token: apiKey })).json()) as {
        keyId: string;
        owner: string | null;
      }[];
      expect(listed.find((k) => k.keyId === second.keyId)?.owner).toBe(owner.memberId);
      const byKey = await invitePath(app, ownersKey, "owner");
      await app.request(`/v1/members/${owner.memberId}`, { method: "DELETE", token: apiKey });
      for (const key of [ownersKey, second.apiKey])
        expect((await app.request("/v1/stats", { token: key })).status).toBe(401);
      const res = await sendJoin(new PageClient(app), byKey, person);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("withdrawn");
    }));

  it("lets no key or invite outlive its removed maker, made on another instance that still holds the key as live", async () => {
    const tmp = tempDir();
    const masterKey = newMasterKey();
    const first = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey });
    const second = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey });
    try {
      const { apiKey } = await makeTeam(first);
      const owner = await joinAs(first, apiKey, "owner");
      await joinAs(first, apiKey, "owner");
      const made = await owner.browser.post(
        "/page/keys",
        new URLSearchParams({ csrf: await owner.browser.csrf(), name: "ops", scope: "admin", days: "" }),
      );
      const ownersKey = /value="(mem_[^"]+)"/.exec(await made.text())?.[1] ?? "";
      // The second instance checks the key once, and holds it as live for MEMORIA_CATCHUP_MS.
      expect((await second.request("/v1/stats", { token: ownersKey })).status).toBe(200);
      await first.request(`/v1/members/${owner.memberId}`, { method: "DELETE", token: apiKey });
      // Within that window the second instance still takes the key, but what it would make is refused.
      const key = await second.request("/v1/keys", {
        method: "POST",
        token: ownersKey,
        json: { name: "spare", scope: "admin" },
      });
      expect(key.status).toBe(403);
      const invite = await second.request("/v1/invites", {
        method: "POST",
        token: ownersKey,
        json: { role: "owner" },
      });
      expect(invite.status).toBe(403);
      const keys = (await (await first.request("/v1/keys", { token: apiKey })).json()) as {
        name: string | null;
      }[];
      expect(keys.map((k) => k.name)).not.toContain("spare");
    } finally {
      first.close();
      second.close();
      tmp.cleanup();
    }
  });

  it("lets one of two people opening the same link at once join", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const path = await invitePath(app, apiKey, "member");
      const answers = await Promise.all(
        ["one", "two", "three"].map((n) =>
          sendJoin(new PageClient(app), path, { ...person, name: n, email: `${n}@example.com` }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([303, 404, 404]);
      expect(await members(app, apiKey)).toHaveLength(1);
    }));
});

describe("members' changes", () => {
  it("keeps the team's last owner, and refuses another team's member, a removed one and a role that is none", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const owner = await joinAs(app, a.apiKey, "owner");
      const other = await joinAs(app, b.apiKey, "member");
      const patch = (key: string, id: string, role: string) =>
        app.request(`/v1/members/${id}`, { method: "PATCH", token: key, json: { role } });
      await expectError(await patch(a.apiKey, owner.memberId, "member"), 409, "conflict");
      await expectError(
        await app.request(`/v1/members/${owner.memberId}`, { method: "DELETE", token: a.apiKey }),
        409,
        "conflict",
      );
      await expectError(await patch(a.apiKey, other.memberId, "reader"), 404, "not_found");
      await expectError(
        await app.request(`/v1/members/${other.memberId}`, { method: "DELETE", token: a.apiKey }),
        404,
        "not_found",
      );
      await expectError(await patch(a.apiKey, owner.memberId, "admin"), 400, "invalid_request");
      await expectError(
        await app.request("/v1/invites", { method: "POST", token: a.apiKey, json: { role: "root" } }),
        400,
        "invalid_request",
      );
      // With a second owner, the first may step down, and a removed member is then 404.
      const second = await joinAs(app, a.apiKey, "owner");
      expect((await patch(a.apiKey, owner.memberId, "member")).status).toBe(204);
      expect(
        (await app.request(`/v1/members/${second.memberId}`, { method: "DELETE", token: a.apiKey })).status,
      ).toBe(409);
      await app.request(`/v1/members/${owner.memberId}`, { method: "DELETE", token: a.apiKey });
      await expectError(await patch(a.apiKey, owner.memberId, "owner"), 404, "not_found");
      expect((await members(app, b.apiKey)).map((m) => m.id)).toEqual([other.memberId]);
    }));

  it("needs an admin key, and an owner's page with its CSRF token", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const owner = await joinAs(app, apiKey, "owner");
      const member = await joinAs(app, apiKey, "member");
      const writeKey = (
        (await (
          await app.request("/v1/keys", {
            method: "POST",
            token: apiKey,
            json: { name: "w", scope: "write" },
          })
        ).json()) as { apiKey: string }
      ).apiKey;
      await expectError(await app.request("/v1/members", { token: writeKey }), 403, "forbidden");
      await expectError(
        await app.request("/v1/invites", { method: "POST", token: writeKey, json: { role: "owner" } }),
        403,
        "forbidden",
      );
      // A member cannot invite on the page, even with their own CSRF token.
      const memberCsrf = await member.browser.csrf();
      expect(
        (await member.browser.post("/page/invites", new URLSearchParams({ csrf: memberCsrf, role: "owner" })))
          .status,
      ).toBe(403);
      // An owner's form without the token, or with another session's, changes nothing.
      for (const csrf of ["", memberCsrf]) {
        const res = await owner.browser.post(
          `/page/members/${member.memberId}/remove`,
          new URLSearchParams({ csrf }),
        );
        expect(res.status).toBe(403);
      }
      // The Keys forms likewise: no key is made or revoked without the session's token.
      expect(
        (await member.browser.post("/page/keys", new URLSearchParams({ name: "x", scope: "read", days: "" })))
          .status,
      ).toBe(403);
      expect(
        (await member.browser.post("/page/keys/knosuchkey0000000/revoke", new URLSearchParams({}))).status,
      ).toBe(403);
      const keysAfter = (await (await app.request("/v1/keys", { token: apiKey })).json()) as {
        name: string | null;
      }[];
      expect(keysAfter.map((k) => k.name)).not.toContain("x");
      const crossSite = await owner.browser.post(
        `/page/members/${member.memberId}/role`,
        new URLSearchParams({ csrf: await owner.browser.csrf(), role: "owner" }),
        { origin: "https://evil.example" },
      );
      expect(crossSite.status).toBe(403);
      expect((await members(app, apiKey)).find((m) => m.id === member.memberId)?.role).toBe("member");
    }));
});

describe("signing in", () => {
  it("says the same for an unknown address, a wrong password and a removed member", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const kept = await joinAs(app, apiKey, "member");
      const gone = await joinAs(app, apiKey, "member");
      await app.request(`/v1/members/${gone.memberId}`, { method: "DELETE", token: apiKey });
      const texts = new Set<string>();
      for (const [email, password] of [
        ["nobody@example.com", kept.password],
        [kept.email, `${kept.password}!`],
        [gone.email, gone.password],
      ] as const) {
        const res = await new PageClient(app).post("/page/sign-in", new URLSearchParams({ email, password }));
        expect(res.status).toBe(401);
        expect(res.headers.get("set-cookie")).toBeNull();
        texts.add((await res.text()).replace(/value="[^"]*"/g, ""));
      }
      expect(texts.size).toBe(1);
    }));

  it("locks a client address out after 30 failed sign-ins in a minute, the right password included", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const member = await joinAs(app, apiKey, "member");
        const signIn = (email: string, password: string, address = "198.51.100.7") =>
          app.memoria.app.request("/page/sign-in", {
            method: "POST",
            headers: { origin: "http://localhost", "x-forwarded-for": address },
            body: new URLSearchParams({ email, password }),
          });
        const statuses: number[] = [];
        // Guesses at many accounts, so no one account's own limit is reached.
        for (let i = 0; i < 31; i++)
          statuses.push((await signIn(`guess${i}@example.com`, "a wrong guess")).status);
        expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
        expect(statuses[30]).toBe(429);
        expect((await signIn(member.email, member.password)).status).toBe(429);
        // Another address is not locked out.
        expect((await signIn(member.email, member.password, "198.51.100.8")).status).toBe(303);
      },
      { config: { trustProxy: "x-forwarded-for" } },
    ));

  it("locks an account out after 10 failed sign-ins in a minute from any addresses, and lets it in a minute on", async () => {
    const clock = movableClock();
    await withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        const member = await joinAs(app, apiKey, "member");
        const other = await joinAs(app, apiKey, "member");
        const signIn = (email: string, password: string, address: string) =>
          app.memoria.app.request("/page/sign-in", {
            method: "POST",
            headers: { origin: "http://localhost", "x-forwarded-for": address },
            body: new URLSearchParams({ email, password }),
          });
        const statuses: number[] = [];
        // Each guess from its own address, as a botnet sends them; the address typed in varying case.
        for (let i = 0; i < 11; i++) {
          const email = i % 2 ? member.email.toUpperCase() : member.email;
          statuses.push((await signIn(email, `wrong guess ${i}`, `203.0.113.${i + 1}`)).status);
        }
        expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
        expect(statuses[10]).toBe(429);
        const locked = await signIn(member.email, member.password, "203.0.113.99");
        expect(locked.status).toBe(429);
        expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
        // Another account is not locked out, and this one is let in once the minute has passed.
        expect((await signIn(other.email, other.password, "203.0.113.99")).status).toBe(303);
        clock.advance(60_000);
        expect((await signIn(member.email, member.password, "203.0.113.99")).status).toBe(303);
      },
      { clock, config: { trustProxy: "x-forwarded-for" } },
    );
  });

  it("signs members in under a master key rotated away from, and moves them to the new key's hash", async () => {
    const tmp = tempDir();
    const oldKey = newMasterKey();
    const newKey = newMasterKey();
    try {
      const before = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: oldKey });
      const { apiKey } = await makeTeam(before);
      const member = await joinAs(before, apiKey, "member");
      const hashOf = async (app: typeof before) =>
        String((await app.storage.client.execute("SELECT sign_in_hash FROM members")).rows[0]?.sign_in_hash);
      const oldHash = await hashOf(before);
      before.close();
      const rotated = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: newKey, previousMasterKey: oldKey });
      const res = await new PageClient(rotated).post(
        "/page/sign-in",
        new URLSearchParams({ email: member.email, password: member.password }),
      );
      expect(res.status).toBe(303);
      const newHash = await hashOf(rotated);
      expect(newHash).not.toBe(oldHash);
      rotated.close();
      // The previous key gone, the member still signs in: the row moved.
      const after = await buildTestApp({ dbUrl: tmp.dbUrl, masterKey: newKey });
      const again = await new PageClient(after).post(
        "/page/sign-in",
        new URLSearchParams({ email: member.email, password: member.password }),
      );
      expect(again.status).toBe(303);
      after.close();
    } finally {
      tmp.cleanup();
    }
  });
});
