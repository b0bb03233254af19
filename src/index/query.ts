// Turns what a person typed into an FTS5 MATCH expression that can never be a syntax error. Pure: imports
// nothing from Hono or a database driver.
//
// FTS5's query syntax is a language, and someone typing an apostrophe, a colon or the word NEAR into a search
// box is not writing in it: fed raw, "what's June's revenue" is a syntax error, and an error page reads like
// "nothing matched". So every run of letters and digits, in any script, becomes one quoted term, and
// everything else only separates terms. Quoting is what makes punctuation and operators inert.

// Letters, digits and combining marks. Marks belong to words in Devanagari, Thai and other scripts; FTS5's
// unicode61 tokenizer drops some of them (Latin accents are folded away, and a virama splits a Devanagari
// word in two), but a quoted term goes through that same tokenizer, so keeping the mark in the term makes it
// match exactly what the index holds instead of splitting the query where the index did not.
const TERM = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The most terms a query keeps. The OR chain's cost grows with its length: measured on the earlier
 * implementation at 2.8 ms for 100 terms, 97 ms for 1,000 and 2.25 s for 5,000, while a search holds the
 * team's index. 64 is longer than any question a person types and costs about 3 ms. Terms past it are
 * dropped: that narrows a query nobody typed instead of refusing one somebody did.
 */
export const MAX_QUERY_TERMS = 64;

/**
 * How far apart the query's words may stand and still count as together. Measured on "office phone
 * number": NEAR/0 ranked the wrong passage first, NEAR/2 the right one, NEAR/5 let a loose match beat a tight
 * one. Two tolerates the small words English puts between the words someone searched for.
 */
export const NEAR_DISTANCE = 2;

/** The largest `q` accepted, in UTF-8 bytes after URL decoding. */
export const MAX_QUERY_BYTES = 1024;

export interface MatchQuery {
  /** The FTS5 expression; empty when the text has no letters or digits (and then nothing can match). */
  expression: string;
  terms: string[];
}

export function queryTerms(raw: string): string[] {
  return (raw.match(TERM) ?? []).slice(0, MAX_QUERY_TERMS);
}

/**
 * Terms are ORed, not ANDed: memoria is asked questions, and "what is average revenue in June" carries
 * words the corpus will not contain next to the two it will. AND would find nothing, and nothing looks like
 * having nothing. OR keeps recall; BM25's IDF makes the common words worth almost nothing.
 *
 * With two or more terms a NEAR group of all of them is added as one more OR operand. BM25 alone cannot tell
 * "phone number" from "phone" when "number" is in most passages (FTS5 clamps its IDF to ~1e-6), so a short
 * heading "Phone" beat the passage stating the office phone number. FTS5 sums each phrase's score, so a
 * passage holding the words together earns more while every other match stays in the results: measured on
 * the earlier implementation's fixture, the right passage went 1.8670 → 4.0322, the wrong one stayed at
 * 2.7670, all fifteen still returned. NEAR rather than a phrase because a phrase is ordered, and "revenue
 * june" then scored a chance adjacency above the passage headed Revenue. Not AND, and not alone: either
 * returns only passages with all the words together, one result where there were twenty-five.
 */
export function matchQuery(raw: string): MatchQuery {
  const terms = queryTerms(raw);
  return { expression: orExpression(terms, terms), terms };
}

/**
 * The expression for already-split terms: `orTerms` ORed, plus one NEAR group of `nearTerms` when there are
 * two or more of them. The index uses it to leave out terms too common to change a score (see
 * PassageSearcher, passages/passage-searcher.ts) while keeping every term in the NEAR group.
 */
export function orExpression(orTerms: readonly string[], nearTerms: readonly string[]): string {
  const quote = (t: string) => `"${t}"`;
  const operands = orTerms.map(quote);
  if (nearTerms.length > 1) operands.push(`NEAR(${nearTerms.map(quote).join(" ")}, ${NEAR_DISTANCE})`);
  return operands.join(" OR ");
}
