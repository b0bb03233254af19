// A team of people: the admin token's new team comes with its first owner's invite; owners invite by link,
// people join and sign in as themselves, roles change and members leave, and the trail names each of them.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { teamKeysAnswer } from "../../src/routes/keys.js";
import { createTeamAnswer } from "../../src/routes/teams.js";
import { serveOnLoopback } from "../http/loopback.js";
import { PageClient } from "../page/browser-client.js";
import { ADMIN_TOKEN, addDocument, makeTeam } from "../support/app.js";
import { changesSinceMade } from "../support/audit.js";
import { makeKey } from "../support/keys.js";
import { type Joined, joinAs, members, sendJoin } from "../support/members.js";
import { expectNoContent, expectOk, tickingClock, withApp } from "./contract.js";

describe("members", () => {
  it("makes a team with its first owner's invite, which signs the owner in as themselves", () =>
    withApp(async (app) => {
      const created = await expectOk(
        await app.request("/v1/teams", { method: "POST", token: ADMIN_TOKEN, json: { name: "Acme" } }),
        201,
        createTeamAnswer,
      );
      expect(created.invite).not.toBeNull();
      const url = new URL(created.invite?.url ?? "");
      expect(url.pathname).toMatch(/^\/page\/invite\/[A-Za-z0-9_-]{43}$/);
      expect(Date.parse(created.invite?.expiresAt ?? "") - Date.now()).toBeGreaterThan(23 * 3600_000);
      const browser = new PageClient(app);
      const form = await (await browser.get(url.pathname)).text();
      expect(form).toContain("Join Acme");
      expect(form).toContain("<strong>owner</strong>");
      const joined = await sendJoin(browser, url.pathname, {
        name: "Ana Owner",
        email: "  Ana@Example.COM ",
        password: "a long pass phrase",
      });
      expect(joined.status).toBe(303);
      const start = await (await browser.get("/")).text();
      expect(start).toContain(">Ana Owner · owner</span>");
      expect(start).toContain('href="/page/members"');
      const listed = await members(app, created.apiKey);
      expect(listed).toEqual([
        {
          id: expect.any(String),
          name: "Ana Owner",
          role: "owner",
          createdAt: expect.any(String),
          lastSeenAt: expect.any(String),
        },
      ]);
      // Signing out and in again by address and password, the address as typed in another case.
      const again = new PageClient(app);
      const signIn = await again.post(
        "/page/sign-in",
        new URLSearchParams({ email: "ana@example.com", password: "a long pass phrase" }),
      );
      expect(signIn.status).toBe(303);
      expect(await (await again.get("/")).text()).toContain(">Ana Owner · owner</span>");
    }));

  it("gives an owner, a member, a reader and two agent keys exactly their powers on the page, REST and MCP, and names each in the trail", () =>
    withApp(
      async (app) => {
        const { apiKey: admin } = await makeTeam(app);
        const owner = await joinAs(app, admin, "owner", { name: "Olga" });
        const member = await joinAs(app, admin, "member", { name: "Mika" });
        const reader = await joinAs(app, admin, "reader", { name: "Rui" });
        const readAgent = await makeKey(app, admin, "read", { name: "Wall display" });
        const writeAgent = await makeKey(app, admin, "write", { name: "Sync agent" });
        const doc = await addDocument(app, writeAgent.apiKey, {
          title: "Runbook",
          content: "Restart ingest.",
        });

        // Reading: everyone.
        for (const who of [owner, member, reader]) {
          expect((await who.browser.get(`/page/documents/${doc.id}`)).status, who.name).toBe(200);
        }
        expect((await app.request("/v1/search?q=ingest", { token: readAgent.apiKey })).status).toBe(200);
        // Adding: the member and the owner; the reader and the read key are refused.
        const note = (who: typeof member, title: string) =>
          who.browser
            .csrf()
            .then((csrf) =>
              who.browser.post(
                "/page/notes",
                new URLSearchParams({ csrf, title, content: "A note.", path: "" }),
              ),
            );
        expect((await note(member, "By Mika")).status).toBe(303);
        expect((await note(reader, "By Rui")).status).toBe(403);
        expect(
          (
            await app.request("/v1/documents", {
              method: "POST",
              token: readAgent.apiKey,
              json: { title: "x", content: "y" },
            })
          ).status,
        ).toBe(403);
        // Deleting: the owner only.
        const del = async (who: typeof member) =>
          who.browser.post(
            `/page/documents/${doc.id}/delete`,
            new URLSearchParams({ csrf: await who.browser.csrf() }),
          );
        expect((await del(member)).status).toBe(403);
        expect(await (await member.browser.get("/page/members")).status).toBe(403);
        expect((await del(owner)).status).toBe(303);
        expect(
          (await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: writeAgent.apiKey }))
            .status,
        ).toBe(403);

        // Over MCP, with the SDK's client: the read key searches but may not remember; the write key remembers
        // but may not forget.
        const served = await serveOnLoopback(app);
        const clients: Client[] = [];
        try {
          const connect = async (key: string) => {
            const client = new Client({ name: "members-test", version: "1" });
            clients.push(client);
            await client.connect(
              new StreamableHTTPClientTransport(new URL(`${served.base}/mcp`), {
                requestInit: { headers: { authorization: `Bearer ${key}` } },
              }),
            );
            return client;
          };
          const display = await connect(readAgent.apiKey);
          const sync = await connect(writeAgent.apiKey);
          const searched = await display.callTool({ name: "search", arguments: { q: "ingest" } });
          expect(searched.isError ?? false).toBe(false);
          const refusedRemember = await display.callTool({ name: "remember", arguments: { title: "Nope" } });
          expect(refusedRemember.isError).toBe(true);
          const remembered = await sync.callTool({
            name: "remember",
            arguments: { title: "Restart ingest first" },
          });
          expect(remembered.isError ?? false).toBe(false);
          const entryId = (
            (await (await app.request("/v1/entries", { token: admin })).json()) as {
              entries: { id: string }[];
            }
          ).entries[0]?.id;
          const refusedForget = await sync.callTool({ name: "forget", arguments: { id: entryId } });
          expect(refusedForget.isError).toBe(true);
        } finally {
          for (const client of clients) await client.close();
          await served.close();
        }

        const trail = await changesSinceMade(app, admin, "?limit=200");
        expect(
          trail.filter((event) => event.action.startsWith("entry.")).map((e) => `${e.who} ${e.action}`),
        ).toEqual(["Sync agent entry.remembered"]);
        const writes = trail.filter((event) => event.action.startsWith("document."));
        expect(writes.map((event) => `${event.who} ${event.action}`)).toEqual([
          "Olga document.deleted",
          "Mika document.created",
          "Sync agent document.created",
        ]);
        expect(trail.filter((event) => event.action === "member.joined").map((event) => event.who)).toEqual([
          "Rui",
          "Mika",
          "Olga",
        ]);
      },
      { clock: tickingClock() },
    ));

  it("applies a role change and a removal at the member's next request", () =>
    withApp(
      async (app) => {
        const { apiKey: admin } = await makeTeam(app);
        const member = await joinAs(app, admin, "member");
        expect((await member.browser.get("/page/notes")).status).toBe(200);
        await expectNoContent(
          await app.request(`/v1/members/${member.memberId}`, {
            method: "PATCH",
            token: admin,
            json: { role: "reader" },
          }),
        );
        expect((await member.browser.get("/page/notes")).status).toBe(403);
        expect(await (await member.browser.get("/")).text()).toContain(" · reader</span>");
        // The same role again is no change, and no event.
        await expectNoContent(
          await app.request(`/v1/members/${member.memberId}`, {
            method: "PATCH",
            token: admin,
            json: { role: "reader" },
          }),
        );
        await expectNoContent(
          await app.request(`/v1/members/${member.memberId}`, { method: "DELETE", token: admin }),
        );
        // Signed out at once: the next page sends them to sign in, and their password no longer signs in.
        const after = await member.browser.get("/page/memory");
        expect(after.status).toBe(303);
        expect(after.headers.get("location")).toBe("/");
        const retry = await new PageClient(app).post(
          "/page/sign-in",
          new URLSearchParams({ email: member.email, password: member.password }),
        );
        expect(retry.status).toBe(401);
        expect(await members(app, admin)).toEqual([]);
        const trail = await changesSinceMade(app, admin);
        expect(trail.slice(0, 2).map((event) => `${event.who} ${event.action} ${event.target}`)).toEqual([
          `key member.removed member ${member.memberId}`,
          `key member.role_changed member ${member.memberId}`,
        ]);
      },
      { clock: tickingClock() },
    ));

  it("lets an owner invite, change roles and remove on the page", () =>
    withApp(
      async (app) => {
        const { apiKey: admin } = await makeTeam(app);
        const owner = await joinAs(app, admin, "owner", { name: "Olga" });
        const csrf = await owner.browser.csrf();
        const made = await owner.browser.post("/page/invites", new URLSearchParams({ csrf, role: "reader" }));
        expect(made.status).toBe(200);
        const link = /class="invite-link" readonly="" value="([^"]+)"/.exec(await made.text())?.[1];
        expect(link).toBeDefined();
        const joiner = new PageClient(app);
        const joined = await sendJoin(joiner, new URL(link ?? "").pathname, {
          name: "Rui",
          email: "rui@example.com",
          password: "another pass phrase",
        });
        expect(joined.status).toBe(303);
        const rui = (await members(app, admin)).find((m) => m.name === "Rui");
        expect(rui?.role).toBe("reader");
        const changed = await owner.browser.post(
          `/page/members/${rui?.id}/role`,
          new URLSearchParams({ csrf, role: "member" }),
        );
        expect(changed.headers.get("location")).toBe("/page/members?changed=1");
        expect((await joiner.get("/page/notes")).status).toBe(200);
        const removed = await owner.browser.post(
          `/page/members/${rui?.id}/remove`,
          new URLSearchParams({ csrf }),
        );
        expect(removed.headers.get("location")).toBe("/page/members?removed=1");
        expect((await joiner.get("/page/notes")).status).toBe(303);
        const page = await (await owner.browser.get("/page/members?removed=1")).text();
        expect(page).toContain("The member was removed");
        expect(page).toContain("Olga (you)");
        const trail = await changesSinceMade(app, admin);
        expect(trail.slice(0, 4).map((event) => `${event.who} ${event.action}`)).toEqual([
          "Olga member.removed",
          "Olga member.role_changed",
          "Rui member.joined",
          "Olga member.invited",
        ]);
      },
      { clock: tickingClock() },
    ));
});

describe("members' keys", () => {
  /** Makes a key on the page as `who`; the answer's status and, when made, the key shown once. */
  async function keyOnPage(who: Joined, fields: Record<string, string>) {
    const res = await who.browser.post(
      "/page/keys",
      new URLSearchParams({ csrf: await who.browser.csrf(), ...fields }),
    );
    const html = await res.text();
    return { status: res.status, apiKey: /value="(mem_[^"]+)"/.exec(html)?.[1], html };
  }

  it("lets a member make keys up to their role's scope, owned by them, and an owner see and revoke every key", () =>
    withApp(
      async (app) => {
        const { apiKey: admin } = await makeTeam(app);
        const owner = await joinAs(app, admin, "owner", { name: "Olga" });
        const member = await joinAs(app, admin, "member", { name: "Mika" });
        const reader = await joinAs(app, admin, "reader", { name: "Rui" });
        const mikas = await keyOnPage(member, { name: "Mika agent", scope: "write", days: "30" });
        expect(mikas.status).toBe(200);
        expect(mikas.apiKey).toMatch(/^mem_/);
        // Above the role: refused, and nothing made.
        const tooMuch = await keyOnPage(member, { name: "Mika admin", scope: "admin", days: "" });
        expect(tooMuch.status).toBe(403);
        expect(tooMuch.apiKey).toBeUndefined();
        expect((await keyOnPage(reader, { name: "Rui writer", scope: "write", days: "" })).status).toBe(403);
        const ruis = await keyOnPage(reader, { name: "Rui display", scope: "read", days: "" });
        expect(ruis.apiKey).toMatch(/^mem_/);
        // The key works at its scope, and the list names its owner.
        const doc = await addDocument(app, mikas.apiKey ?? "", {
          title: "By agent",
          content: "Made by Mika agent.",
        });
        const listed = await expectOk(await app.request("/v1/keys", { token: admin }), 200, teamKeysAnswer);
        const mikasKey = listed.find((key) => key.name === "Mika agent");
        expect(mikasKey).toMatchObject({ scope: "write", owner: member.memberId });
        // Thirty days from when it was made (the test's clock ticks a millisecond a reading).
        const lifetime = Date.parse(mikasKey?.expiresAt ?? "") - Date.parse(mikasKey?.createdAt ?? "");
        expect(Math.abs(lifetime - 30 * 86_400_000)).toBeLessThan(1000);
        expect(listed.find((key) => key.name === "Rui display")?.owner).toBe(reader.memberId);
        // A member's page lists their own keys only; an owner's every key.
        const mikasPage = await (await member.browser.get("/page/keys")).text();
        expect(mikasPage).toContain("Mika agent");
        expect(mikasPage).not.toContain("Rui display");
        const ownersPage = await (await owner.browser.get("/page/keys")).text();
        expect(ownersPage).toContain("Mika agent");
        expect(ownersPage).toContain("Rui display");
        // A member cannot revoke another's key; an owner can.
        const ruisKey = listed.find((key) => key.name === "Rui display")?.keyId;
        const refused = await member.browser.post(
          `/page/keys/${ruisKey}/revoke`,
          new URLSearchParams({ csrf: await member.browser.csrf() }),
        );
        expect(refused.status).toBe(404);
        expect((await app.request("/v1/search?q=agent", { token: ruis.apiKey ?? "" })).status).toBe(200);
        const revoked = await owner.browser.post(
          `/page/keys/${ruisKey}/revoke`,
          new URLSearchParams({ csrf: await owner.browser.csrf() }),
        );
        expect(revoked.headers.get("location")).toBe("/page/keys?revoked=1");
        expect((await app.request("/v1/search?q=agent", { token: ruis.apiKey ?? "" })).status).toBe(401);
        const trail = await changesSinceMade(app, admin, "?limit=200");
        expect(trail.slice(0, 4).map((e) => `${e.who} ${e.action}`)).toEqual([
          "Olga key.revoked",
          "Mika agent document.created",
          "Rui key.made",
          "Mika key.made",
        ]);
        expect(doc.id).toBeTruthy();
      },
      { clock: tickingClock() },
    ));

  it("revokes a member's keys when they are removed, and those above their new role when it shrinks, at once", () =>
    withApp(async (app) => {
      const { apiKey: admin } = await makeTeam(app);
      const owner = await joinAs(app, admin, "owner");
      const member = await joinAs(app, admin, "member");
      const ownersAdmin = (await keyOnPage(owner, { name: "ops", scope: "admin", days: "" })).apiKey ?? "";
      const ownersRead = (await keyOnPage(owner, { name: "display", scope: "read", days: "" })).apiKey ?? "";
      const membersWrite =
        (await keyOnPage(member, { name: "agent", scope: "write", days: "" })).apiKey ?? "";
      // Each key checked once, so this instance holds it as live.
      for (const key of [ownersAdmin, ownersRead, membersWrite])
        expect((await app.request("/v1/stats", { token: key })).status).toBe(200);
      await joinAs(app, admin, "owner");
      await expectNoContent(
        await app.request(`/v1/members/${owner.memberId}`, {
          method: "PATCH",
          token: admin,
          json: { role: "reader" },
        }),
      );
      expect((await app.request("/v1/stats", { token: ownersAdmin })).status).toBe(401);
      expect((await app.request("/v1/stats", { token: ownersRead })).status).toBe(200);
      // Checked again since, so held as live once more when its member is removed.
      expect((await app.request("/v1/stats", { token: membersWrite })).status).toBe(200);
      await expectNoContent(
        await app.request(`/v1/members/${member.memberId}`, { method: "DELETE", token: admin }),
      );
      expect((await app.request("/v1/stats", { token: membersWrite })).status).toBe(401);
      expect((await app.request("/v1/stats", { token: admin })).status).toBe(200);
    }));
});
