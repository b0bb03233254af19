// matchQuery turns what someone typed into an FTS5 MATCH expression that can never be a syntax error. The
// unit tests pin its shape; the property tests run its output against a real FTS5 table, because "never a
// syntax error" is a claim about FTS5's parser and only FTS5 can check it.

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IndexedDocument, PassageIndex } from "../../src/index/passages/passage-index.js";
import { MAX_QUERY_TERMS, matchQuery, NEAR_DISTANCE, queryTerms } from "../../src/index/query.js";

describe("matchQuery", () => {
  it("quotes a single word and adds no NEAR group", () => {
    expect(matchQuery("revenue")).toEqual({ expression: '"revenue"', terms: ["revenue"] });
  });

  it("ORs two or more words and adds one NEAR group of all of them", () => {
    expect(NEAR_DISTANCE).toBe(2);
    expect(matchQuery("June revenue")).toEqual({
      expression: '"June" OR "revenue" OR NEAR("June" "revenue", 2)',
      terms: ["June", "revenue"],
    });
    expect(matchQuery("office phone number").expression).toBe(
      '"office" OR "phone" OR "number" OR NEAR("office" "phone" "number", 2)',
    );
  });

  it("keeps repeated words, in the order they were typed", () => {
    expect(matchQuery("what's June's revenue").terms).toEqual(["what", "s", "June", "s", "revenue"]);
  });

  it("makes punctuation and FTS5's operators inert: they separate words or become quoted words", () => {
    // Each of these is FTS5 syntax (or a syntax error) when fed to MATCH raw.
    expect(matchQuery('"unbalanced quote').terms).toEqual(["unbalanced", "quote"]);
    expect(matchQuery("title:passport").terms).toEqual(["title", "passport"]);
    expect(matchQuery("rev*").terms).toEqual(["rev"]);
    expect(matchQuery("^start -minus +plus").terms).toEqual(["start", "minus", "plus"]);
    expect(matchQuery("(a OR b) AND NOT c").expression).toBe(
      '"a" OR "OR" OR "b" OR "AND" OR "NOT" OR "c" OR NEAR("a" "OR" "b" "AND" "NOT" "c", 2)',
    );
    expect(matchQuery("NEAR(x y, 5)").terms).toEqual(["NEAR", "x", "y", "5"]);
    expect(matchQuery("{heading body}: x").terms).toEqual(["heading", "body", "x"]);
  });

  it("keeps letters of any script, and digits, inside one term", () => {
    expect(queryTerms("café")).toEqual(["café"]);
    expect(queryTerms("Müller's")).toEqual(["Müller", "s"]);
    expect(queryTerms("東京")).toEqual(["東京"]);
    expect(queryTerms("Ελλάδα")).toEqual(["Ελλάδα"]);
    expect(queryTerms("020-7946-0958")).toEqual(["020", "7946", "0958"]);
    expect(queryTerms("Q2")).toEqual(["Q2"]);
  });

  it("keeps combining marks inside the word they belong to", () => {
    // Devanagari's virama (U+094D) and vowel signs are marks, not letters: splitting on them would cut नमस्ते
    // into pieces.
    expect(queryTerms("नमस्ते दुनिया")).toEqual(["नमस्ते", "दुनिया"]);
    // A decomposed é (e + U+0301) is one term, like the precomposed one.
    expect(queryTerms("cafe\u0301 au lait")).toEqual(["cafe\u0301", "au", "lait"]);
  });

  it("treats emoji as separators", () => {
    expect(queryTerms("revenue📈june")).toEqual(["revenue", "june"]);
    expect(queryTerms("👍🏽 great 👨‍👩‍👧")).toEqual(["great"]);
    expect(matchQuery("🎉🎉").expression).toBe("");
  });

  it("gives an empty expression for text without letters or digits", () => {
    for (const raw of ["", "   ", "?!", "***", '""', "— … ·"]) {
      expect(matchQuery(raw)).toEqual({ expression: "", terms: [] });
    }
  });

  it("keeps the first 64 terms and drops the rest", () => {
    expect(MAX_QUERY_TERMS).toBe(64);
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    const query = matchQuery(words.join(" "));
    expect(query.terms).toEqual(words.slice(0, 64));
    const operands = query.expression.split(" OR ");
    expect(operands).toHaveLength(65);
    expect(operands[63]).toBe('"w63"');
    expect(operands[64]).toBe(
      `NEAR(${words
        .slice(0, 64)
        .map((w) => `"${w}"`)
        .join(" ")}, 2)`,
    );
    expect(matchQuery(words.slice(0, 64).join(" ")).terms).toHaveLength(64);
  });
});

describe("matchQuery against FTS5", () => {
  const passage = (id: string, heading: string, text: string): IndexedDocument => ({
    id,
    title: `${heading} notes`,
    path: ["Wiki"],
    passages: [{ chunkId: `${id}#0`, ordinal: 0, heading, text }],
  });
  const docs = [
    passage("finance", "Revenue", "June revenue was $48,200, up 6% on May."),
    passage("contact", "Contact", "The office phone number is 020 7946 0958."),
    passage("cafe", "Café Müller", "Le café est fermé le lundi. Herr Müller öffnet um acht."),
    passage("tokyo", "東京", "東京 オフィス の 電話番号"),
    passage("hindi", "नमस्ते", "नमस्ते दुनिया"),
    passage("emoji", "Launch 🎉", "Shipped 🚀 on Friday; the NEAR and OR operators are words here."),
  ];
  const chunkIds = new Set(docs.map((d) => `${d.id}#0`));
  let index: PassageIndex;
  beforeAll(() => {
    index = new PassageIndex();
    index.apply(docs);
  });
  afterAll(() => index.close());

  const found = (q: string): string[] => index.search(matchQuery(q).expression, 10).map((h) => h.documentId);

  it("finds each script's word in the passage that holds it", () => {
    expect(found("café")).toEqual(["cafe"]);
    expect(found("Müller")).toEqual(["cafe"]);
    expect(found("東京")).toEqual(["tokyo"]);
    expect(found("नमस्ते")).toEqual(["hindi"]);
    expect(found("🚀 shipped")).toEqual(["emoji"]);
  });

  it("finds FTS5's operator words as ordinary words", () => {
    expect(found("NEAR")).toEqual(["emoji"]);
    expect(found("OR")).toEqual(["emoji"]);
  });

  // Characters FTS5's query language gives a meaning to, plus the kinds of text that have broken query
  // builders before: unbalanced quotes and brackets, operator words, column filters, prefix stars, initial
  // tokens, combining marks with nothing to combine with, emoji with modifiers and joiners, control
  // characters (including the snippet markers) and lone surrogates.
  const syntax = fc.constantFrom(
    '"',
    '""',
    "'",
    "NEAR",
    "NEAR(",
    "NEAR/2",
    "AND",
    "OR",
    "NOT",
    "*",
    ":",
    "^",
    "(",
    ")",
    "{",
    "}",
    "-",
    "+",
    ",",
    " ",
    "\n",
    "\t",
    "\u0000",
    "\u0002",
    "\u0003",
    "\u0301",
    "\u094D",
    "\uFE0F",
    "\u200D",
    "\uE000",
    "\uD800",
    "café",
    "Müller",
    "東京",
    "नमस्ते",
    "👍🏽",
    "👨‍👩‍👧",
    "1️⃣",
    "revenue",
    "June",
    "number",
    "heading:",
    "body:",
  );
  const raw = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 60 }),
    fc.string({ unit: "grapheme-composite", maxLength: 60 }),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.string({ unit: syntax, maxLength: 40 }),
    fc.string({
      unit: fc.oneof(syntax, fc.string({ unit: "grapheme", minLength: 1, maxLength: 3 })),
      maxLength: 200,
    }),
  );

  it("never produces an expression FTS5 rejects, whatever was typed", () => {
    fc.assert(
      fc.property(raw, (text) => {
        const query = matchQuery(text);
        // search() throws on an FTS5 syntax error; it must not, and may only answer passages it holds.
        const hits = index.search(query.expression, 10);
        for (const h of hits) expect(chunkIds.has(h.chunkId)).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });

  it("always builds quoted letter-and-digit terms, ORed, with NEAR only for two or more", () => {
    fc.assert(
      fc.property(raw, (text) => {
        const { expression, terms } = matchQuery(text);
        expect(terms.length).toBeLessThanOrEqual(MAX_QUERY_TERMS);
        // The terms are the text's first runs of letters, digits and marks, untouched.
        expect(terms).toEqual((text.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).slice(0, MAX_QUERY_TERMS));
        // No term can carry a quote, so no term can end its own quoting.
        for (const t of terms) expect(t).toMatch(/^[\p{L}\p{N}\p{M}]+$/u);
        const quoted = terms.map((t) => `"${t}"`);
        const expected =
          terms.length === 0
            ? ""
            : terms.length === 1
              ? quoted.join("")
              : [...quoted, `NEAR(${quoted.join(" ")}, 2)`].join(" OR ");
        expect(expression).toBe(expected);
      }),
      { numRuns: 1_000 },
    );
  });
});
