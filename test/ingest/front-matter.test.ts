// Front matter as note tools write it (YAML and TOML), what it gives a document (title, tags), what it never
// is (a passage), and hostile blocks: huge, alias bombs, deep nesting, unterminated, broken.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import {
  MAX_FRONT_MATTER_CHARS,
  MAX_TAG_CHARS,
  MAX_TAGS,
  readFrontMatter,
} from "../../src/ingest/front-matter.js";
import { loadFrontMatterParsers } from "../../src/ingest/front-matter-parsers.js";

const parsers = await loadFrontMatterParsers();
const read = (content: string) => readFrontMatter(content, parsers);
const vault = join(import.meta.dirname, "../fixtures/vault");
const fixture = (path: string) => readFileSync(join(vault, path), "utf8");
const passagesOf = (content: string) => chunkDocument({ title: "T", content, format: "markdown" });
const allText = (content: string) =>
  passagesOf(content)
    .map((p) => `${p.heading}\n${p.text}`)
    .join("\n");

describe("front matter as the tools write it", () => {
  it.each([
    ["obsidian/Runbooks/Failover.md", "Database failover", ["database", "ops", "DB failover", "Switchover"]],
    ["obsidian/Runbooks/Backups.md", null, ["backups", "ops", "Nightly backups"]],
    ["obsidian/Daily/2024-03-01.md", null, ["daily"]],
    [
      "hugo/content/posts/release-2-0.md",
      "Release 2.0",
      ["release", "platypus", "upgrade guide", "announcements"],
    ],
    ["hugo/content/docs/_index.md", "Documentation", ["manual", "reference"]],
    ["hugo/content/docs/install.md", null, []],
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
    ["docusaurus/blog/2024-02-20-first-post.md", "First Blog Post", ["hello", "docusaurus"]],
  ])("%s: title %s, tags %j", (path, title, tags) => {
    const front = read(fixture(path));
    expect(front.title).toBe(title);
    expect(front.tags).toEqual(tags);
    expect(front.end).toBeGreaterThan(0);
  });

  it("is never a passage, and no key of it is indexed", () => {
    for (const path of [
      "obsidian/Runbooks/Failover.md",
      "hugo/content/posts/release-2-0.md",
      "jekyll/_posts/2024-01-15-welcome-to-jekyll.markdown",
      "docusaurus/docs/intro.md",
    ]) {
      const text = allText(fixture(path));
      for (const leaked of [
        "cssclasses",
        "sidebar_position",
        "permalink",
        "Lovelace",
        "layout:",
        "draft",
        "+++",
      ])
        expect(text, `${path}: ${leaked}`).not.toContain(leaked);
      expect(text).not.toMatch(/^---$/m);
    }
  });

  it("skips a YAML block that does not parse but opens with a key, keeping the text after it", () => {
    const content = fixture("obsidian/Inbox/broken.md");
    const front = read(content);
    expect(front).toMatchObject({ title: null, tags: [] });
    expect(front.end).toBeGreaterThan(0);
    const text = allText(content);
    expect(text).toContain("wombat");
    expect(text).not.toContain("unclosed");
  });

  it("reads Windows line endings, a byte-order mark, an empty block and YAML's `...` closer", () => {
    expect(read("---\r\ntitle: CRLF\r\ntags: [a]\r\n---\r\nbody").title).toBe("CRLF");
    expect(read("\uFEFF---\ntitle: BOM\n---\nbody").title).toBe("BOM");
    expect(read("---\n---\nbody").end).toBe(8);
    expect(read("---\ntitle: Dots\n...\nbody").title).toBe("Dots");
  });

  it("reads tags as strings, lists, comma lists and #tags, each once, case-insensitively", () => {
    expect(read("---\ntags: a, b ,#c\n---\n").tags).toEqual(["a", "b", "c"]);
    expect(read("---\ntags: [A, a, b]\nkeywords: B\n---\n").tags).toEqual(["A", "b"]);
    expect(read("---\ntags: [1, true, {label: L}, {x: 1}, [nested]]\n---\n").tags).toEqual([
      "1",
      "true",
      "L",
    ]);
    expect(read("---\ntitle: 2024\n---\n").title).toBe("2024");
  });

  it("bounds tags in number and length", () => {
    const many = Array.from({ length: 500 }, (_, i) => `t${i}`).join(", ");
    expect(read(`---\ntags: [${many}]\n---\n`).tags).toHaveLength(MAX_TAGS);
    const long = read(`---\ntags: ["${"x".repeat(5000)}"]\n---\n`).tags;
    expect([...(long[0] ?? "")]).toHaveLength(MAX_TAG_CHARS);
  });

  it("leaves prose between two thematic breaks as text, and a document without front matter alone", () => {
    const prose = "---\n\nA paragraph between rules.\n\n---\n\nMore.";
    expect(read(prose)).toEqual({ end: 0, title: null, tags: [], text: null });
    expect(allText(prose)).toContain("A paragraph between rules.");
    expect(read("# Title\n\n---\ntitle: no\n---\n").end).toBe(0);
    expect(read("--- \ntitle: spaced\n---\n").title).toBe("spaced");
  });
});

describe("hostile front matter", () => {
  it("reads a 5 MiB block as plain text, not as front matter, without parsing it", () => {
    const block = `title: huge\n${"key: value quoll\n".repeat((5 * 1024 * 1024) / 17)}`;
    const content = `---\n${block}---\n\n# After\n\nbody`;
    expect(block.length).toBeGreaterThan(MAX_FRONT_MATTER_CHARS);
    const front = read(content);
    expect(front).toMatchObject({ title: null, tags: [], text: block.slice(0, -1) });
    expect(content.slice(front.end)).toBe("\n# After\n\nbody");
    const passages = passagesOf(content);
    expect(passages.some((p) => p.text.includes("quoll"))).toBe(true);
    // Read as plain text, not as a 5 MiB setext heading over the "---" that closes it.
    expect(passages.at(-1)).toMatchObject({ heading: "After", text: "body" });
  });

  it("refuses a YAML alias bomb (billion laughs) as broken, and the note still goes in", () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${prev}`).join(",")}]`);
    }
    const content = `---\ntitle: bomb\n${levels.join("\n")}\n---\n\nThe bomb note.`;
    const front = read(content);
    expect(front).toMatchObject({ title: null, tags: [] });
    expect(allText(content)).toContain("The bomb note.");
    expect(allText(content)).not.toContain("lol");
  });

  it("takes a block nested as deep as the bound allows, in YAML and in TOML, without throwing", () => {
    const depth = Math.floor(MAX_FRONT_MATTER_CHARS / 2) - 16;
    const yaml = `---\ntags: ${"[".repeat(depth)}${"]".repeat(depth)}\n---\nbody`;
    expect(() => read(yaml)).not.toThrow();
    const toml = `+++\ntags = ${"[".repeat(depth)}${"]".repeat(depth)}\n+++\nbody`;
    expect(() => read(toml)).not.toThrow();
    expect(read(toml).end).toBeGreaterThan(0);
    const indented = `---\n${Array.from({ length: 2000 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n")}\n---\nbody`;
    expect(() => read(indented)).not.toThrow();
    expect(allText(indented)).toContain("body");
  });

  it("reads an unterminated block as the document's text", () => {
    const content = "---\ntitle: never closed\ntags: [x]\n\n# Heading\n\nwords";
    expect(read(content).end).toBe(0);
    expect(allText(content)).toContain("words");
    const huge = `---\ntitle: open\n${"x: y\n".repeat(1_000_000)}`;
    expect(read(huge).end).toBe(0);
  });

  it("quotes nothing of a broken block anywhere: the parser's warnings are silenced", () => {
    const warnings: string[] = [];
    const original = process.emitWarning;
    process.emitWarning = ((warning: string | Error) => {
      warnings.push(String(warning));
    }) as typeof process.emitWarning;
    try {
      read("---\ntitle: secretword\n%YAML 9.9\nkey: [\n---\n");
      read("---\n!!unknown secretword\n---\n");
    } finally {
      process.emitWarning = original;
    }
    expect(warnings.filter((w) => w.includes("secretword"))).toEqual([]);
  });
});
