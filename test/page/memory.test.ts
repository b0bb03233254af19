// The page's working-memory view (src/page/memory.tsx, remember-form.tsx): the team's recent entries, a form
// to remember one, Forget per entry (CSRF-checked posts), and an accounting that names the skipped entries.

import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { PageClient } from "./browser-client.js";

let app: TestApp;
afterEach(() => app?.close());

async function signedIn() {
  app = await buildTestApp();
  const { apiKey } = await makeTeam(app);
  const browser = new PageClient(app);
  expect((await browser.signIn(apiKey)).status).toBe(303);
  return { apiKey, browser };
}

async function entries(
  apiKey: string,
): Promise<
  { id: string; title: string; impact: string | null; project: string | null; type: string | null }[]
> {
  const res = await app.request("/v1/entries", { token: apiKey });
  return ((await res.json()) as { entries: [] }).entries;
}

describe("the page's working memory", () => {
  it("remembers an entry from the form and lists it, newest first, with Forget", async () => {
    const { apiKey, browser } = await signedIn();
    const csrf = await browser.csrf();
    const res = await browser.post(
      "/page/entries",
      new URLSearchParams({
        csrf,
        title: "Pin vitest to 4.1",
        impact: "5.x needs Node 22",
        project: "web",
        type: "decision",
      }),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/page/memory?remembered=1");
    const stored = await entries(apiKey);
    expect(stored.map((e) => [e.title, e.impact, e.project, e.type])).toEqual([
      ["Pin vitest to 4.1", "5.x needs Node 22", "web", "decision"],
    ]);
    const html = await (await browser.get("/page/memory?remembered=1")).text();
    expect(html).toContain("The entry was remembered.");
    expect(html).toContain("<strong>Pin vitest to 4.1</strong> — 5.x needs Node 22");
    expect(html).toContain(`action="/page/entries/${stored[0]?.id}/forget"`);
  });

  it("refuses a bad entry with the field named, keeps what was typed, and stores nothing", async () => {
    const { apiKey, browser } = await signedIn();
    const csrf = await browser.csrf();
    const res = await browser.post(
      "/page/entries",
      new URLSearchParams({ csrf, title: "Kept title", impact: "", project: "not a label!", type: "" }),
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/role="alert">project: must be 1–64 characters/);
    expect(html).toContain('value="Kept title"');
    expect(await entries(apiKey)).toEqual([]);
    const blank = await browser.post("/page/entries", new URLSearchParams({ csrf, title: "  " }));
    expect(blank.status).toBe(400);
    expect(await entries(apiKey)).toEqual([]);
  });

  it("forgets an entry on its Forget button, and refuses a forget without the CSRF token", async () => {
    const { apiKey, browser } = await signedIn();
    const made = await app.request("/v1/entries", {
      method: "POST",
      token: apiKey,
      json: { title: "Old rule" },
    });
    const { entry } = (await made.json()) as { entry: { id: string } };
    const path = `/page/entries/${entry.id}/forget`;
    expect((await browser.post(path, new URLSearchParams({}))).status).toBe(403);
    expect((await entries(apiKey)).length).toBe(1);
    const csrf = await browser.csrf();
    const res = await browser.post(path, new URLSearchParams({ csrf }));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/page/memory?forgot=1");
    expect(await entries(apiKey)).toEqual([]);
    expect((await browser.post(path, new URLSearchParams({ csrf }))).status).toBe(404);
  });

  it("names the entries the budget skipped, in rank order, and the API's answer keeps its shape", async () => {
    const { apiKey, browser } = await signedIn();
    for (const title of ["First rule", "Second rule", "A much longer third rule that costs more tokens"]) {
      const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json: { title } });
      expect(res.status).toBe(201);
    }
    const api = await app.request("/v1/memory?budget=20", { token: apiKey });
    const answer = (await api.json()) as Record<string, unknown> & { included: number; skipped: number };
    expect(Object.keys(answer).sort()).toEqual(
      [
        "budget",
        "candidates",
        "estimatedTokens",
        "included",
        "items",
        "project",
        "query",
        "skipped",
        "text",
      ].sort(),
    );
    expect(answer.skipped).toBeGreaterThan(0);

    const html = await (await browser.get("/page/memory?budget=20&ask=1")).text();
    const skipped = /<ul class="skipped">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? "";
    const named = [
      ...skipped.matchAll(
        /<li>([^<]+?) <span class="dates">rank (\d+) · <code>(e[^<]+)<\/code><\/span><\/li>/g,
      ),
    ].map((m) => [m[1], m[2], m[3]]);
    expect(named.length).toBe(answer.skipped);
    const ranks = named.map((m) => Number(m[1]));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const included = new Set((answer.items as { id: string }[]).map((i) => i.id));
    for (const [title, , id] of named) {
      expect(included.has(id ?? "")).toBe(false);
      expect(["First rule", "Second rule", "A much longer third rule that costs more tokens"]).toContain(
        title,
      );
    }
  });
});
