import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChunkLimits, chunkDocument, defaultChunkLimits, type Passage } from "../../src/ingest/chunk.js";
import type { DocumentFormat } from "../../src/ingest/formats.js";

const md = (content: string, title = "Untitled", limits?: ChunkLimits): Passage[] =>
  chunkDocument({ title, content, format: "markdown" }, limits);

const codePoints = (text: string): number => [...text].length;

const wordRuns = (text: string): string[] => text.match(/[\p{L}\p{N}]+/gu) ?? [];

const indexedRuns = (passages: readonly Passage[]): Set<string> =>
  new Set(passages.flatMap((passage) => [...wordRuns(passage.heading), ...wordRuns(passage.text)]));

describe("heading trails", () => {
  it("joins nested headings with ›", () => {
    const passages = md("# Finance\n\nf\n\n## Revenue\n\nr\n\n### Q1\n\nq\n");
    expect(passages.map(({ heading, text }) => [heading, text])).toEqual([
      ["Finance", "f"],
      ["Finance › Revenue", "r"],
      ["Finance › Revenue › Q1", "q"],
    ]);
  });

  it("lets a heading replace its siblings and everything below them", () => {
    const passages = md("# F\n\n## A\n\na\n\n### B\n\nb\n\n## C\n\nc\n\n# G\n\ng\n");
    expect(passages.map((passage) => passage.heading)).toEqual(["F › A", "F › A › B", "F › C", "G"]);
  });

  it("skips levels that have no heading instead of leaving holes in the trail", () => {
    expect(md("# A\n\n### C\n\nc\n")[0]?.heading).toBe("A › C");
  });

  it("gives a heading directly followed by a deeper one no passage of its own", () => {
    const passages = md("# Finance\n## Revenue\n### Q1\n\nnumbers\n");
    expect(passages).toEqual([{ ordinal: 0, heading: "Finance › Revenue › Q1", text: "numbers" }]);
  });

  it("keeps an empty heading that is replaced by a sibling, so its words stay findable", () => {
    const passages = md("## Overview\n## Details\n\nbody\n");
    expect(passages).toEqual([
      { ordinal: 0, heading: "Overview", text: "" },
      { ordinal: 1, heading: "Details", text: "body" },
    ]);
  });

  it("keeps a heading followed only by an empty deeper heading (found by the HTML property test)", () => {
    expect(md("# Alpha\n\n## \n")).toEqual([{ ordinal: 0, heading: "Alpha", text: "" }]);
    expect(md("# Alpha\n## Beta\n## Gamma\n\ng\n").map((passage) => passage.heading)).toEqual([
      "Alpha › Beta",
      "Alpha › Gamma",
    ]);
  });

  it("keeps a trailing empty heading", () => {
    expect(md("# A\n\na\n\n## Appendix\n").at(-1)).toEqual({ ordinal: 1, heading: "A › Appendix", text: "" });
  });

  it("renders inline markup in headings as plain text", () => {
    expect(md("# The `chunk` **module**\n\nx\n")[0]?.heading).toBe("The chunk module");
  });
});

describe("leading H1 and the title", () => {
  it("drops a leading H1 that repeats the title, ignoring case and spacing", () => {
    const passages = md(
      "#   team   HANDBOOK \n\nWelcome.\n\n## Onboarding\n\nDay one.\n",
      "  Team Handbook ",
    );
    expect(passages.map((passage) => passage.heading)).toEqual(["", "Onboarding"]);
  });

  it("keeps a leading H1 that differs from the title", () => {
    expect(md("# Overview\n\nWelcome.\n", "Team Handbook")[0]?.heading).toBe("Overview");
  });

  it("keeps an H1 equal to the title when it is not the first block", () => {
    expect(md("Preface.\n\n# Team Handbook\n\nBody.\n", "Team Handbook")[1]?.heading).toBe("Team Handbook");
  });

  it("keeps a leading H2 equal to the title, only H1 is treated as the title", () => {
    expect(md("## Team Handbook\n\nBody.\n", "Team Handbook")[0]?.heading).toBe("Team Handbook");
  });
});

describe("content before any heading", () => {
  it("has an empty heading", () => {
    expect(md("Intro line.\n\n# First\n\nBody.\n")).toEqual([
      { ordinal: 0, heading: "", text: "Intro line." },
      { ordinal: 1, heading: "First", text: "Body." },
    ]);
  });
});

describe("size bound", () => {
  it("defaults to a 2000 code point cap", () => {
    expect(defaultChunkLimits.maxPassageChars).toBe(2000);
  });

  it("rejects a bound that could never be met", () => {
    for (const maxPassageChars of [0, -1, 1.5, Number.NaN]) {
      expect(() => md("text", "t", { maxPassageChars })).toThrow(RangeError);
    }
  });

  it("splits a long section at paragraph boundaries, keeping the heading on every piece", () => {
    const paragraphs = Array.from(
      { length: 12 },
      (_, i) => `Paragraph ${i} ${"lorem ipsum ".repeat(24).trim()}.`,
    );
    const passages = md(`# Policy\n\n## Travel\n\n${paragraphs.join("\n\n")}\n`, "t", {
      maxPassageChars: 1000,
    });

    expect(passages.length).toBeGreaterThan(3);
    for (const passage of passages) {
      expect(passage.heading).toBe("Policy › Travel");
      expect(codePoints(passage.text)).toBeLessThanOrEqual(1000);
    }
    // Whole paragraphs, in order, nothing dropped or duplicated.
    expect(passages.flatMap((passage) => passage.text.split("\n\n"))).toEqual(paragraphs);
    expect(passages.map((passage) => passage.ordinal)).toEqual(passages.map((_, i) => i));
  });

  it("balances pieces instead of leaving a runt at the end", () => {
    const paragraphs = Array.from({ length: 7 }, (_, i) => `p${i} ${"x".repeat(295)}`);
    const passages = md(paragraphs.join("\n\n"), "t", { maxPassageChars: 2000 });
    // 7 × 300 + separators = 2112: two passages of three-ish paragraphs, not 6 + 1.
    expect(passages.map((passage) => passage.text.split("\n\n").length)).toEqual([4, 3]);
  });

  it("splits an over-long paragraph at sentence boundaries", () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something useful.`);
    const passages = md(`# Notes\n\n${sentences.join(" ")}\n`, "t", { maxPassageChars: 200 });

    expect(passages.length).toBeGreaterThan(5);
    for (const passage of passages) {
      expect(passage.heading).toBe("Notes");
      expect(codePoints(passage.text)).toBeLessThanOrEqual(200);
      expect(passage.text).toMatch(/^Sentence .*useful\.$/);
    }
    expect(passages.map((passage) => passage.text).join(" ")).toBe(sentences.join(" "));
  });

  it("falls back to whitespace when a paragraph has no sentence ends", () => {
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
    const passages = md(words.join(" "), "t", { maxPassageChars: 100 });
    for (const passage of passages) expect(codePoints(passage.text)).toBeLessThanOrEqual(100);
    expect(passages.flatMap((passage) => passage.text.split(" "))).toEqual(words);
  });

  it("cuts hard at the bound, counting code points, when there is no whitespace at all", () => {
    const passages = chunkDocument(
      { title: "t", content: "𝒜".repeat(450), format: "text" },
      { maxPassageChars: 200 },
    );
    expect(passages.map((passage) => codePoints(passage.text))).toEqual([200, 200, 50]);
    expect(passages.map((passage) => passage.text).join("")).toBe("𝒜".repeat(450));
  });

  it("prefers line breaks when splitting a long list", () => {
    const items = Array.from({ length: 60 }, (_, i) => `- item ${i} with some words`);
    const passages = md(items.join("\n"), "t", { maxPassageChars: 300 });
    expect(passages.length).toBeGreaterThan(1);
    for (const passage of passages) {
      expect(codePoints(passage.text)).toBeLessThanOrEqual(300);
      for (const line of passage.text.split("\n")) expect(line).toMatch(/^- item \d+ with some words$/);
    }
  });
});

describe("text format", () => {
  it("packs blank-line separated paragraphs under an empty heading and normalises CRLF", () => {
    const content = "First paragraph\r\nstill first.\r\n\r\nSecond.\r\n  \r\nThird.";
    expect(chunkDocument({ title: "t", content, format: "text" })).toEqual([
      { ordinal: 0, heading: "", text: "First paragraph\nstill first.\n\nSecond.\n\nThird." },
    ]);
  });

  it("splits at paragraph boundaries when over the bound", () => {
    const content = ["a".repeat(40), "b".repeat(40), "c".repeat(40)].join("\n\n");
    const passages = chunkDocument({ title: "t", content, format: "text" }, { maxPassageChars: 90 });
    expect(passages.map((passage) => passage.text)).toEqual([
      `${"a".repeat(40)}\n\n${"b".repeat(40)}`,
      "c".repeat(40),
    ]);
  });

  it("does not treat markdown syntax as structure", () => {
    expect(chunkDocument({ title: "t", content: "# not a heading", format: "text" })).toEqual([
      { ordinal: 0, heading: "", text: "# not a heading" },
    ]);
  });
});

describe("html format", () => {
  it("uses h1/h2 as headings and p as paragraphs, dropping scripts and styles", () => {
    const content = `<!doctype html><html><head><title>Doc</title><style>p { color: red }</style>
      <script>window.secret = 1</script></head><body>
      <h1>Finance</h1><p>Overview of <b>money</b>.</p>
      <div><h2>Revenue</h2><p>Up<br>a lot.</p><script>trackUser()</script></div>
      </body></html>`;
    expect(chunkDocument({ title: "Doc", content, format: "html" })).toEqual([
      { ordinal: 0, heading: "Finance", text: "Overview of money." },
      { ordinal: 1, heading: "Finance › Revenue", text: "Up\na lot." },
    ]);
  });

  it("handles a fragment with only inline content", () => {
    expect(chunkDocument({ title: "t", content: "just <i>inline</i> text", format: "html" })).toEqual([
      { ordinal: 0, heading: "", text: "just inline text" },
    ]);
  });

  it("drops a leading h1 that repeats the title, like markdown", () => {
    const content = "<h1>Doc</h1><p>Body.</p>";
    expect(chunkDocument({ title: "doc", content, format: "html" })[0]?.heading).toBe("");
  });
});

describe("empty content", () => {
  it.each(["markdown", "text", "html"] as const)("yields one empty passage for %s", (format) => {
    for (const content of ["", "   \n\t\r\n  "]) {
      expect(chunkDocument({ title: "Title", content, format })).toEqual([
        { ordinal: 0, heading: "", text: "" },
      ]);
    }
  });

  it("yields one empty passage when the only content is the title heading", () => {
    expect(md("# Title\n", "Title")).toEqual([{ ordinal: 0, heading: "", text: "" }]);
  });
});

describe("markdown rendering", () => {
  it("renders GFM tables as rows of cells joined by |", () => {
    const table = "| Name | Role |\n| --- | :-: |\n| Ada | **Eng** |\n| Bob | ~~PM~~ Ops |\n";
    expect(md(table)[0]?.text).toBe("Name | Role\nAda | Eng\nBob | PM Ops");
  });

  it("renders lists one item a line, nested lists indented, task state kept", () => {
    const list =
      "- one\n- two\n  - nested *a*\n    - deeper\n- [x] done\n- [ ] todo\n\n1. first\n2. second\n";
    expect(md(list)[0]?.text).toBe(
      "- one\n- two\n  - nested a\n    - deeper\n- [x] done\n- [ ] todo\n\n- first\n- second",
    );
  });

  it("keeps code verbatim, quotes as text, images by alt and links by text", () => {
    const content = [
      "See [the guide](https://example.com/guide) and ![a revenue chart](chart.png).",
      "> Quoted **wisdom**\n> continues.",
      "```ts\nif (x) {\n  return `y`;\n}\n```",
      "---",
      "[ref]: https://example.com",
    ].join("\n\n");
    expect(md(content)[0]?.text).toBe(
      "See the guide and a revenue chart.\n\nQuoted wisdom\ncontinues.\n\nif (x) {\n  return `y`;\n}",
    );
  });

  it("keeps words apart across hard line breaks", () => {
    expect(md("alpha  \nbeta\\\ngamma")[0]?.text).toBe("alpha\nbeta\ngamma");
  });

  it("renders raw HTML blocks as their text and drops scripts in them", () => {
    const content =
      "<div>\nHello <b>there</b>\n<script>alert(1)</script>\n</div>\n\nAfter <i>inline</i> tags.";
    expect(md(content)[0]?.text).toBe("Hello there\n\nAfter inline tags.");
  });
});

describe("determinism", () => {
  it("returns identical passages for identical input", () => {
    const content = `# A\n\n${"Some words here. ".repeat(300)}\n\n## B\n\n- x\n- y\n`;
    const first = md(content, "t", { maxPassageChars: 500 });
    expect(md(content, "t", { maxPassageChars: 500 })).toEqual(first);
    expect(first.map((passage) => passage.ordinal)).toEqual(first.map((_, i) => i));
  });
});

describe("properties", () => {
  // Words start with a letter so a generated line can never turn into an ordered-list marker, and stay
  // shorter than the smallest bound so the splitter never has to cut one in half.
  const word = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);
  const decorated = fc
    .tuple(
      word,
      fc.constantFrom("%", "**%**", "*%*", "~~%~~", "`%`", "[%](https://example.com/p)", "![%](i.png)"),
    )
    .map(([w, template]) => ({ words: [w], source: template.replace("%", w) }));
  const inline = fc
    .array(fc.tuple(decorated, fc.constantFrom(" ", ". ", ", ", "! ")), { minLength: 1, maxLength: 40 })
    .map((parts) => ({
      words: parts.flatMap(([part]) => part.words),
      source: parts
        .map(([part, separator]) => part.source + separator)
        .join("")
        .trim(),
    }));
  const block = fc.oneof(
    inline,
    fc.tuple(fc.integer({ min: 1, max: 6 }), inline).map(([depth, text]) => ({
      words: text.words,
      source: `${"#".repeat(depth)} ${text.source}`,
    })),
    fc
      .array(fc.tuple(fc.constantFrom("- ", "  - ", "- [ ] ", "- [x] "), inline), {
        minLength: 1,
        maxLength: 8,
      })
      .map((items) => ({
        words: items.flatMap(([, text]) => text.words),
        // The first item must not be indented or it would be read as a continuation of the block above.
        source: items.map(([marker, text], i) => (i === 0 ? "- " : marker) + text.source).join("\n"),
      })),
    fc.array(fc.array(word, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 8 }).map((lines) => ({
      words: lines.flat(),
      source: `\`\`\`\n${lines.map((line) => line.join(" ")).join("\n")}\n\`\`\``,
    })),
    fc.array(fc.tuple(word, word), { minLength: 1, maxLength: 8 }).map((rows) => ({
      words: rows.flat(),
      source: [
        `| ${rows[0]?.[0]} | ${rows[0]?.[1]} |`,
        "| --- | --- |",
        ...rows.slice(1).map(([a, b]) => `| ${a} | ${b} |`),
      ].join("\n"),
    })),
    inline.map((text) => ({ words: text.words, source: `> ${text.source}` })),
  );
  const bound = fc.integer({ min: 20, max: 400 });

  const checkInvariants = (passages: Passage[], words: readonly string[], max: number) => {
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.map((passage) => passage.ordinal)).toEqual(passages.map((_, i) => i));
    for (const passage of passages) expect(codePoints(passage.text)).toBeLessThanOrEqual(max);
    const indexed = indexedRuns(passages);
    for (const w of words) expect(indexed).toContain(w);
  };

  it("loses no word of generated markdown and respects the bound", () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 25 }), bound, (blocks, maxPassageChars) => {
        const content = blocks.map((b) => b.source).join("\n\n");
        // "!" never appears in a generated heading, so the leading-H1 rule cannot hide words here.
        const passages = md(content, "Title!", { maxPassageChars });
        checkInvariants(
          passages,
          blocks.flatMap((b) => b.words),
          maxPassageChars,
        );
        expect(md(content, "Title!", { maxPassageChars })).toEqual(passages);
      }),
      { numRuns: 300 },
    );
  });

  it("loses no word of generated text and respects the bound", () => {
    // Astral, accented, CJK and non-Latin digits exercise code point counting and Unicode word runs.
    const letter = fc.constantFrom("a", "z", "é", "ß", "Ж", "中", "𝒜", "7", "٣");
    const textWord = fc.array(letter, { minLength: 1, maxLength: 12 }).map((letters) => letters.join(""));
    const separator = fc.constantFrom(
      " ",
      "  ",
      "\t",
      "\n",
      "\n\n",
      "\r\n\r\n",
      "\n \n",
      ". ",
      ", ",
      "! ",
      "。",
    );
    const text = fc
      .array(fc.tuple(textWord, separator), { maxLength: 200 })
      .map((parts) => parts.map(([w, s]) => w + s).join(""));
    fc.assert(
      fc.property(text, bound, (content, maxPassageChars) => {
        const format: DocumentFormat = "text";
        const passages = chunkDocument({ title: "t", content, format }, { maxPassageChars });
        checkInvariants(passages, wordRuns(content), maxPassageChars);
        for (const passage of passages) expect(passage.heading).toBe("");
      }),
      { numRuns: 300 },
    );
  });
});

describe("html comments", () => {
  it("chunks a comment on a line of its own instead of recursing for ever", () => {
    expect(md("# A\n\n<!-- c -->\n")).toEqual([{ ordinal: 0, heading: "A", text: "" }]);
    expect(chunkDocument({ title: "t", content: "<p>x</p><!-- c -->", format: "html" })).toEqual([
      { ordinal: 0, heading: "", text: "x" },
    ]);
  });
});
