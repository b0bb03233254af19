// The page's side of the audit trail: each page action is recorded under the key its session signed in with,
// and an admin session reads the trail at /page/audit (a page at a time); no smaller key sees it.

import { afterEach, describe, expect, it } from "vitest";
import { tickingClock } from "../routes/contract.js";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { changesSinceMade } from "../support/audit.js";
import { packageReadmes } from "../support/export.js";
import { makeKey } from "../support/keys.js";
import { form, PageClient } from "./browser-client.js";

let app: TestApp | undefined;
afterEach(() => app?.close());

describe("the page: audit trail", () => {
  it("records each page action under the signed-in key, and shows the trail to an admin", async () => {
    app = await buildTestApp({ clock: tickingClock() });
    const { apiKey: owner } = await makeTeam(app);
    const laptop = await makeKey(app, owner, "admin", { name: "Ana's laptop" });
    const browser = new PageClient(app);
    expect((await browser.signIn(laptop.apiKey)).status).toBe(303);
    const csrf = await browser.csrf();
    const [readme] = packageReadmes(1);
    if (!readme) throw new Error("no README in node_modules");

    const added = await browser.post(
      "/page/notes",
      form({ csrf, title: readme.name, content: readme.content }),
    );
    expect(added.status).toBe(303);
    const docId = /\/page\/documents\/([a-z0-9]+)/.exec(added.headers.get("location") ?? "")?.[1] ?? "";
    expect((await browser.post("/page/entries", form({ csrf, title: "Ship on Fridays never" }))).status).toBe(
      303,
    );
    const entries = (await (await app.request("/v1/entries", { token: owner })).json()) as {
      entries: { id: string }[];
    };
    const entryId = entries.entries[0]?.id ?? "";
    expect((await browser.post(`/page/entries/${entryId}/forget`, form({ csrf }))).status).toBe(303);
    expect((await browser.post(`/page/documents/${docId}/delete`, form({ csrf }))).status).toBe(303);
    const exported = await browser.get("/page/export");
    await exported.text();
    expect(exported.status).toBe(200);

    const trail = await changesSinceMade(app, owner);
    expect(trail.slice(0, 5)).toEqual([
      { who: "Ana's laptop", action: "export", target: null },
      { who: "Ana's laptop", action: "document.deleted", target: `document ${docId}` },
      { who: "Ana's laptop", action: "entry.forgotten", target: `entry ${entryId}` },
      { who: "Ana's laptop", action: "entry.remembered", target: `entry ${entryId}` },
      { who: "Ana's laptop", action: "document.created", target: `document ${docId}` },
    ]);

    const start = await (await browser.get("/")).text();
    expect(start).toContain('href="/page/audit"');
    const page = await browser.get("/page/audit");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1>Audit trail</h1>");
    expect(html).toContain("Ana&#39;s laptop");
    expect(html).toContain(`deleted document <a href="/page/documents/${docId}">`);
    expect(html).toContain("exported the team");
    // Never the note's title or the entry's: ids only.
    expect(html).not.toContain("Ship on Fridays never");
    expect(html).not.toContain(`>${readme.name}<`);
  });

  it("pages the trail by its Older events link, and refuses a cursor it did not give", async () => {
    app = await buildTestApp({ clock: tickingClock() });
    const { apiKey: owner } = await makeTeam(app);
    const made: string[] = [];
    for (let i = 0; i < 55; i++) made.push((await makeKey(app, owner, "read", { name: `agent ${i}` })).keyId);
    const browser = new PageClient(app);
    await browser.signIn(owner);
    const first = await (await browser.get("/page/audit")).text();
    const older = /href="(\/page\/audit\?cursor=[^"]+)"/.exec(first)?.[1];
    expect(older).toBeTruthy();
    const second = await (await browser.get((older ?? "").replaceAll("&amp;", "&"))).text();
    const ids = (html: string) => [...html.matchAll(/made key <code>(k[a-z0-9]+)<\/code>/g)].map((m) => m[1]);
    const keys = (await (await app.request("/v1/keys", { token: owner })).json()) as { keyId: string }[];
    const firstKey = keys[0]?.keyId ?? "";
    // The team's first key, made by the admin token, is the oldest event.
    expect(second).toContain(`the admin token</span></td><td>made key <code>${firstKey}</code>`);
    expect([...ids(first), ...ids(second)]).toEqual([...[...made].reverse(), firstKey]);
    expect(second).not.toContain("Older events");
    const bad = await browser.get("/page/audit?cursor=notacursor");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("This page of the audit trail is not one the page linked to.");
  });

  it("is not shown to a key below admin", async () => {
    app = await buildTestApp({ clock: tickingClock() });
    const { apiKey: owner } = await makeTeam(app);
    for (const scope of ["read", "write"] as const) {
      const browser = new PageClient(app);
      await browser.signIn((await makeKey(app, owner, scope)).apiKey);
      expect(await (await browser.get("/")).text()).not.toContain('href="/page/audit"');
      const res = await browser.get("/page/audit");
      expect(res.status).toBe(403);
      expect(await res.text()).toContain(
        `This needs a team key with the admin scope; the key you signed in with has the ${scope} scope.`,
      );
    }
  });
});
