// Title extraction: the first heading, else (HTML) <title>, else the file name without its extension.

import { describe, expect, it } from "vitest";
import { MAX_TITLE_CHARS, titleOf } from "../../src/cli/title.js";

describe("titleOf markdown", () => {
  const md = (content: string, name = "note.md") => titleOf(content, "markdown", name);

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
    expect(md("---\ntitle: x\n# yaml comment\n---\n# After front matter")).toBe("After front matter");
    expect(md("+++\ntitle = 'x'\n+++\nno heading", "toml.md")).toBe("toml");
    expect(md("#tag not a heading\n\ntext", "tagged.md")).toBe("tagged");
  });

  it("does not read front matter's closing --- as a setext underline", () => {
    expect(md("---\ntitle: x\n---\nbody only", "front.md")).toBe("front");
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
  const html = (content: string, name = "page.html") => titleOf(content, "html", name);

  it("takes the first <h1>–<h6> in document order", () => {
    expect(html("<html><head><title>Tab</title></head><body><h1>Main</h1><h1>Other</h1></body></html>")).toBe(
      "Main",
    );
    expect(html("<div><section><h2>Nested <em>first</em></h2></section><h1>Later</h1></div>")).toBe(
      "Nested first",
    );
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
    expect(titleOf("# looks like a heading\nbut is text", "text", "todo.txt")).toBe("todo");
  });
});
