// Properties over generated markdown and HTML: chunking never throws, always ends, keeps every visible word
// (code included) in some passage's heading trail or text, keeps hidden words (comments, scripts, styles,
// templates, link destinations) out, and respects the size cap. Visible words start with a–y; hidden words
// start with "zq", so neither can pass for the other.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkDocument, type Passage } from "../../src/ingest/chunk.js";
import type { DocumentFormat } from "../../src/ingest/formats.js";
import {
  foldWords,
  htmlVisibleText,
  markdownVisibleText,
  missingWords,
  passageWords,
} from "./visible-words.js";

interface Piece {
  source: string;
  words: string[];
  hidden: string[];
}

const word = fc.stringMatching(/^[a-y][a-y0-9]{0,9}$/);
const hiddenWord = word.map((w) => `zq${w}`);
const piece = (source: string, words: string[] = [], hidden: string[] = []): Piece => ({
  source,
  words,
  hidden,
});
const join = (pieces: readonly Piece[], separator: string): Piece => ({
  source: pieces.map((p) => p.source).join(separator),
  words: pieces.flatMap((p) => p.words),
  hidden: pieces.flatMap((p) => p.hidden),
});

// ---- markdown ----

const decorated: fc.Arbitrary<Piece> = fc.oneof(
  word.map((w) => piece(w, [w])),
  fc
    .tuple(
      word,
      fc.constantFrom(
        "**%**",
        "*%*",
        "_%_",
        "~~%~~",
        "`%`",
        "\\*%\\*",
        "%&amp;",
        "<b>%</b>",
        '<span class="c">%</span>',
      ),
    )
    .map(([w, t]) => piece(t.replace("%", w), [w])),
  fc.tuple(word, hiddenWord).map(([w, h]) => piece(`[${w}](https://example.com/${h} "${h}")`, [w], [h])),
  fc.tuple(word, hiddenWord).map(([w, h]) => piece(`![${w}](${h}.png)`, [w], [h])),
  fc.tuple(word, hiddenWord).map(([w, h]) => piece(`${w}<!-- ${h} -->`, [w], [h])),
  word.map((w) => piece(`<https://example.com/${w}>`, [w, "https", "example", "com"])),
);
const inline = fc
  .array(fc.tuple(decorated, fc.constantFrom(" ", ". ", ", ", "; ")), { minLength: 1, maxLength: 12 })
  .map((parts) => {
    const joined = join(
      parts.map(([p, s]) => piece(p.source + s, p.words, p.hidden)),
      "",
    );
    return { ...joined, source: joined.source.trim() };
  });
const codeLines = fc.array(fc.array(word, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 });

const leaf: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 4, arbitrary: inline },
  fc
    .tuple(fc.integer({ min: 1, max: 6 }), inline)
    .map(([d, t]) => piece(`${"#".repeat(d)} ${t.source}`, t.words, t.hidden)),
  fc
    .tuple(inline, fc.constantFrom("===", "---"))
    .map(([t, u]) => piece(`${t.source}\n${u}`, t.words, t.hidden)),
  fc
    .tuple(codeLines, fc.constantFrom("```", "~~~", "````"))
    .map(([lines, f]) =>
      piece(`${f}sh\n${lines.map((l) => `  ${l.join(" ")} # <b>`).join("\n")}\n${f}`, [...lines.flat(), "b"]),
    ),
  codeLines.map((lines) => piece(lines.map((l) => `    ${l.join(" ")}`).join("\n"), lines.flat())),
  fc
    .array(fc.tuple(word, word), { minLength: 1, maxLength: 5 })
    .map((rows) =>
      piece(
        [
          `| ${rows[0]?.[0]} | ${rows[0]?.[1]} |`,
          "| --- | :-: |",
          ...rows.slice(1).map(([a, b]) => `| ${a} | ${b} |`),
        ].join("\n"),
        rows.flat(),
      ),
    ),
  fc
    .tuple(word, word)
    .map(([a, b]) => piece(`<div align="center">\n  <p>${a}</p>\n  <h3>${b}</h3>\n</div>`, [a, b])),
  fc
    .tuple(word, inline)
    .map(([s, t]) =>
      piece(`<details>\n<summary>${s}</summary>\n\n${t.source}\n\n</details>`, [s, ...t.words], t.hidden),
    ),
  hiddenWord.map((h) => piece(`<!-- ${h} -->`, [], [h])),
  fc.tuple(hiddenWord, hiddenWord).map(([a, b]) => piece(`<!--\n${a}\n\n${b}\n-->`, [], [a, b])),
  hiddenWord.map((h) => piece(`<script>\nvar ${h} = "<p>";\n</script>`, [], [h])),
  hiddenWord.map((h) => piece(`<style>\n.${h} { color: red }\n</style>`, [], [h])),
  fc.tuple(word, hiddenWord).map(([w, h]) => piece(`[${w}]: https://example.com/${h}`, [], [h])),
  // Not "* * *": behind a "* " or "- " list marker that line would itself be a thematic break.
  fc.constant(piece("___")),
);

const indentLines = (source: string, first: string, rest: string) =>
  source
    .split("\n")
    .map((line, i) => (i === 0 ? first + line : line === "" ? "" : rest + line))
    .join("\n");

const block: fc.Arbitrary<Piece> = fc.letrec<{ block: Piece }>((tie) => ({
  block: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 5, arbitrary: leaf },
    fc.array(tie("block"), { minLength: 1, maxLength: 3 }).map((children) => {
      const inner = join(children, "\n\n");
      return {
        ...inner,
        source: inner.source
          .split("\n")
          .map((l) => (l === "" ? ">" : `> ${l}`))
          .join("\n"),
      };
    }),
    fc
      .tuple(
        fc.constantFrom("- ", "* ", "1. "),
        fc.array(fc.array(tie("block"), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
      )
      .map(([marker, items]) => {
        const pad = " ".repeat(marker.length);
        const rendered = items.map((children) => {
          const inner = join(children, "\n\n");
          return { ...inner, source: indentLines(inner.source, marker, pad) };
        });
        // Blank lines between items: an HTML block ends only at one, and would swallow the next item.
        return join(rendered, "\n\n");
      }),
  ),
})).block;

// ---- HTML ----

const htmlTree: fc.Arbitrary<Piece> = fc.letrec<{ node: Piece }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    {
      weight: 4,
      arbitrary: fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => piece(ws.join(" "), ws)),
    },
    fc
      .tuple(fc.constantFrom("b", "i", "em", "span", "code", "strong"), tie("node"))
      .map(([tag, child]) => piece(`<${tag}>${child.source}</${tag}>`, child.words, child.hidden)),
    fc
      .tuple(word, hiddenWord)
      .map(([w, h]) => piece(`<a href="https://example.com/${h}" title="${h}">${w}</a>`, [w], [h])),
    // A site's chrome, wherever it stands: its words are never indexed (src/ingest/html-chrome.ts).
    fc
      .tuple(
        fc.constantFrom(
          "<nav>%</nav>",
          "<aside>%</aside>",
          "<footer>%</footer>",
          "<button>%</button>",
          '<div hidden class="x">%</div>',
          '<span aria-hidden="true">%</span>',
          '<div style="display: none">%</div>',
          '<div role="navigation">%</div>',
          '<div class="sphinxsidebar"><h3>%</h3></div>',
        ),
        hiddenWord,
      )
      .map(([shape, h]) => piece(shape.replace("%", h), [], [h])),
    word.map((w) => piece(`<h2>${w}<a class="headerlink" href="#${w}">¶</a></h2>`, [w])),
    fc
      .tuple(
        fc.constantFrom("p", "div", "section", "blockquote", "figure", "summary"),
        fc.array(tie("node"), { minLength: 1, maxLength: 3 }),
      )
      .map(([tag, children]) => {
        const inner = join(children, "\n");
        return { ...inner, source: `<${tag} class="x">${inner.source}</${tag}>` };
      }),
    fc
      .tuple(fc.integer({ min: 1, max: 6 }), tie("node"))
      .map(([d, c]) => piece(`<h${d}>${c.source}</h${d}>`, c.words, c.hidden)),
    fc
      .tuple(fc.constantFrom("ul", "ol"), fc.array(tie("node"), { minLength: 1, maxLength: 4 }))
      .map(([tag, items]) => {
        const inner = join(
          items.map((i) => piece(`<li>${i.source}</li>`, i.words, i.hidden)),
          "",
        );
        return { ...inner, source: `<${tag}>${inner.source}</${tag}>` };
      }),
    fc.array(fc.tuple(word, tie("node")), { minLength: 1, maxLength: 3 }).map((entries) => {
      const inner = join(
        entries.map(([t, d]) => piece(`<dt>${t}</dt><dd>${d.source}</dd>`, [t, ...d.words], d.hidden)),
        "",
      );
      return { ...inner, source: `<dl>${inner.source}</dl>` };
    }),
    fc
      .array(fc.array(word, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 })
      .map((rows) =>
        piece(
          `<table>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</table>`,
          rows.flat(),
        ),
      ),
    fc
      .tuple(word, tie("node"))
      .map(([s, c]) =>
        piece(`<details><summary>${s}</summary>${c.source}</details>`, [s, ...c.words], c.hidden),
      ),
    codeLines.map((lines) =>
      piece(`<pre><code>${lines.map((l) => `  ${l.join(" ")}`).join("\n")}</code></pre>`, lines.flat()),
    ),
    hiddenWord.map((h) => piece(`<!-- ${h} -->`, [], [h])),
    hiddenWord.map((h) => piece(`<script>var ${h} = "</div>";</script>`, [], [h])),
    hiddenWord.map((h) => piece(`<style>.${h}{}</style>`, [], [h])),
    hiddenWord.map((h) => piece(`<template><p>${h}</p></template>`, [], [h])),
  ),
})).node;

/**
 * Words are checked against the reference parsers (the generator's own lists are only how the documents
 * are built: blocks can interact, an indented line becomes code, so the reference decides what is seen).
 * A hidden word the reference does not see must not reach a passage.
 */
function check(passages: Passage[], visibleText: string, max: number): void {
  expect(passages.length).toBeGreaterThan(0);
  expect(passages.map((p) => p.ordinal)).toEqual(passages.map((_, i) => i));
  for (const passage of passages) expect([...passage.text].length).toBeLessThanOrEqual(max);
  expect(missingWords(visibleText, passages)).toEqual([]);
  const visible = new Set(foldWords(visibleText));
  for (const w of passageWords(passages)) if (w.startsWith("zq")) expect(visible).toContain(w);
}

const bound = fc.integer({ min: 40, max: 2000 });
const chunk = (content: string, format: DocumentFormat, maxPassageChars: number) =>
  chunkDocument({ title: "zqtitle", content, format }, { maxPassageChars });

describe("generated documents", () => {
  it("markdown: never throws, keeps every visible word, keeps hidden words out", () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 12 }), bound, (blocks, max) => {
        const doc = join(blocks, "\n\n");
        check(chunk(doc.source, "markdown", max), markdownVisibleText(doc.source), max);
      }),
      // Each run parses its document twice (the chunker, and mdast for the visible words): 400 runs took 42 s
      // in a full suite on a loaded 2-core machine, past the 30 s timeout; 150 keep it well inside.
      { numRuns: 150 },
    );
  });

  it("HTML: never throws, keeps every visible word, keeps hidden words out", () => {
    fc.assert(
      fc.property(fc.array(htmlTree, { maxLength: 8 }), bound, (nodes, max) => {
        const doc = join(nodes, "\n");
        const content = `<!doctype html><html><head><title>zqtitle</title></head><body>${doc.source}</body></html>`;
        const passages = chunk(content, "html", max);
        check(passages, htmlVisibleText(content), max);
        // HTML has no indentation to reinterpret a block, so here the generator's own lists are exact too.
        const words = passageWords(passages);
        for (const w of doc.words) expect(words).toContain(w);
        for (const w of doc.hidden) expect(words).not.toContain(w);
      }),
      { numRuns: 400 },
    );
  });

  it("arbitrary strings: never throws in either format and respects the bound", () => {
    const noise = fc.string({
      unit: fc.constantFrom(..."<>!-[]()`*_~#>|\\&;:=\"' \n\tab1é中".split("")),
      maxLength: 400,
    });
    fc.assert(
      fc.property(
        noise,
        fc.constantFrom<DocumentFormat>("markdown", "html"),
        bound,
        (content, format, max) => {
          const passages = chunk(content, format, max);
          expect(passages.length).toBeGreaterThan(0);
          for (const passage of passages) expect([...passage.text].length).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
