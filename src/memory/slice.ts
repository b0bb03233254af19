// Ranks a candidate pool by reciprocal-rank fusion and fills a token budget from the top.
//
// Three ordinal lists vote: recency (re-derived here from createdAt and id, so the caller's order never
// matters), relevance (the match order exactly as given: it is the ranking, not a set) and project membership
// (the project's entries, newest first). An entry's score is the sum over the lists it is on of
// weight / (K + rank). The project is a boost, never a filter: an entry of another project still ranks on
// recency and relevance. Ranks, not ages or BM25 scores, so no list's scale can drown the others and the same
// pool ranks the same at any time of day.

import { FUSION_K, WEIGHT_MATCH, WEIGHT_PROJECT, WEIGHT_RECENCY } from "./constants.js";
import { type MemoryEntry, newerFirst } from "./entry.js";
import { estimateTokens, minimumTokens, renderLine } from "./line.js";

export interface SliceOptions {
  /** Entry ids in relevance order (the match read's order); empty when there was no query. */
  matched: readonly string[];
  /** The project to boost; null for none. */
  project: string | null;
  /** Tokens the included lines may cost together; a whole number above zero. */
  budget: number;
}

export interface SliceItem {
  entry: MemoryEntry;
  line: string;
  /** The line's estimated cost, computed from the line itself so the two cannot disagree. */
  tokens: number;
  /** The fused RRF score. */
  score: number;
  /** 1-based position in the full fused ranking, skipped entries included. */
  rank: number;
}

export interface SliceResult {
  /** The included entries, in rank order. */
  items: SliceItem[];
  /** Distinct entries in the pool. */
  candidates: number;
  included: number;
  skipped: number;
  estimatedTokens: number;
  budget: number;
}

/**
 * An entry's fused score as an exact fraction. Summed as floating point, two equal scores made of the same
 * terms in another order (1/62 + 1/70 + 1/61 and 1/70 + 1/61 + 1/62) can differ in the last bit, and the
 * rounding, not the tie-break, would order them. With the weights whole numbers (they are 1.0) numerator and
 * denominator stay whole and exact: a denominator is at most (K + pool size)³, 2.9e8 for 600 candidates.
 */
interface Fraction {
  num: number;
  den: number;
}

/** Adds weight / (K + rank) for each position of `list` to its entry's score. */
function vote(scores: Map<string, Fraction>, list: readonly string[], weight: number): void {
  list.forEach((id, i) => {
    const d = FUSION_K + i + 1;
    const score = scores.get(id);
    if (score) {
      score.num = score.num * d + weight * score.den;
      score.den *= d;
    } else scores.set(id, { num: weight, den: d });
  });
}

/** Compares a/b with c/d exactly: by Number while the cross products are exact, else by BigInt. */
function compareFractions(a: Fraction, b: Fraction): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  if (left <= Number.MAX_SAFE_INTEGER && right <= Number.MAX_SAFE_INTEGER) return left - right;
  const l = BigInt(a.num) * BigInt(b.den);
  const r = BigInt(b.num) * BigInt(a.den);
  return l < r ? -1 : l > r ? 1 : 0;
}

export function fuse(
  pool: readonly MemoryEntry[],
  options: Pick<SliceOptions, "matched" | "project">,
): { entry: MemoryEntry; score: number }[] {
  const byId = new Map<string, MemoryEntry>();
  for (const entry of pool) if (!byId.has(entry.id)) byId.set(entry.id, entry);
  const recency = [...byId.values()].sort(newerFirst);
  const scores = new Map<string, Fraction>();
  vote(
    scores,
    recency.map((e) => e.id),
    WEIGHT_RECENCY,
  );
  const matched = [...new Set(options.matched)].filter((id) => byId.has(id));
  vote(scores, matched, WEIGHT_MATCH);
  if (options.project !== null) {
    const project = options.project;
    vote(
      scores,
      recency.filter((e) => e.project === project).map((e) => e.id),
      WEIGHT_PROJECT,
    );
  }
  const zero: Fraction = { num: 0, den: 1 };
  return recency
    .map((entry) => ({ entry, fraction: scores.get(entry.id) ?? zero }))
    .sort((a, b) => compareFractions(b.fraction, a.fraction) || newerFirst(a.entry, b.entry))
    .map(({ entry, fraction }) => ({ entry, score: fraction.num / fraction.den }));
}

/**
 * The fused ranking cut to the budget, skip-and-continue: a line that does not fit in what is left is
 * skipped and the walk goes on, so a cheaper line further down can still be included. Stopping at the first
 * misfit would hand back a block with room to spare and the next entry left out.
 */
export function slice(pool: readonly MemoryEntry[], options: SliceOptions): SliceResult {
  if (!Number.isInteger(options.budget) || options.budget <= 0) {
    throw new RangeError("budget must be a whole number above zero");
  }
  const ranked = fuse(pool, options);
  const items: SliceItem[] = [];
  let left = options.budget;
  for (const [i, { entry, score }] of ranked.entries()) {
    // Every line costs at least one token, so with nothing left the rest are skipped unrendered; so is a line
    // whose fixed parts alone are over what is left.
    if (left === 0) break;
    if (minimumTokens(entry) > left) continue;
    const line = renderLine(entry);
    const tokens = estimateTokens(line);
    if (tokens > left) continue;
    items.push({ entry, line, tokens, score, rank: i + 1 });
    left -= tokens;
  }
  return {
    items,
    candidates: ranked.length,
    included: items.length,
    skipped: ranked.length - items.length,
    estimatedTokens: options.budget - left,
    budget: options.budget,
  };
}
