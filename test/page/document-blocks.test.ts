// The document view's passages: every passage the chunker cuts has an element `#p{ordinal}` in the view, and
// that element's section holds the passage's words — on documents nobody here wrote (the READMEs of the
// project's dependencies, Debian's Sphinx and Doxygen HTML) and on small synthetic ones. Code is shown as
// <pre><code>, lists as lists, and a first heading that repeats the title is not shown twice.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { decodeEntities } from "../../src/ingest/entities.js";
import type { DocumentFormat } from "../../src/ingest/formats.js";
import { documentBlocks } from "../../src/page/document-blocks.js";
import { DocumentBody } from "../../src/page/document-body.js";
import { needs, outside } from "../support/outside.js";

/** Enough real files to meet lists, code, tables, HTML blocks and long sections; few enough to stay quick. */
const MAX_FILES = 120;
const MAX_BYTES = 256 * 1024;

/** Files whose name matches, in sorted order, sampled evenly down to MAX_FILES, from a bounded walk. */
function sample(root: string, name: RegExp, depth: number): string[] {
  const found: string[] = [];
  const walk = (dir: string, left: number) => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry);
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory() && left > 0) walk(path, left - 1);
      else if (stat.isFile() && name.test(entry) && stat.size > 0 && stat.size <= MAX_BYTES) found.push(path);
    }
  };
  if (existsSync(root)) walk(root, depth);
  if (found.length <= MAX_FILES) return found;
  const step = found.length / MAX_FILES;
  return Array.from({ length: MAX_FILES }, (_, i) => found[Math.floor(i * step)] as string);
}

function rendered(doc: { title: string; content: string; format: DocumentFormat }): string {
  return String(DocumentBody(doc));
}

/** The words of a piece of text or HTML, lower-cased: markers, punctuation and tags dropped. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function htmlWords(html: string): string[] {
  return words(decodeEntities(html.replace(/<[^>]*>/g, " ")));
}

function containsRun(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0) return true;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * For each passage: its `id="p{n}"` is inside a passage <section>, and the passage's first words follow it
 * there (a section's own id, or an anchor just before the long block a passage starts inside). Returns the problems,
 * so a failure names the file and the passage.
 */
function anchorProblems(doc: { title: string; content: string; format: DocumentFormat }): string[] {
  const html = rendered(doc);
  const sections = [...html.matchAll(/<section(?: id="p\d+")? class="passage">([\s\S]*?)<\/section>/g)];
  const problems: string[] = [];
  const ids = new Map([...html.matchAll(/id="p(\d+)"/g)].map((m) => [Number(m[1]), m.index ?? 0]));
  for (const passage of chunkDocument(doc)) {
    const at = ids.get(passage.ordinal);
    if (at === undefined) {
      problems.push(`p${passage.ordinal}: no element`);
      continue;
    }
    // The last section starting at or before the id (sections are in order and do not nest).
    let lo = 0;
    let hi = sections.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if ((sections[mid]?.index ?? 0) <= at) lo = mid;
      else hi = mid - 1;
    }
    const candidate = sections[lo];
    const section =
      candidate && (candidate.index ?? 0) <= at && at < (candidate.index ?? 0) + candidate[0].length
        ? candidate
        : undefined;
    if (!section) {
      problems.push(`p${passage.ordinal}: not inside a passage section`);
      continue;
    }
    // What a reader sees from the anchor down to the end of its section: the passage starts there.
    const below = html.slice(at, (section.index ?? 0) + section[0].length);
    const opening = words(passage.text).slice(0, 6);
    if (!containsRun(htmlWords(below), opening))
      problems.push(`p${passage.ordinal}: its section lacks "${opening.join(" ")}"`);
  }
  return problems;
}

const readmes = sample(join(import.meta.dirname, "../../node_modules"), /^readme\.md$/i, 2);
const debianHtml = [
  ...sample("/usr/share/doc/python-django-doc/html/topics", /\.html$/, 2),
  ...sample("/usr/share/doc/libsdl2-doc", /\.html$/, 3),
];

describe("the document view's passage anchors", () => {
  it(`holds every passage in its #p{ordinal} section (${readmes.length} READMEs under node_modules)`, (ctx) => {
    if (readmes.length === 0) ctx.skip("no READMEs under node_modules");
    const problems: string[] = [];
    for (const file of readmes) {
      const content = readFileSync(file, "utf8");
      for (const p of anchorProblems({ title: "README", content, format: "markdown" }))
        problems.push(`${file}: ${p}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  needs(outside.djangoManual, outside.sdlManual).it(
    `holds every passage in its #p{ordinal} section (${debianHtml.length} HTML pages under /usr/share/doc)`,
    () => {
      const problems: string[] = [];
      for (const file of debianHtml) {
        const content = readFileSync(file, "utf8");
        for (const p of anchorProblems({ title: "Page", content, format: "html" }))
          problems.push(`${file}: ${p}`);
      }
      expect(problems).toEqual([]);
    },
    120_000,
  );

  it("anchors every passage of a document of several megabytes", () => {
    const sections = Array.from(
      { length: 1500 },
      (_, i) => `## Section ${i}\n\n${`Paragraph ${i} of the quarry survey, measured twice. `.repeat(40)}`,
    );
    const content = `# Survey\n\n${sections.join("\n\n")}`;
    expect(content.length).toBeGreaterThan(3_000_000);
    expect(anchorProblems({ title: "Survey", content, format: "markdown" })).toEqual([]);
  }, 60_000);

  it("anchors every passage of a section cut across several, and of text notes", () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} about the harbour wall.`).join(
      " ",
    );
    const markdown = `# Notes\n\n## Long\n\n${long}\n\n${long}\n\n## Short\n\nThe end.`;
    expect(chunkDocument({ title: "Notes", content: markdown, format: "markdown" }).length).toBeGreaterThan(
      2,
    );
    expect(anchorProblems({ title: "Notes", content: markdown, format: "markdown" })).toEqual([]);
    const text = `${long}\n\n${long}\n\nThe end.`;
    expect(anchorProblems({ title: "Plain", content: text, format: "text" })).toEqual([]);
    expect(anchorProblems({ title: "Empty", content: "", format: "markdown" })).toEqual([]);
  });
});

describe("the document view's blocks", () => {
  it("shows code as <pre><code>, lists as lists, and a first heading equal to the title not again", () => {
    const content = [
      "# Deploy",
      "",
      "Run this:",
      "",
      "```sh",
      "npm ci",
      "  npm start <port>",
      "```",
      "",
      "- one",
      "- two",
      "  - nested",
      "",
      "Then:",
      "",
      "    indented code",
      "",
      "## After",
    ].join("\n");
    const html = rendered({ title: "Deploy", content, format: "markdown" });
    expect(html).not.toContain("<h2>Deploy</h2>");
    expect(html).toContain("<pre><code>npm ci\n  npm start &lt;port&gt;</code></pre>");
    expect(html).toContain("<pre><code>indented code</code></pre>");
    expect(html).toMatch(/<ul><li>one<\/li><li>two<ul><li>nested<\/li><\/ul><\/li><\/ul>/);
    expect(html).toContain("<h3>After</h3>");
    const kinds = documentBlocks({ title: "Deploy", content, format: "markdown" }).blocks.map((b) => b.kind);
    expect(kinds).toEqual(["heading", "text", "code", "list", "text", "code", "heading"]);
  });

  it("shows an HTML page's <pre> as code and keeps a heading that differs from the title", () => {
    const content =
      "<h1>Guide</h1><p>Intro.</p><pre>let x = 1;\n  x += 2;</pre><ul><li>a</li><li>b</li></ul>";
    const html = rendered({ title: "Other title", content, format: "html" });
    expect(html).toContain("<h2>Guide</h2>");
    expect(html).toContain("<pre><code>let x = 1;\n  x += 2;</code></pre>");
    expect(html).toMatch(/<ul><li>a<\/li><li>b<\/li><\/ul>/);
  });

  it("renders hostile content as text", () => {
    const html = rendered({
      title: "x",
      content: "```\n<script>alert(1)</script>\n```\n\n- <img src=x onerror=alert(1)>",
      format: "markdown",
    });
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain("&lt;script&gt;");
  });
});
