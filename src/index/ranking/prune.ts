// The planning half of long-query pruning (MaxScore over FTS5's bm25): pure arithmetic on term counts, no
// database. docs/decisions/0022-long-query-pruning.md gives the rule and its measurements; pruned-ranking.ts
// runs the plan.
//
// What it relies on, checked by experiment (0022): FTS5's bm25() sums one share per phrase of the
// expression (bm25.ts). So a share is below idf·(k1+1), and an expression holding some of the phrases scores
// a row with exactly their shares.

import { BM25_K1, phraseIdf } from "./bm25.js";

/**
 * Bounds are computed in JavaScript, FTS5's scores in C; their logarithms may differ in the last bit. One part
 * in a billion above the bound is far wider than that and still far below any share that matters.
 */
export const BOUND_MARGIN = 1e-9;

/**
 * How many rows the threshold query should reach, as a multiple of the limit: enough that its k-th score is
 * a useful threshold, few enough that finding it costs little. Measured on the long mix at 20k SciFact
 * passages (0022): with only the rarest one, two or three terms, 85%, 35% and 4% of queries found fewer
 * rows than the limit and had to run the full expression; at 8× the limit none of the 200 did, and 32× or
 * 128× only made the threshold query dearer.
 */
export const THRESHOLD_ROWS_PER_LIMIT = 8;

/**
 * The most rows the threshold query may reach, as a multiple of the limit: a query whose rare words are too
 * few would otherwise pull in a common one, and the threshold query would cost what the full expression
 * costs before the full expression runs anyway (measured on the short mix at 20k passages: p99 22.9 ms
 * against 17.4 ms for the full expression alone, before this cap).
 */
export const THRESHOLD_ROWS_CAP_PER_LIMIT = 64;

/**
 * The most one phrase can add to a row's score, given a lower bound on how many rows it matches (fewer rows,
 * higher IDF, so an undercount only loosens the bound).
 */
export function phraseBound(passages: number, matchingAtLeast: number): number {
  return phraseIdf(passages, Math.max(0, matchingAtLeast)) * (BM25_K1 + 1) * (1 + BOUND_MARGIN);
}

/**
 * The rarest terms whose rows together reach THRESHOLD_ROWS_PER_LIMIT × limit, rarest first, stopping before
 * a term that would take them past THRESHOLD_ROWS_CAP_PER_LIMIT × limit (the rarest is always taken).
 * `matching` is each term's row count; the threshold query ORs these.
 */
export function thresholdTerms(
  terms: readonly string[],
  matching: ReadonlyMap<string, number>,
  limit: number,
): string[] {
  const rarest = [...new Set(terms)].sort((a, b) => (matching.get(a) ?? 0) - (matching.get(b) ?? 0));
  const chosen: string[] = [];
  let rows = 0;
  for (const term of rarest) {
    const more = matching.get(term) ?? 0;
    if (chosen.length > 0 && rows + more > THRESHOLD_ROWS_CAP_PER_LIMIT * limit) break;
    chosen.push(term);
    rows += more;
    if (rows >= THRESHOLD_ROWS_PER_LIMIT * limit) break;
  }
  return chosen;
}

export interface TermSplit {
  /** Terms a top-k row must hold at least one of; in query order, repeats kept (each is its own phrase). */
  essential: string[];
  /** Terms whose bounds together stay below the threshold; in query order, repeats kept. */
  nonEssential: string[];
}

/**
 * MaxScore's split: the largest set of terms, taken from the smallest bound up, whose bounds summed stay
 * strictly below `threshold` (a score k rows are known to reach). A row holding none of the other terms can
 * score at most that sum — the NEAR group needs every term, so it adds nothing there — and so never reaches
 * the top k. `bounds` is each distinct term's bound; a term typed twice is two phrases and counts twice.
 */
export function splitByThreshold(
  terms: readonly string[],
  bounds: ReadonlyMap<string, number>,
  threshold: number,
): TermSplit {
  const phrases = new Map<string, number>();
  for (const term of terms) phrases.set(term, (phrases.get(term) ?? 0) + 1);
  const smallestFirst = [...phrases.keys()].sort((a, b) => (bounds.get(a) ?? 0) - (bounds.get(b) ?? 0));
  const below = new Set<string>();
  let sum = 0;
  for (const term of smallestFirst) {
    const bound = (bounds.get(term) ?? Number.POSITIVE_INFINITY) * (phrases.get(term) ?? 1);
    if (!(sum + bound < threshold)) break;
    sum += bound;
    below.add(term);
  }
  return {
    essential: terms.filter((t) => !below.has(t)),
    nonEssential: terms.filter((t) => below.has(t)),
  };
}

/**
 * Whether a question is ranked by its full expression rather than pruned: its terms' rows summed are at most
 * `rowsPerLimit` × the limit (FULL_RANKING_ROWS_PER_LIMIT in passage-searcher.ts). `rowsPerLimit` 0 prunes
 * every question that matches a row (the pruning oracles and bench/rare-terms.ts); infinity prunes none.
 */
export function ranksWhole(
  matching: ReadonlyMap<string, number>,
  limit: number,
  rowsPerLimit: number,
): boolean {
  let rows = 0;
  for (const n of matching.values()) rows += n;
  return rows <= rowsPerLimit * limit;
}
