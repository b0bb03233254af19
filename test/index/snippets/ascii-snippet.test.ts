// Snippets cut in JS (ascii-snippet.ts, through SnippetTable.cut with the matched terms) against FTS5's own
// snippet() (test/support/snippet-reference.ts: a fresh table, one INSERT a row): byte for byte on real text
// (git's manuals, node_modules' markdown, Cranfield's abstracts) and on generated hostile text, where bodies
// that are not ASCII go through the table and must come out the same too.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cranfieldDir } from "../../../eval/paths.js";
import { IndexDatabase } from "../../../src/index/engine.js";
import { matchQuery, queryTerms } from "../../../src/index/query.js";
import {
  asciiPhrases,
  asciiSnippet,
  SEPARATORS_PAST_ASCII,
  TokenEdges,
} from "../../../src/index/snippets/ascii-snippet.js";
import { type SnippetSource, SnippetTable } from "../../../src/index/snippets/snippet-table.js";
import { needs, outside } from "../../support/outside.js";
import { manualPassages } from "../../support/snippet-passages.js";
import { referenceSnippets } from "../../support/snippet-reference.js";

/** git's manuals and READMEs (test/support/snippet-passages.ts), and 600 of Cranfield's abstracts. */
function realPassages(): SnippetSource[] {
  const passages = manualPassages();
  const lines = readFileSync(join(cranfieldDir(), "corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .slice(0, 600);
  for (const line of lines) {
    const doc = JSON.parse(line) as { title: string; text: string };
    passages.push({ heading: "", body: doc.text, title: doc.title, path: "cranfield" });
  }
  return passages;
}

/** The passages `expression` matches in some column: what a search's ranked rows are. */
function matching(passages: readonly SnippetSource[], expression: string): SnippetSource[] {
  const db = new IndexDatabase(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE m USING fts5(heading, body, title, path, tokenize = 'porter unicode61')");
    const insert = db.prepare("INSERT INTO m (rowid, heading, body, title, path) VALUES (?, ?, ?, ?, ?)");
    for (const [i, p] of passages.entries()) insert.run(i, p.heading, p.body, p.title, p.path);
    const rows = db.prepare("SELECT rowid FROM m WHERE m MATCH ?").all(expression) as { rowid: number }[];
    return rows.flatMap((r) => passages[r.rowid] ?? []);
  } finally {
    db.close();
  }
}

describe("snippets cut in JS", () => {
  let db: IndexDatabase;
  let table: SnippetTable;
  beforeAll(() => {
    db = new IndexDatabase(":memory:");
    table = new SnippetTable(db);
  });
  afterAll(() => db.close());

  /** Cuts `passages` (those `question` matches) both ways; returns how many were cut in JS. */
  const expectAsFts5 = (passages: readonly SnippetSource[], question: string): number => {
    const query = matchQuery(question);
    const rows = matching(passages, query.expression);
    expect(table.cut(rows, query.expression, query.terms), question).toEqual(
      referenceSnippets(rows, query.expression),
    );
    const phrases = asciiPhrases(query.terms);
    return phrases ? rows.filter((p) => asciiSnippet(p.body, phrases) !== null).length : 0;
  };

  needs(outside.gitManuals, outside.cranfield).it(
    "cuts real manuals, READMEs and abstracts as FTS5 does: one, two and three words, together or apart",
    () => {
      const passages = realPassages();
      expect(passages.length).toBeGreaterThan(1000);
      let inJs = 0;
      for (let start = 0; start + 40 <= passages.length; start += 89) {
        const batch = passages.slice(start, start + 40);
        const words = queryTerms((batch[start % 40]?.body ?? "").toLowerCase());
        if (words.length < 6) continue;
        const at = start % (words.length - 3);
        // Words side by side make the NEAR group match; words from far apart mostly do not.
        inJs += expectAsFts5(batch, `${words[at]} ${words[at + 1]}`);
        inJs += expectAsFts5(batch, `${words[at]} ${words[words.length - 1]}`);
        inJs += expectAsFts5(batch, `${words[at + 2]}`);
        inJs += expectAsFts5(batch, `${words[at]} ${words[at + 1]} ${words[at + 3]}`);
        inJs += expectAsFts5(batch, `${words[at]} ${words[at]}`);
      }
      expect(inJs).toBeGreaterThan(1000);
    },
  );

  it("property: generated text with sentence marks, stems, repeats, long tokens and non-ASCII", () => {
    const vocabulary = [
      "walrus",
      "walruses",
      "run",
      "running",
      "runs",
      "ice",
      "icing",
      "connect",
      "connection",
      "a",
      "by",
    ];
    const asciiPiece = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...vocabulary) },
      {
        weight: 4,
        arbitrary: fc.constantFrom(" ", "  ", ". ", ": ", ".", ":", "\n", "\t", ", ", "-", " .\n "),
      },
      { weight: 1, arbitrary: fc.constantFrom("x".repeat(70), "Walrus", "RUNNING", "42", "w4lrus", "_") },
      { weight: 2, arbitrary: fc.constantFrom(...SEPARATORS_PAST_ASCII, "walrus’s", "“ice”", "run…") },
    );
    const otherPiece = fc.constantFrom("é", "naïve", "海象", "🦭", "\uD800", "\uDC00", "ß", "\u0301");
    const words = (piece: fc.Arbitrary<string>) => fc.array(piece, { maxLength: 80 }).map((p) => p.join(" "));
    // Most bodies ASCII (cut in JS), some with a character past it (cut by the table) beside them.
    const text = fc.oneof(
      { weight: 3, arbitrary: words(asciiPiece) },
      {
        weight: 1,
        arbitrary: words(
          fc.oneof({ weight: 6, arbitrary: asciiPiece }, { weight: 1, arbitrary: otherPiece }),
        ),
      },
    );
    const passage = fc.record({
      heading: fc.oneof(fc.constant(""), text),
      body: text,
      title: fc.constantFrom("", "Walrus", "Notes"),
      path: fc.constantFrom("", "ice"),
    });
    const question = fc
      .array(fc.constantFrom(...vocabulary, "Walrus", "RUNS", "absent"), { minLength: 1, maxLength: 3 })
      .map((w) => w.join(" "));
    let inJs = 0;
    fc.assert(
      fc.property(fc.array(passage, { minLength: 1, maxLength: 20 }), question, (passages, q) => {
        inJs += expectAsFts5(passages, q);
      }),
      { numRuns: 300 },
    );
    expect(inJs).toBeGreaterThan(300);
  });

  it("treats as a separator only what FTS5's unicode61 does: each listed character splits a word in two", () => {
    const check = new IndexDatabase(":memory:");
    try {
      check.exec("CREATE VIRTUAL TABLE s USING fts5(w, tokenize = 'porter unicode61')");
      check.exec("CREATE VIRTUAL TABLE v USING fts5vocab(s, 'instance')");
      const insert = check.prepare("INSERT INTO s (rowid, w) VALUES (?, ?)");
      const separators = [...SEPARATORS_PAST_ASCII];
      for (const [i, c] of separators.entries()) insert.run(i + 1, `ab${c}cd`);
      const tokens = check.prepare("SELECT doc, term, offset FROM v ORDER BY doc, offset").all() as {
        doc: number;
        term: string;
        offset: number;
      }[];
      for (const [i, c] of separators.entries()) {
        const mine = tokens.filter((t) => t.doc === i + 1).map((t) => [t.term, t.offset]);
        expect(mine, `U+${c.codePointAt(0)?.toString(16)}`).toEqual([
          ["ab", 0],
          ["cd", 1],
        ]);
      }
    } finally {
      check.close();
    }
  });

  it("leaves a body with other characters past ASCII, and a query word past ASCII, to the table", () => {
    const phrases = asciiPhrases(["walrus"]);
    expect(phrases).toEqual(["walru"]);
    expect(asciiSnippet("the walrus café", phrases ?? [])).toBeNull();
    expect(asciiSnippet("the walrus \uD800", phrases ?? [])).toBeNull();
    expect(asciiSnippet("the walrus", phrases ?? [])).toBe("the \u0002walrus\u0003");
    expect(asciiSnippet("the walrus’s tusks…", phrases ?? [])).toBe("the \u0002walrus\u0003’s tusks…");
    expect(asciiPhrases(["café", "walrus"])).toBeNull();
  });

  it("cuts each body alike whether its token arrays are fresh or kept from longer and shorter bodies before", () => {
    const phrases = asciiPhrases(["walrus", "tusk"]) ?? [];
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(" ");
    const bodies = [
      `${filler(3000)}. The walrus has two tusks. ${filler(50)}`,
      "A walrus. Tusks: ivory.",
      `${filler(20)} tusk ${filler(9000)}: the walrus, at the end.`,
      "the walrus",
      `${filler(5)}. Walruses use their tusks.`,
    ];
    const kept = new TokenEdges();
    for (const body of bodies) {
      const fresh = asciiSnippet(body, phrases, new Map(), new TokenEdges());
      expect(fresh).toContain("\u0002");
      expect(asciiSnippet(body, phrases, new Map(), kept)).toBe(fresh);
    }
    // The third body has more tokens than the arrays first held: they grew.
    expect(kept.starts.length).toBeGreaterThan(new TokenEdges().starts.length);
  });
});
