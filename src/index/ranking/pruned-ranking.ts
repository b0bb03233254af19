// Runs the long-query pruning plan (prune.ts) as a handful of FTS5 expressions, each holding some of the full
// expression's phrases, and merges their top k into the full expression's top k. The rule, the proof and
// the measurements: docs/decisions/0022-long-query-pruning.md, and for the clamped words' shares added
// outside FTS5, 0049-clamped-shares.md.

import { orExpression } from "../query.js";
import { BM25_K1, clampedShare, IDF_FLOOR } from "./bm25.js";
import { BOUND_MARGIN, phraseBound, splitByThreshold, thresholdTerms } from "./prune.js";

export interface RankedRow {
  rowid: number;
  /** bm25() as FTS5 returns it: negative, smaller is better. */
  rank: number;
}

/** What bm25() reads of some rows, besides their phrases' instances: for adding clamped shares (below). */
export interface RowTermCounts {
  /** bm25()'s N and avgD, from the record bm25() reads them from. */
  rows: number;
  averageLength: number;
  /** Each row's length in tokens, all columns (bm25()'s D), by rowid. */
  lengths: ReadonlyMap<number, number>;
  /** Each row's column-weighted frequency (bm25()'s f) of each term, in the order the rowids were given. */
  frequencies: readonly ReadonlyMap<string, number>[];
}

export interface RankingSource {
  /** Rows matching `expression`, best first, ties by rowid (which is the contract's tie order here). */
  rank(expression: string, limit: number): RankedRow[];
  /** The rows holding `term` now, exactly: the bounds, the threshold query and the canonical order depend on it. */
  matchingAtLeast(term: string): number;
  /** Rows in the table, as bm25() counts them. */
  passages: number;
  /**
   * Whether any row matches `expression`, without ranking: cheaper than `rank(expression, 1)`, which scores and
   * sorts every match. Optional: without it pruning asks `rank` for one row.
   */
  matchesAny?(expression: string): boolean;
  /**
   * What bm25() reads of `rowids` for `terms` (each a single token), or null if a term is not one token.
   * Optional: without it every phrase is scored inside FTS5, as before 0049.
   */
  termCounts?(rowids: readonly number[], terms: readonly string[]): RowTermCounts | null;
}

/**
 * Rows each partial list is asked for, as a multiple of the limit: the rows within the clamped shares' bound
 * of the k-th are nearly always the k-th's exact ties, and a list that may hold more is asked again.
 */
const PARTIAL_ROWS_PER_LIMIT = 2;

/**
 * The most candidates whose clamped shares are added, as a multiple of the limit: past it (hundreds of rows
 * tied at the cut, as copies of one boilerplate passage make) reading their text would cost more than FTS5
 * scoring the common phrases, and the clamped phrases stay in FTS5's lists.
 */
const CLAMPED_CANDIDATES_PER_LIMIT = 8;

/**
 * Clamped shares are added outside FTS5 only where the essential terms' rows (their counts summed, an upper
 * bound of the rows FTS5 would walk the common words' positions in) reach this multiple of the limit. Below
 * it, reading and tokenizing the ~limit candidates costs more than FTS5 spends on those positions: measured
 * on generated corpora (40 words, one in every passage, 2–20-word queries, limit 20, in one process against
 * the ranking before clamped shares), 480 passages took 1.37× its time without this bound and 1.01× with it,
 * 3,000 passages 0.90× and 0.86×; on real manuals one candidate's text costs what ~40 essential rows' common
 * positions do, and a long question's ~limit candidates then pay for themselves past ~45 × limit rows.
 */
const CLAMPED_MIN_ROWS_PER_LIMIT = 64;

/**
 * The rarest terms whose AND decides whether the NEAR list runs. Measured on 200 held-out sentences of the
 * Debian manuals (20k passages; docs/decisions/0059-near-check.md), asking for any one row, unranked: the two
 * rarest let 132 of them through to the NEAR list at 0.03 ms a check; four, 49 at 0.08 ms; half the terms, 27
 * at 0.18 ms; every term, 24 at 0.60 ms (its p99 5.3 ms: FTS5 seeks every common doclist to each candidate).
 * Four cuts the NEAR lists asked by two thirds for the price of a few seeks.
 */
const NEAR_CHECK_TERMS = 4;

/** A query term FTS5 tokenizes as one token whatever the script rules: ASCII letters and digits. */
const SINGLE_TOKEN = /^[A-Za-z0-9]+$/;

const group = (terms: readonly string[]) => `(${orExpression(terms, [])})`;

/**
 * The top `limit` rows of the full expression of `terms` (every term ORed plus the NEAR group of all of
 * them), with its scores, ranked without scoring the rows that can only hold terms too weak to reach the top.
 *
 * 1. Threshold: the OR of the rarest terms; its k-th score θ is a lower bound of the answer's k-th score,
 *    since a row's score over some phrases never exceeds its score over all of them.
 * 2. Split (prune.ts): non-essential terms, whose bounds summed stay below θ, and essential ones. A row
 *    holding only non-essential terms cannot reach θ, so the answer's rows all hold an essential term.
 * 3. Three expressions cover those rows, each scoring its rows with exactly their full-expression score:
 *    - essential NOT non-essential: rows holding no non-essential term, where the other phrases add nothing
 *      (nor can the NEAR group match: it needs every term);
 *      where the threshold query ORed exactly the essential terms, its own top k stands in (thresholdIsNotList);
 *    - essential AND non-essential: rows holding both, scored with every term's phrase;
 *    - every term AND the NEAR group: rows where the NEAR group matches, with every phrase in the full
 *      expression's order. Without a match FTS5 never scores a row, so this costs a few seeks.
 *    Only a NEAR row can surface in the second list below its full score, and then the third list holds k
 *    rows above it: the top k of the merged lists, each row at its most complete score, is the full
 *    expression's top k.
 * 4. Where the commonest non-essential words have FTS5's clamped IDF, the first two lists leave them out and
 *    their shares are added to the candidates at the cut afterwards, to the bit (clampedRanking, 0049).
 *
 * Every expression lists its phrases in one canonical order (canonicalOrder), the full one included, so each
 * list scores its rows bit for bit as the full expression does. Against the expression in the order the terms
 * were typed, scores can differ in the last bits (measured: at most 7.1e-15 on scores of ~10–40; 0022).
 */
export function prunedRanking(terms: readonly string[], limit: number, source: RankingSource): RankedRow[] {
  if (terms.length < 2 || limit < 1) return source.rank(orExpression(terms, terms), limit);
  const matching = new Map<string, number>();
  for (const term of terms) if (!matching.has(term)) matching.set(term, source.matchingAtLeast(term));
  const ordered = canonicalOrder(terms, matching);
  const full = orExpression(ordered, ordered);

  const thresholdExpression = orExpression(thresholdTerms(ordered, matching, limit), []);
  const threshold = source.rank(thresholdExpression, limit);
  const kth = threshold[limit - 1];
  // Fewer rows than asked for: every row of the full expression may be in the answer.
  if (kth === undefined) return source.rank(full, limit);

  const bounds = new Map([...matching].map(([term, n]) => [term, phraseBound(source.passages, n)]));
  // Given the terms rarest last, the split takes equal bounds from the end, so the non-essential terms are a
  // suffix of the canonical order and essential-then-non-essential is that order again.
  const split = splitByThreshold([...ordered].reverse(), bounds, -kth.rank);
  const position = new Map(ordered.map((term, i) => [term, i]));
  const canonically = (a: string, b: string) => (position.get(a) ?? 0) - (position.get(b) ?? 0);
  const essential = split.essential.sort(canonically);
  const nonEssential = split.nonEssential.sort(canonically);
  if (nonEssential.length === 0 || essential.length === 0) return source.rank(full, limit);

  const nearCan = nearCanMatch(ordered, matching, source);
  // The NEAR list comes last: it scores its rows more completely than the others, so it overwrites.
  const near = () =>
    nearCan ? source.rank(`${group(ordered)} AND ${orExpression([], ordered)}`, limit) : [];
  const clamped = clampedSuffix(ordered, nonEssential, matching, source.passages);
  const withClamped =
    clamped.length > 0 ? clampedRanking(essential, nonEssential, clamped, ordered, limit, source) : null;
  if (withClamped) return merged([withClamped, near()], limit);

  // A term in every passage leaves the NOT list empty; skipping it saves walking the essential terms' rows
  // (1.25 ms p50 of a long query at 20k passages, where the commonest word is in every passage).
  const everywhere = nonEssential.some((term) => (matching.get(term) ?? 0) >= source.passages);
  return merged(
    [
      everywhere
        ? []
        : thresholdIsNotList(thresholdExpression, essential)
          ? threshold
          : source.rank(`${group(essential)} NOT ${group(nonEssential)}`, limit),
      source.rank(`${group(essential)} AND ${group(nonEssential)}`, limit),
      near(),
    ],
    limit,
  );
}

/**
 * Whether the NEAR group can match anywhere. It needs every term in one row, so a term no passage holds, or
 * no row holding the NEAR_CHECK_TERMS rarest, leaves its list empty; and the NEAR list walks every term's
 * doclist and positions (~1.6 ms of a long question on 20k passages of real manuals), nearly always for no
 * row.
 */
function nearCanMatch(
  ordered: readonly string[],
  matching: ReadonlyMap<string, number>,
  source: RankingSource,
) {
  if (ordered.some((term) => (matching.get(term) ?? 0) === 0)) return false;
  const distinct = [...new Set(ordered)];
  if (distinct.length < 3) return true;
  const expression = distinct
    .slice(0, NEAR_CHECK_TERMS)
    .map((term) => `"${term}"`)
    .join(" AND ");
  return source.matchesAny ? source.matchesAny(expression) : source.rank(expression, 1).length > 0;
}

/** Each row at its score in the last list holding it, sorted by score then rowid, top `limit`. */
function merged(lists: readonly (readonly RankedRow[])[], limit: number): RankedRow[] {
  const best = new Map<number, number>();
  for (const list of lists) for (const row of list) best.set(row.rowid, row.rank);
  return [...best]
    .map(([rowid, rank]) => ({ rowid, rank }))
    .sort((a, b) => a.rank - b.rank || a.rowid - b.rowid)
    .slice(0, limit);
}

/**
 * The non-essential terms whose IDF FTS5 clamps (in half of all rows or more: "the", "to"), when they close
 * the canonical order and each is one token: the phrases whose shares can be added outside FTS5 to the
 * bit. Each share is below IDF_FLOOR·(k1+1), yet scoring them inside FTS5 walks their many positions in
 * every row an essential term is in: half of the essential lists' cost on real text (0049).
 */
function clampedSuffix(
  ordered: readonly string[],
  nonEssential: readonly string[],
  matching: ReadonlyMap<string, number>,
  passages: number,
): string[] {
  const inNonEssential = new Set(nonEssential);
  let start = ordered.length;
  while (start > 0) {
    const term = ordered[start - 1] ?? "";
    // log((N − n + 0.5)/(n + 0.5)) ≤ 0 exactly when n ≥ N − n: the quotient of two exact halves is ≤ 1.
    const isClamped = 2 * (matching.get(term) ?? 0) >= passages;
    if (!isClamped || !inNonEssential.has(term) || !SINGLE_TOKEN.test(term)) break;
    start--;
  }
  return ordered.slice(start);
}

/**
 * The rows holding an essential term, each at its full score but for the NEAR group (the caller's NEAR list
 * adds that), with the clamped phrases left out of FTS5's lists and their shares added afterwards:
 *
 * - `essential NOT rest` and `essential AND rest` (rest: the other non-essential terms) cover every row
 *   holding an essential term, each scored by FTS5 over every phrase but the clamped ones. Those are a
 *   prefix of the canonical order, so FTS5's sum is the full expression's sum up to them, bit for bit.
 * - A row's clamped shares together stay below their bound, ~1e-6 each: a row more than that below the k-th
 *   of these partial scores cannot reach the top k, so only the rows within it are candidates.
 * - Each candidate's clamped shares are added in the canonical order, by bm25()'s own arithmetic (bm25.ts)
 *   with bm25()'s own counts: the clamped IDF is the constant IDF_FLOOR, so no logarithm can differ, and the
 *   sum lands on the full expression's score exactly.
 *
 * Null when that would cost more than it saves (too many candidates tied at the cut) or a term's counts
 * cannot be read: the caller then lets FTS5 score every phrase.
 */
function clampedRanking(
  essential: readonly string[],
  nonEssential: readonly string[],
  clamped: readonly string[],
  ordered: readonly string[],
  limit: number,
  source: RankingSource,
): RankedRow[] | null {
  if (!source.termCounts) return null;
  const essentialRows = essential.reduce((sum, term) => sum + source.matchingAtLeast(term), 0);
  if (essentialRows < CLAMPED_MIN_ROWS_PER_LIMIT * limit) return null;
  const isClamped = new Set(clamped);
  const rest = nonEssential.filter((term) => !isClamped.has(term));
  const clampedBound = clamped.length * IDF_FLOOR * (BM25_K1 + 1) * (1 + BOUND_MARGIN);
  let asked = PARTIAL_ROWS_PER_LIMIT * limit;
  for (;;) {
    const lists =
      rest.length === 0
        ? [source.rank(group(essential), asked)]
        : [
            source.rank(`${group(essential)} NOT ${group(rest)}`, asked),
            source.rank(`${group(essential)} AND ${group(rest)}`, asked),
          ];
    const partial = merged(lists, Number.POSITIVE_INFINITY);
    const kth = partial[limit - 1];
    // FTS5's ranks are negated scores: a candidate's rank is at most the k-th's plus the bound.
    const cut = kth === undefined ? Number.POSITIVE_INFINITY : kth.rank + clampedBound;
    const complete = lists.every((list) => list.length < asked || (list[list.length - 1]?.rank ?? 0) > cut);
    if (!complete) {
      if (asked >= CLAMPED_CANDIDATES_PER_LIMIT * limit) return null;
      asked *= 2;
      continue;
    }
    const candidates = partial.filter((row) => row.rank <= cut);
    if (candidates.length > CLAMPED_CANDIDATES_PER_LIMIT * limit) return null;
    const counts = source.termCounts(
      candidates.map((row) => row.rowid),
      [...isClamped],
    );
    if (counts === null || counts.rows !== source.passages) return null;
    return candidates.map((row, i) => {
      const frequencies = counts.frequencies[i];
      const length = counts.lengths.get(row.rowid) ?? 0;
      // FTS5 adds a phrase's share to the running score, in expression order: so does this.
      let score = -row.rank;
      for (const term of ordered) {
        if (!isClamped.has(term)) continue;
        score += clampedShare(frequencies?.get(term) ?? 0, length, counts.averageLength);
      }
      return { rowid: row.rowid, rank: -score };
    });
  }
}

/**
 * The order every expression here lists its phrases in: rarest first, ties by the term, repeats side by side.
 * FTS5 sums a row's phrase shares in expression order, and floating-point sums depend on their order, so one
 * order for every list (and for the full expression, whether pruned or not) is what makes the same data
 * answer with the same scores to the last bit, whichever path a query took and whatever the order it was
 * typed in. `matching` counts must be exact for that (0022).
 */
export function canonicalOrder(terms: readonly string[], matching: ReadonlyMap<string, number>): string[] {
  return [...terms].sort(
    (a, b) => (matching.get(a) ?? 0) - (matching.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
  );
}

/**
 * Whether the threshold list can stand in for the NOT list in the merge: it can when it ORs exactly the
 * essential terms, in the same order. A row holding no non-essential term scores its essential shares alone in the full
 * expression (the NEAR group needs every term, and an absent phrase adds nothing), which is its score in the
 * threshold list, bit for bit (the same phrases in the same order, each with its own IDF). Such a row in the
 * answer's top k has fewer than k rows above it by essential shares alone (each of those scores at least that
 * much in full), ties by rowid as the lists order them, so it is in the threshold list's top k. A row there that
 * does hold a non-essential term comes in below its full score: if the AND or the NEAR list holds it, that
 * list's score replaces it; if not, the AND list's k rows each score above the essential part of its score,
 * which is what it comes in with, and it stays out of the top k. So the merge's top k is the one the NOT list
 * gives, and a statement is saved: on two-word questions of a rare word and a common one (20,024 passages of
 * Debian's manuals: "usual refers", 707 and 6,420 rows) the NOT list was 0.7–1.1 ms of a 3.3–4.6 ms search.
 * test/index/ranking/pruned-ranking.test.ts holds the answers to the full expression's to the bit, ties at the cut
 * included, and test/index/ranking/prune.test.ts's oracles through find().
 */
function thresholdIsNotList(thresholdExpression: string, essential: readonly string[]): boolean {
  return thresholdExpression === orExpression(essential, []);
}
