// The hostile shapes of a note (issue: "real notes go in whole"): each is stored through the documents API
// and found by a word it holds, and what a page never shows (comments, scripts, styles) is not found.

import { describe, expect, it } from "vitest";
import { addDocument, buildTestApp, makeTeam, search } from "../support/app.js";

interface Shape {
  name: string;
  format: "markdown" | "html";
  content: string;
  /** A word of the visible text: the document must be found by it. */
  visible: string;
  /** Words only in markup that renders nothing: the document must not be found by them. */
  hidden?: string[];
}

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join("");

const shapes: Shape[] = [
  {
    name: "an HTML comment on a line of its own",
    format: "markdown",
    content: "# A\n\n<!-- commentword -->\n\nafter the comment, lanternword\n",
    visible: "lanternword",
    hidden: ["commentword"],
  },
  {
    name: "a raw HTML block with text",
    format: "markdown",
    content: '<p align="center">\n  <b>badgerword</b> inside a block\n</p>\n\ntext after\n',
    visible: "badgerword",
  },
  {
    name: "HTML inline in a paragraph",
    format: "markdown",
    content: "before <span>falconword</span> after <kbd>Ctrl</kbd>\n",
    visible: "falconword",
  },
  {
    name: "lists nested 2,000 deep",
    format: "markdown",
    content: `${repeat(2000, (i) => `${"  ".repeat(i)}- item\n`)}${"  ".repeat(2000)}- gopherword\n`,
    visible: "gopherword",
  },
  {
    name: "blockquotes 5,000 deep",
    format: "markdown",
    content: `${">".repeat(5000)} heronword\n`,
    visible: "heronword",
  },
  {
    name: "divs and sections 5,000 deep",
    format: "html",
    content: `${repeat(2500, () => "<div><section>")}ibexword${repeat(2500, () => "</section></div>")}`,
    visible: "ibexword",
  },
  {
    name: "10,000 headings",
    format: "markdown",
    content: `${repeat(10_000, (i) => `## Heading ${i}\n\nline ${i}\n\n`)}## Last\n\njackalword\n`,
    visible: "jackalword",
  },
  {
    name: "one 400 KB line",
    format: "markdown",
    content: `${"word ".repeat(80_000)}koalaword\n`,
    visible: "koalaword",
  },
  {
    name: "an unclosed code fence",
    format: "markdown",
    content: "# Setup\n\n```sh\nnpm run lemurword\nno closing fence\n",
    visible: "lemurword",
  },
  {
    name: "link-reference soup",
    format: "markdown",
    content: `${repeat(2000, (i) => `[r${i}]: https://example.com/${i} "t${i}"\n`)}\n[mooseword][r1] and [r2] and [[[nested]]]\n`,
    visible: "mooseword",
  },
  {
    name: "a huge table",
    format: "markdown",
    content: `| a | b |\n|---|---|\n${repeat(20_000, (i) => `| ${i} | cell |\n`)}| narwhalword | end |\n`,
    visible: "narwhalword",
  },
  {
    name: "script and style",
    format: "html",
    content:
      "<html><head><style>.x { color: red } styleword</style></head><body><script>var scriptword = 1;</script><p>ocelotword</p></body></html>",
    visible: "ocelotword",
    hidden: ["scriptword", "styleword"],
  },
  {
    name: "HTML definition lists, details, pre and tables",
    format: "html",
    content:
      "<h2>Terms</h2><dl><dt>pumaword</dt><dd>a cat</dd></dl><details><summary>quailword</summary>more ravenword</details><pre><code>salmonword()</code></pre><table><tr><td>tapirword</td></tr></table>",
    visible: "tapirword",
  },
];

describe("hostile notes", () => {
  it.each(shapes)("$name is stored and found by a word it holds", async (shape) => {
    const app = await buildTestApp();
    try {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, {
        title: "Hostile",
        content: shape.content,
        format: shape.format,
      });
      expect(doc.chunks).toBeGreaterThan(0);
      const hits = (await search(app, apiKey, shape.visible)).hits;
      expect(hits.map((h) => h.documentId)).toContain(doc.id);
      for (const word of shape.hidden ?? []) {
        expect((await search(app, apiKey, word)).hits, word).toEqual([]);
      }
    } finally {
      app.close();
    }
  });

  it("keeps every word of an HTML definition list, details, pre and table", async () => {
    const app = await buildTestApp();
    try {
      const { apiKey } = await makeTeam(app);
      const shape = shapes.at(-1) as Shape;
      const doc = await addDocument(app, apiKey, { title: "Tags", content: shape.content, format: "html" });
      for (const word of ["pumaword", "quailword", "ravenword", "salmonword", "tapirword"]) {
        const hits = (await search(app, apiKey, word)).hits;
        expect(
          hits.map((h) => h.documentId),
          word,
        ).toContain(doc.id);
      }
      // The heading reaches the heading trail.
      expect((await search(app, apiKey, "pumaword")).hits[0]?.heading).toBe("Terms");
    } finally {
      app.close();
    }
  });
});
