// Title extraction: the first heading, else (HTML) <title>, else the file name without its extension.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { titleOf } from "../../src/ingest/document-title.js";
import { loadFrontMatterParsers } from "../../src/ingest/front-matter-parsers.js";
import { headingTitle, MAX_TITLE_CHARS } from "../../src/ingest/title.js";

const parsers = await loadFrontMatterParsers();

describe("titleOf markdown", () => {
  const md = (content: string, name = "note.md") => titleOf(content, "markdown", name, parsers);

  it("takes the first heading, whatever its level", () => {
    expect(md("# Handbook\n\ntext\n\n# Second")).toBe("Handbook");
    expect(md("intro\n\n### Deep first\n\n# Later top")).toBe("Deep first");
    expect(md("## Closed ATX ##\n")).toBe("Closed ATX");
  });

  it("reads setext headings too", () => {
    expect(md("Setext title\n============\n\nbody")).toBe("Setext title");
  });

  it("gives the heading's text without its markup, on one line", () => {
    expect(md("# **Bold** _and_ `code` [link](http://x) ![alt](i.png)")).toBe("Bold and code link alt");
    expect(md("#   spaced    out   \n")).toBe("spaced out");
  });

  it("ignores # lines that are not headings: code, front matter, #tags", () => {
    expect(md("```sh\n# a shell comment\n```\n\n# Real")).toBe("Real");
    expect(md("    # indented code\n\n# Real")).toBe("Real");
    expect(md("---\nlayout: post\n# yaml comment\n---\n# After front matter")).toBe("After front matter");
    expect(md("+++\ndraft = true\n+++\nno heading", "toml.md")).toBe("toml");
    expect(md("#tag not a heading\n\ntext", "tagged.md")).toBe("tagged");
  });

  it("does not read front matter's closing --- as a setext underline", () => {
    expect(md("---\nlayout: x\n---\nbody only", "front.md")).toBe("front");
  });

  it("skips a heading with no text", () => {
    expect(md("#\n\n##   \n\n## Named")).toBe("Named");
  });

  it("falls back to the file name without its extension", () => {
    expect(md("just text", "meeting-2025-01-05.md")).toBe("meeting-2025-01-05");
    expect(md("", "release.v2.markdown")).toBe("release.v2");
    expect(md("", "   .md")).toBe(".md");
  });

  it("cuts a long heading to the title limit in characters, not UTF-16 units", () => {
    const title = md(`# ${"🦘".repeat(600)}`);
    expect([...title]).toHaveLength(MAX_TITLE_CHARS);
    expect(title.endsWith("🦘")).toBe(true);
  });

  it("takes a byte-order mark in its stride", () => {
    expect(md("\uFEFF---\na: 1\n---\n# With BOM")).toBe("With BOM");
  });
});

describe("titleOf html", () => {
  const html = (content: string, name = "page.html") => titleOf(content, "html", name, parsers);

  it("takes the first <h1>, else the <title> without the site's name, else the first heading", () => {
    expect(html("<html><head><title>Tab</title></head><body><h1>Main</h1><h1>Other</h1></body></html>")).toBe(
      "Main",
    );
    expect(html("<div><section><h2>Nested <em>first</em></h2></section><h1>Later</h1></div>")).toBe("Later");
    expect(html("<title>Models — Django 3.2 documentation</title><h2>Fields</h2>")).toBe("Models");
    expect(html("<div><section><h2>Nested <em>first</em></h2></section></div>")).toBe("Nested first");
  });

  it("takes the main content's <h1>, not the site's or a sidebar's heading", () => {
    // Sphinx: the sidebar's headings come first in the HTML.
    expect(
      html(
        '<div class="sphinxsidebar" role="navigation"><h3>Previous topic</h3><h3>This Page</h3></div>' +
          '<div class="body" role="main"><h1>Sphinx FAQ<a class="headerlink" href="#faq">¶</a></h1></div>',
      ),
    ).toBe("Sphinx FAQ");
    // mdBook: the book's name is an <h1> in the menu bar; the keyboard-shortcuts popup is hidden.
    expect(
      html(
        '<div id="mdbook-help-container"><h2>Keyboard shortcuts</h2></div><div id="menu-bar">' +
          '<h1 class="menu-title">The Book</h1></div><main><h1 id="x"><a class="header" href="#x">Comments</a></h1></main>',
      ),
    ).toBe("Comments");
    // rustdoc: "Copy item path" is a button, "§" an anchor, the version and "Source" sit at the right.
    expect(
      html(
        '<nav class="sidebar"><h2 class="location">std1.95.0</h2></nav><main><h1>Struct <a href="#">Vec</a>' +
          '<button id="copy-path" title="Copy item path to clipboard">Copy item path</button></h1>' +
          '<span class="out-of-band"><a class="src" href="../src/x.rs">Source</a></span></main>',
      ),
    ).toBe("Struct Vec");
    // Doxygen: the title is a <div class="title">, not a heading.
    expect(
      html(
        '<meta name="generator" content="Doxygen 1.9.4"/><div id="top"><div id="projectname">SDL</div></div>' +
          '<div class="header"><div class="headertitle"><div class="title">SDL_audio.h File Reference</div></div></div>',
      ),
    ).toBe("SDL_audio.h File Reference");
  });

  it("falls back to <title>, then to the file name", () => {
    expect(html("<html><head><title>  The\n  tab </title></head><body><p>x</p></body></html>")).toBe(
      "The tab",
    );
    expect(html("<p>no heading</p>", "export.html")).toBe("export");
    expect(html("<h1>   </h1><p>x</p>", "blank.html")).toBe("blank");
  });

  it("does not take a heading out of a comment or a script", () => {
    expect(html("<!-- <h1>Commented</h1> --><script>'<h1>Script</h1>'</script><h3>Real</h3>")).toBe("Real");
  });
});

describe("titleOf text", () => {
  it("is always the file name: plain text has no headings", () => {
    expect(titleOf("# looks like a heading\nbut is text", "text", "todo.txt", parsers)).toBe("todo");
  });
});

describe("titles a person would give", () => {
  const md = (content: string, name = "README.md") => titleOf(content, "markdown", name, parsers);

  it("skips a heading made only of links, images or badges", () => {
    expect(md("### [Read the docs →](https://zod.dev/api)\n\n## What is Zod?")).toBe("What is Zod?");
    expect(md("# [![npm](https://img.shields.io/npm/v/x.svg)](https://npm.im/x)\n\n# Real")).toBe("Real");
    expect(md("## <a href='#top'>Back to top</a>\n\n## Usage")).toBe("Usage");
  });

  it("drops badges beside the name, inline or by reference", () => {
    expect(
      md(
        "# gopd <sup>[![Version Badge][npm-version-svg]][package-url]</sup>\n\n[npm-version-svg]: https://x/v.svg\n[package-url]: https://x",
      ),
    ).toBe("gopd");
    expect(
      md(
        "# sharp [![Build](https://github.com/x/badge.svg)](https://ci) ![npm](https://img.shields.io/npm/v/sharp)",
      ),
    ).toBe("sharp");
  });

  it("skips a table of contents", () => {
    expect(md("## Table of Contents\n\n- [a](#a)\n\n## Installation")).toBe("Installation");
    expect(md("# Contents\n\n# Guide")).toBe("Guide");
  });

  it("takes an HTML <h1> inside markdown's HTML blocks, without the icon beside it", () => {
    expect(
      md(
        '<p align="center">\n  <img src="logo.svg" alt="Zod logo">\n  <h1 align="center">Zod</h1>\n</p>\n\n## What is Zod?',
      ),
    ).toBe("Zod");
    expect(
      md('<h1 align="center">\n  <img alt="Fire logo" src="f.svg">\n  <br/>\n  Standard Schema\n</h1>'),
    ).toBe("Standard Schema");
  });

  it("names a README that opens with a logo and then prose by the logo's name", () => {
    const hono =
      '<div align="center">\n  <a href="https://hono.dev">\n    <img src="t.png" alt="Hono"/>\n  </a>\n</div>\n\n[![npm](https://img.shields.io/npm/v/hono)](https://npm.im/hono)\n\nHono is a small web framework.\n\n## Quick Start';
    expect(md(hono)).toBe("Hono");
    expect(
      md(
        '<a href="/"><img alt="Express Logo" src="e.svg"></a>\n\n**Fast web framework.**\n\n## Table of contents\n\n## Installation',
      ),
    ).toBe("Express");
    expect(
      md(
        '<h1 align="center"><img alt="fast-check logo" src="l.png"></h1>\n\nProperty based testing.\n\n## Getting started',
      ),
    ).toBe("fast-check");
  });

  it("keeps the first heading when the logo is followed by it, or when the alt text describes a picture", () => {
    expect(md('<img alt="Acme logo" src="a.png">\n\n# Acme Platform\n\ntext')).toBe("Acme Platform");
    expect(
      md(
        '<img alt="Shows the banner of Biome, with its logo and the phrase Toolchain of the web" src="b.png">\n\nBiome formats code.\n\n## Installation',
      ),
    ).toBe("Installation");
  });

  it("is the same for HTML documents", () => {
    const html = (content: string) => titleOf(content, "html", "page.html", parsers);
    expect(html('<h1><a href="/"><img src="logo.png" alt="logo"></a></h1><h2>Release notes</h2>')).toBe(
      "Release notes",
    );
    expect(html("<h2>Table of contents</h2><h2>Overview</h2>")).toBe("Overview");
  });
});

describe("headingTitle", () => {
  it("is the content's own title, or empty when it has none (so a caller can fall back)", () => {
    expect(headingTitle("# Handbook\n\ntext", "markdown")).toBe("Handbook");
    expect(headingTitle("just text", "markdown")).toBe("");
    expect(headingTitle("<p>no heading</p>", "html")).toBe("");
    expect(headingTitle("<title>Tab</title><p>x</p>", "html")).toBe("Tab");
    expect(headingTitle("# looks like a heading", "text")).toBe("");
  });
});

describe("real READMEs (read at test time; skipped where missing)", () => {
  const readme = (path: string): string | null => {
    const file = join(import.meta.dirname, "../../node_modules", path);
    return existsSync(file) ? readFileSync(file, "utf8") : null;
  };
  it.each([
    ["zod/README.md", "Zod"],
    ["hono/README.md", "Hono"],
    ["express/Readme.md", "Express"],
    ["fast-check/README.md", "fast-check"],
    ["@standard-schema/spec/README.md", "Standard Schema"],
    ["gopd/README.md", "gopd"],
    ["tsx/README.md", "tsx"],
  ])("titles %s as %s", (path, title) => {
    const content = readme(path);
    if (content === null) return;
    expect(titleOf(content, "markdown", path.slice(path.lastIndexOf("/") + 1), parsers)).toBe(title);
  });
});
