// HTML keeps the text a reader sees, in passages, and drops what a reader never sees.

import { describe, expect, it } from "vitest";
import { chunkDocument, type Passage } from "../../src/ingest/chunk.js";

const html = (content: string, title = "t"): Passage[] => chunkDocument({ title, content, format: "html" });
const md = (content: string, title = "t"): Passage[] => chunkDocument({ title, content, format: "markdown" });
const pairs = (passages: Passage[]) => passages.map(({ heading, text }) => [heading, text]);

describe("HTML documents", () => {
  it("reads h1–h6 as headings that feed the trail", () => {
    const content = "<h1>Guide</h1><p>g</p><h2>Setup</h2><p>s</p><h4>Linux</h4><p>l</p><h2>Use</h2><p>u</p>";
    expect(pairs(html(content))).toEqual([
      ["Guide", "g"],
      ["Guide › Setup", "s"],
      ["Guide › Setup › Linux", "l"],
      ["Guide › Use", "u"],
    ]);
  });

  it("keeps definition lists, one term or definition a line", () => {
    expect(
      html(
        "<dl><dt>Latency</dt><dd>Time to answer.</dd><dt>Throughput</dt><dd>Answers per second.</dd></dl>",
      )[0]?.text,
    ).toBe("Latency\nTime to answer.\nThroughput\nAnswers per second.");
  });

  it("keeps tables, one row a line and cells joined by |", () => {
    const content =
      "<table><thead><tr><th>Name</th><th>Role</th></tr></thead><tbody><tr><td>Ada</td><td><b>Eng</b></td></tr></tbody></table>";
    expect(html(content)[0]?.text).toBe("Name | Role\nAda | Eng");
  });

  it("keeps <details> and its <summary>", () => {
    expect(html("<details><summary>Why</summary><p>Because it is fast.</p></details>")[0]?.text).toBe(
      "Why\n\nBecause it is fast.",
    );
  });

  it("keeps <pre> and <code> verbatim, indentation included", () => {
    const content =
      "<p>Run <code>make</code> first.</p><pre><code>if (x) {\n  return &lt;y&gt;;\n}\n</code></pre>";
    expect(html(content)[0]?.text).toBe("Run make first.\n\nif (x) {\n  return <y>;\n}");
  });

  it("keeps nested lists as indented items", () => {
    expect(html("<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>")[0]?.text).toBe(
      "- one\n  - nested\n- two",
    );
  });

  it("keeps image alt text and decodes character references", () => {
    expect(html('<p>caf&eacute; &amp; <img src="x.png" alt="a chart"> &#x1F600;</p>')[0]?.text).toBe(
      "café & a chart 😀",
    );
  });

  it("drops comments, scripts, styles, templates and the <title>", () => {
    const content = `<html><head><title>hiddentitle</title><style>.hiddenstyle{}</style></head><body>
      <!-- hiddencomment --><p>shown</p><script>var hiddenscript = "</p>";</script>
      <template><p>hiddentemplate</p></template><noscript>alsoshown</noscript></body></html>`;
    const text = html(content)
      .map((passage) => passage.text)
      .join("\n");
    expect(text).toBe("shown\n\nalsoshown");
  });

  it("does not let an unclosed comment or tag swallow earlier text", () => {
    expect(html("<p>before</p><!-- never closed <p>after</p>")[0]?.text).toBe("before");
    expect(html('<p>before</p><a href="never closed')[0]?.text).toBe("before");
  });
});

describe("HTML inside markdown", () => {
  it("reads a centred README header: its <h1> is a section heading, its badges' alt text is kept", () => {
    const content = [
      '<p align="center">',
      '  <img src="logo.svg" alt="Zod logo" width="200">',
      '  <h1 align="center">Zod</h1>',
      "</p>",
      "",
      "Schema validation.",
      "",
      "## Install",
      "",
      "npm i zod",
    ].join("\n");
    expect(pairs(md(content))).toEqual([
      ["", "Zod logo"],
      ["Zod", "Schema validation."],
      ["Zod › Install", "npm i zod"],
    ]);
  });

  it("keeps markdown between <details> tags and the summary", () => {
    const content = "<details>\n<summary>More</summary>\n\nHidden **until** opened.\n\n</details>\n";
    expect(md(content)[0]?.text).toBe("More\n\nHidden until opened.");
  });

  it("drops comments and scripts on their own lines and inline", () => {
    const content =
      "<!-- a\n\nmultiline comment -->\n\n<script>\nvar x = 1;\n</script>\n\nText <!-- note --> and <span>more</span>.";
    expect(md(content)).toEqual([{ ordinal: 0, heading: "", text: "Text  and more." }]);
  });

  it("keeps HTML inside a list item as the item's text", () => {
    expect(md("- <b>bold</b> item\n- <div>block</div>\n")[0]?.text).toBe("- bold item\n- block");
  });
});
