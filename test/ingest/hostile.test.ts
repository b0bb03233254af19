// Shapes of input that broke or stalled the old chunker, or could break a careless one: each must chunk,
// keep a word it holds, and (where it has some) keep hidden text out. Sizes are large enough that anything
// quadratic or recursive on depth would overflow the stack or run past the test timeout.

import { describe, expect, it } from "vitest";
import { chunkDocument, defaultChunkLimits } from "../../src/ingest/chunk.js";
import type { DocumentFormat } from "../../src/ingest/formats.js";
import { passageWords } from "./visible-words.js";

const chunk = (content: string, format: DocumentFormat = "markdown") =>
  chunkDocument({ title: "t", content, format });

function expectSound(
  content: string,
  format: DocumentFormat,
  present: string[],
  absent: string[] = [],
): void {
  const passages = chunk(content, format);
  expect(passages.length).toBeGreaterThan(0);
  for (const passage of passages) {
    expect([...passage.text].length).toBeLessThanOrEqual(defaultChunkLimits.maxPassageChars);
  }
  const words = passageWords(passages);
  for (const word of present) expect(words).toContain(word);
  for (const word of absent) expect(words).not.toContain(word);
}

const hostile: Array<{ name: string; content: string; present: string[]; absent?: string[] }> = [
  {
    name: "an HTML comment on its own line",
    content: "# A\n\n<!-- zqhidden -->\n\nkept\n",
    present: ["kept"],
    absent: ["zqhidden"],
  },
  {
    name: "an unclosed comment",
    content: "kept\n\n<!-- zqhidden\n\nzqhidden too",
    present: ["kept"],
    absent: ["zqhidden"],
  },
  {
    name: "script and style blocks",
    content: "<script>\nvar zqhidden = 1;\n</script>\n\n<style>\n.zqhidden { color: red }\n</style>\n\nkept",
    present: ["kept"],
    absent: ["zqhidden"],
  },
  {
    name: "lists nested 3000 deep",
    content: Array.from({ length: 3000 }, (_, i) => `${"  ".repeat(Math.min(i, 200))}- item${i}`).join("\n"),
    present: ["item0", "item199", "item2999"],
  },
  {
    name: "list markers 20,000 deep on one line",
    content: `${"- ".repeat(20_000)}deepmarker`,
    present: ["deepmarker"],
  },
  {
    name: "block quotes 20,000 deep",
    content: `${">".repeat(20_000)} deepquote\n${"> ".repeat(20_000)}deeper`,
    present: ["deepquote", "deeper"],
  },
  {
    name: "<div> 20,000 deep in markdown",
    content: `<div>\n${"<div>".repeat(20_000)}deepdiv${"</div>".repeat(20_000)}\n</div>`,
    present: ["deepdiv"],
  },
  {
    name: "10,000 headings",
    content: Array.from(
      { length: 10_000 },
      (_, i) => `${"#".repeat(1 + (i % 6))} heading${i}\n\nbody${i}`,
    ).join("\n\n"),
    present: ["heading0", "heading9999", "body9999"],
  },
  { name: "one 400 KB line", content: `start ${"word ".repeat(80_000)}end`, present: ["start", "end"] },
  {
    name: "a 400 KB heading",
    content: `# start ${"word ".repeat(80_000)}end\n\nbody`,
    present: ["start", "end", "body"],
  },
  {
    name: "an unclosed code fence",
    content: "```js\nconst inside = 1;\n# notaheading\n",
    present: ["inside", "notaheading"],
  },
  {
    name: "link-reference soup",
    content: `${"[a][b] [c](<d> 'e') ![f][] [g]: ".repeat(20_000)}\n\n[b]: /zqhidden`,
    present: ["a", "c", "f"],
    absent: ["zqhidden"],
  },
  {
    name: "unbalanced brackets",
    content: `${"[".repeat(100_000)}inner${"]".repeat(100_000)}`,
    present: ["inner"],
  },
  { name: "link tails that never close", content: `${"[a](b 'c ".repeat(40_000)}tail`, present: ["tail"] },
  { name: "parentheses in destinations", content: `${"[a](".repeat(50_000)}tail`, present: ["tail"] },
  { name: "backtick soup", content: `${"` `` ``` ".repeat(40_000)}tail`, present: ["tail"] },
  { name: "emphasis soup", content: `${"*_~".repeat(100_000)}tail`, present: ["tail"] },
  { name: "comment openers that never close", content: `${"a <!-- ".repeat(50_000)}tail`, present: ["tail"] },
  { name: "attribute quotes that never close", content: `${"x <a b='".repeat(50_000)}tail`, present: ["x"] },
  {
    name: "a huge table",
    content: `| a | b |\n| --- | --- |\n${Array.from({ length: 30_000 }, (_, i) => `| r${i} | s${i} |`).join("\n")}`,
    present: ["r0", "s29999"],
  },
  {
    name: "a delimiter row of 200,000 characters",
    content: `| a |\n|${"-".repeat(100_000)}${" ".repeat(100_000)}x`,
    present: ["a", "x"],
  },
  { name: "a heading with 200,000 spaces", content: `# a${" ".repeat(200_000)}b #`, present: ["a", "b"] },
  { name: "brackets with no space for a sentence cut", content: `a.${"]".repeat(300_000)}`, present: ["a"] },
];

describe("hostile markdown", () => {
  it.each(hostile)("chunks $name", ({ content, present, absent }) => {
    expectSound(content, "markdown", present, absent);
  });
});

describe("hostile HTML", () => {
  it.each([
    {
      name: "<div> 50,000 deep",
      content: `${"<div>".repeat(50_000)}deepdiv${"</div>".repeat(50_000)}`,
      present: ["deepdiv"],
    },
    {
      name: "<section> 50,000 deep, never closed",
      content: `${"<section><h2>s</h2>".repeat(50_000)}end`,
      present: ["s", "end"],
    },
    { name: "lists 20,000 deep", content: `${"<ul><li>".repeat(20_000)}deepitem`, present: ["deepitem"] },
    {
      name: "scripts, styles and comments",
      content: "<p>kept</p><script>zqhidden()</script><style>.zqhidden{}</style><!-- zqhidden --><p>also</p>",
      present: ["kept", "also"],
      absent: ["zqhidden"],
    },
    {
      name: "an unclosed script",
      content: "<p>kept</p><script>zqhidden",
      present: ["kept"],
      absent: ["zqhidden"],
    },
    {
      name: "a 400 KB text node",
      content: `<p>start ${"word ".repeat(80_000)}end</p>`,
      present: ["start", "end"],
    },
    { name: "100,000 stray <", content: `${"a < ".repeat(100_000)}tail`, present: ["a", "tail"] },
    {
      name: "a huge table",
      content: `<table>${"<tr><td>c</td><td>d</td></tr>".repeat(30_000)}</table>`,
      present: ["c", "d"],
    },
  ])("chunks $name", ({ content, present, absent }) => {
    expectSound(content, "html", present, absent);
  });
});
