// Runs the long-query pruning plan (prune.ts) as a handful of FTS5 expressions, each holding some of the full
// expression's phrases, and merges their top k into the full expression's top k. The rule, the proof and
// the measurements: docs/decisions/0022-long-query-pruning.md.

import { phraseBound, splitByThreshold, thresholdTerms } from "./prune.js";
import { orExpression } from "./query.js";

export interface RankedRow {
  rowid: number;
  /** bm25() as FTS5 returns it: negative, smaller is better. */
  rank: number;
}

export interface RankingSource {
  /** Rows matching `expression`, best first, ties by rowid (which is the contract's tie order here). */
  rank(expression: string, limit: number): RankedRow[];
  /** A lower bound on the rows holding `term` now; only the bounds and the threshold query depend on it. */
  matchingAtLeast(term: string): number;
  /** Rows in the table, as bm25() counts them. */
  passages: number;
}

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
 *    - essential AND non-essential: rows holding both, scored with every term's phrase;
 *    - every term AND the NEAR group: rows where the NEAR group matches, with every phrase in the full
 *      expression's order. Without a match FTS5 never scores a row, so this costs a few seeks.
 *    Only a NEAR row can surface in the second list below its full score, and then the third list holds k
 *    rows above it: the top k of the merged lists, each row at its most complete score, is the full
 *    expression's top k.
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

  const threshold = source.rank(orExpression(thresholdTerms(ordered, matching, limit), []), limit);
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

  const best = new Map<number, number>();
  // A term in every passage leaves the NOT list empty; skipping it saves walking the essential terms' rows
  // (1.25 ms p50 of a long query at 20k passages, where the commonest word is in every passage).
  const everywhere = nonEssential.some((term) => (matching.get(term) ?? 0) >= source.passages);
  // The NEAR list comes last: it scores its rows more completely than the second one, so it overwrites.
  const lists = [
    everywhere ? [] : source.rank(`${group(essential)} NOT ${group(nonEssential)}`, limit),
    source.rank(`${group(essential)} AND ${group(nonEssential)}`, limit),
    source.rank(`${group(ordered)} AND ${orExpression([], ordered)}`, limit),
  ];
  for (const list of lists) for (const row of list) best.set(row.rowid, row.rank);
  return [...best]
    .map(([rowid, rank]) => ({ rowid, rank }))
    .sort((a, b) => a.rank - b.rank || a.rowid - b.rowid)
    .slice(0, limit);
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
