// Titles in the documented order (request, front matter, first real heading, file name), generic headings
// joined with what they belong to, and badge rows that are neither passages nor headings — on the READMEs
// and CHANGELOGs of node_modules (read at test time) and on synthetic cases beside them.

import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { contentTitle, isGenericTitle, titleOf, withOwner } from "../../src/ingest/document-title.js";
import { loadFrontMatterParsers } from "../../src/ingest/front-matter-parsers.js";

const parsers = await loadFrontMatterParsers();

describe("generic first headings", () => {
  it.each([
    ["Changelog", "CHANGELOG.md", ["promise-limit"], "Changelog — promise-limit"],
    ["Installation", "README.md", ["@types", "node"], "Installation — @types/node"],
    ["6.17.1", "CHANGELOG.md", ["qs"], "Changelog — qs"],
    ["v2.0.0", "HISTORY.md", ["pkg"], "History — pkg"],
    ["[1.2.0] - 2024-01-05", "notes.md", ["pkg"], "[1.2.0] - 2024-01-05 — notes"],
    ["Overview", "Overview.md", ["Projects", "Apollo"], "Overview — Apollo"],
    ["Introduction", "index.md", ["docs", "getting-started"], "Introduction — getting-started"],
    ["Overview", "deploy-notes.md", [], "Overview — deploy-notes"],
    ["Changelog", "CHANGELOG.md", [], "Changelog"],
    ["Changelog: openapi3-ts", "Changelog.md", ["openapi3-ts"], "Changelog: openapi3-ts"],
    ["Changelog — promise-limit", "CHANGELOG.md", ["promise-limit"], "Changelog — promise-limit"],
    ["Quokka notes", "README.md", ["pkg"], "Quokka notes"],
  ])("%j in %s under %j is %j", (heading, fileName, path, title) => {
    expect(withOwner(heading, { fileName, path })).toBe(title);
  });

  it("takes the import's folder for a file at its root", () => {
    expect(
      titleOf("# Changelog\n\n## 1.0.0", "markdown", "CHANGELOG.md", parsers, {
        path: [],
        folder: "promise-limit",
      }),
    ).toBe("Changelog — promise-limit");
    expect(titleOf("no heading", "markdown", "README.md", parsers, { path: [], folder: "kit" })).toBe(
      "README — kit",
    );
  });

  it("follows the order: front matter title, first real heading, file name", () => {
    expect(contentTitle("---\ntitle: Front\n---\n# Heading", "markdown", parsers)).toBe("Front");
    expect(contentTitle("---\ntags: [a]\n---\n# Heading", "markdown", parsers)).toBe("Heading");
    expect(contentTitle("+++\ntitle = 'Toml'\n+++\n# Heading", "markdown", parsers)).toBe("Toml");
    expect(contentTitle("no heading", "markdown", parsers)).toBe("");
    expect(titleOf("no heading", "markdown", "My note.md", parsers)).toBe("My note");
    expect(
      titleOf(
        "# [![npm](https://img.shields.io/npm/v/x.svg)](https://npm.im/x)\n\nx",
        "markdown",
        "x.md",
        parsers,
      ),
    ).toBe("x");
  });
});

describe("badges", () => {
  const passages = (content: string) => chunkDocument({ title: "T", content, format: "markdown" });

  it("drops a row of badges, inline, by reference or in HTML, from the passages", () => {
    const rows = [
      "[![NPM Version](https://img.shields.io/npm/v/x.svg)](https://npm.im/x) [![NPM Downloads](https://img.shields.io/npm/dm/x.svg)](https://npm.im/x)",
      "[![Build][ci-image]][ci-url]\n[![Coverage Status][cov-image]][cov-url]\n\n[ci-image]: https://x/badge.svg\n[ci-url]: https://x\n[cov-image]: https://c/badge.svg\n[cov-url]: https://c",
      '<p align="center">\n  <a href="https://x"><img src="https://img.shields.io/badge/a-b-c" alt="Coverage Status"></a>\n  <img src="https://badgen.net/badge/x" alt="NPM Downloads">\n</p>',
    ];
    for (const row of rows) {
      const text = passages(`${row}\n\nThe body.`)
        .map((p) => `${p.heading} ${p.text}`)
        .join(" ");
      expect(text).not.toMatch(/NPM|Coverage|Build/);
      expect(text).toContain("The body.");
    }
  });

  it("takes badges out of heading trails, and a heading of badges only is no heading", () => {
    const readme =
      "promise-limit  [![npm version](https://img.shields.io/npm/v/promise-limit.svg)](https://npmjs.com) [![Build Status](https://travis-ci.org/x.svg)](https://travis-ci.org/x)\n===\n\nLimit calls.\n\n## [![npm](https://img.shields.io/npm/v/x.svg)](https://npm.im/x)\n\nAfter.";
    const got = passages(readme);
    // The badge-only heading starts no section: "After." stays in the section above it.
    expect(got.map((p) => [p.heading, p.text])).toEqual([["promise-limit", "Limit calls.\n\nAfter."]]);
  });

  it("keeps a plain image and an image inside prose", () => {
    const text = passages(
      "![Architecture diagram](arch.png)\n\nClick [![Run](https://x/badge.svg)](https://y) to run.",
    )
      .map((p) => p.text)
      .join("\n");
    expect(text).toContain("Architecture diagram");
    expect(text).toContain("Click Run to run.");
  });
});

// ---- the real READMEs and CHANGELOGs of node_modules ----

const NODE_MODULES = join(import.meta.dirname, "../../node_modules");

function readmesAndChangelogs(dir: string, seen = new Set<string>(), out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) readmesAndChangelogs(path, seen, out);
    else if (entry.isFile() && /^(readme|changelog)[^/]*\.(md|markdown)$/i.test(entry.name)) {
      const real = realpathSync(path);
      if (!seen.has(real) && statSync(path).size <= 1024 * 1024) {
        seen.add(real);
        out.push(path);
      }
    }
  }
  return out.sort();
}

const corpus = (() => {
  try {
    return readmesAndChangelogs(NODE_MODULES);
  } catch {
    return [];
  }
})();

describe(`the READMEs and CHANGELOGs of node_modules (${corpus.length} files)`, () => {
  // As `memoria import node_modules` titles them: path = the folders between the root and the file.
  const titles = corpus.map((file) => {
    const rel = relative(NODE_MODULES, file);
    const parts = rel.split("/");
    const title = titleOf(readFileSync(file, "utf8"), "markdown", parts.at(-1) ?? rel, parsers, {
      path: parts.slice(0, -1),
      folder: "node_modules",
    });
    return { rel, title };
  });

  it.skipIf(corpus.length === 0)("gives no file a title that says nothing (a generic heading alone)", () => {
    // Before generic headings were joined, 53 of 333 here were ("Changelog" 26×, "Installation" 13×, …).
    expect(titles.filter((t) => isGenericTitle(t.title)).map((t) => t.rel)).toEqual([]);
  });

  it.skipIf(corpus.length === 0)("titles known files as a person would", () => {
    const byPath = new Map(titles.map((t) => [t.rel, t.title]));
    const expected: [string, string][] = [
      ["promise-limit/README.md", "promise-limit"],
      ["gopd/CHANGELOG.md", "Changelog — gopd"],
      ["qs/CHANGELOG.md", "Changelog — qs"],
      ["@types/node/README.md", "Installation — @types/node"],
      ["zod/README.md", "Zod"],
      ["hono/README.md", "Hono"],
    ];
    for (const [path, title] of expected) {
      if (byPath.has(path)) expect(byPath.get(path), path).toBe(title);
    }
  });

  it.skipIf(corpus.length === 0)("keeps badges out of every heading trail", () => {
    const trails = new Set<string>();
    for (const file of corpus) {
      for (const p of chunkDocument({ title: "T", content: readFileSync(file, "utf8"), format: "markdown" }))
        trails.add(p.heading);
    }
    const withBadgeWords = [...trails].filter((t) =>
      /\b(?:npm version|Build Status|Coverage Status)\b/i.test(t),
    );
    expect(withBadgeWords).toEqual([]);
  });
});
