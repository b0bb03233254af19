// A vault of notes as Obsidian, Hugo, Jekyll and Docusaurus write them (test/fixtures/vault), sent by
// `memoria import` to a real server on loopback and searched over HTTP: titles in the documented order, front
// matter tags listed and searchable, other keys not indexed, and no wiki or front matter syntax in any hit.

import { cpSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, summaryOf, withServer } from "./harness.js";

const VAULT = join(import.meta.dirname, "../fixtures/vault");

interface Hit {
  documentId: string;
  title: string;
  heading: string;
  snippet: string;
}

interface Listed {
  id: string;
  title: string;
  tags: string[];
  externalId?: string;
}

async function searchHttp(url: string, apiKey: string, q: string, limit = 100): Promise<Hit[]> {
  const res = await fetch(`${url}/v1/search?${new URLSearchParams({ q, limit: String(limit) })}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { hits: Hit[] }).hits;
}

async function listHttp(url: string, apiKey: string): Promise<Listed[]> {
  const res = await fetch(`${url}/v1/documents?limit=200`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { documents: Listed[] }).documents;
}

describe("a vault sent by memoria import", () => {
  it("is titled, tagged and searched as its tools show it", () =>
    withServer(async (s) => {
      cpSync(VAULT, s.folder, { recursive: true });
      const run = await runCli(["import", s.folder, "--url", s.url, "--key", s.apiKey]);
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run.stdout)).toMatchObject({ sent: 12, failed: 0 });

      const documents = await listHttp(s.url, s.apiKey);
      const byFile = (path: string) => {
        const doc = documents.find((d) => d.externalId?.endsWith(path));
        if (!doc) throw new Error(`no document for ${path}`);
        return doc;
      };
      const expected: [string, string, string[]][] = [
        [
          "obsidian/Runbooks/Failover.md",
          "Database failover",
          ["database", "ops", "DB failover", "Switchover"],
        ],
        ["obsidian/Runbooks/Backups.md", "Nightly backups", ["backups", "ops", "Nightly backups"]],
        ["obsidian/Daily/2024-03-01.md", "2024-03-01", ["daily"]],
        ["obsidian/Projects/Apollo/Overview.md", "Overview — Apollo", []],
        ["obsidian/Inbox/broken.md", "Broken front matter still goes in", []],
        [
          "hugo/content/posts/release-2-0.md",
          "Release 2.0",
          ["release", "platypus", "upgrade guide", "announcements"],
        ],
        ["hugo/content/docs/_index.md", "Documentation", ["manual", "reference"]],
        ["hugo/content/docs/install.md", "Installation — docs", []],
        [
          "jekyll/_posts/2024-01-15-welcome-to-jekyll.markdown",
          "Welcome to Jekyll!",
          ["intro", "echidna", "jekyll", "update"],
        ],
        [
          "docusaurus/docs/intro.md",
          "Tutorial Intro",
          ["Getting started", "onboarding", "docusaurus", "tutorial"],
        ],
        ["docusaurus/docs/getting-started/index.md", "Introduction — getting-started", []],
        ["docusaurus/blog/2024-02-20-first-post.md", "First Blog Post", ["hello", "docusaurus"]],
      ];
      for (const [path, title, tags] of expected) {
        expect(byFile(path), path).toMatchObject({ title, tags });
      }

      // A word that is only a tag, an alias or a keyword finds its document, and only it.
      for (const [q, path] of [
        ["platypus", "hugo/content/posts/release-2-0.md"],
        ["echidna", "jekyll/_posts/2024-01-15-welcome-to-jekyll.markdown"],
        ["onboarding", "docusaurus/docs/intro.md"],
        ["Switchover", "obsidian/Runbooks/Failover.md"],
        ["upgrade guide", "hugo/content/posts/release-2-0.md"],
      ] as const) {
        const hits = await searchHttp(s.url, s.apiKey, q);
        expect(new Set(hits.map((h) => h.documentId)), q).toEqual(new Set([byFile(path).id]));
      }
      // Other keys of the front matter are not indexed.
      for (const q of [
        "Lovelace",
        "cssclasses",
        "bookCollapseSection",
        "permalink",
        "sidebar_position",
        "unclosed",
      ])
        expect(await searchHttp(s.url, s.apiKey, q), q).toEqual([]);

      // Every passage, reached through words spread over the whole vault: no syntax in a snippet or trail.
      const hits = await searchHttp(
        s.url,
        s.apiKey,
        "quokka narwhal axolotl wombat platypus kookaburra dingo echidna bilby wallaby dugong freeze primary " +
          "replica callout backups restore ledger milestones scheduler flag post directory needs stand nested",
      );
      expect(new Set(hits.map((h) => h.documentId)).size).toBe(12);
      for (const hit of hits) {
        const shown = `${hit.title}\n${hit.heading}\n${hit.snippet.replace(/<\/?mark>/g, "")}`;
        const outsideCode = ["[[keep this]]", "[[brackets]]", "[!note]", "[[not a link]]"].reduce(
          (text, code) => text.split(code).join(""),
          shown,
        );
        expect(outsideCode, hit.title).not.toMatch(/\[\[|\]\]|\[![A-Za-z]|^(?:---|\+\+\+)$/m);
        expect(outsideCode, hit.title).not.toMatch(/\b(?:title|tags|aliases|layout|draft)\s*[:=]/);
      }
    }));
});
