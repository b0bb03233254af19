// Pseudo-relevance feedback, RM3-style, with FTS5's own BM25 doing the scoring: the words the best first-pass
// passages share, weighted by how strongly those passages matched and how rare each word is, are added to the
// query, which then runs again. Pure: the passages' term counts come in, the expanded expression goes out;
// passage-index.ts reads the counts from FTS5. docs/decisions/0025-feedback.md holds the measurements behind
// every parameter.

export interface FeedbackParameters {
  /** First-pass passages the expansion words are drawn from. */
  passages: number;
  /** Expansion words added to the query. */
  terms: number;
  /** Times each of the person's own terms is repeated in the second pass (FTS5 sums repeated phrases). */
  queryRepeats: number;
  /** Repeats the heaviest expansion word gets; lighter ones get proportionally fewer, never less than one. */
  expansionLevels: number;
  /** A word in more than this share of all passages is too common to say what the query is about. */
  maxShare: number;
  /** Below this many passages a corpus is too small to draw word statistics from: no feedback. */
  minCorpus: number;
}

/**
 * Measured on Cranfield through `npm run eval` (docs/decisions/0025-feedback.md): three feedback passages,
 * twenty words, the person's terms three times over and two weight levels reached nDCG@10 0.4006 against
 * 0.3620 without feedback. More passages (5) or words (30, 40) were no better; the person's terms once
 * (0.3801) or twice (0.3970) let the expansion words pull the answer away from the question. Words in over a
 * tenth of all passages say nothing about a query. Below 1,000 passages there is no feedback: the words of
 * three passages among tens are the corpus's own vocabulary, not the query's topic.
 */
export const FEEDBACK: FeedbackParameters = {
  passages: 3,
  terms: 20,
  queryRepeats: 3,
  expansionLevels: 2,
  maxShare: 0.1,
  minCorpus: 1000,
};

export interface FeedbackPassage {
  /** Its first-pass score (BM25 negated, larger is better). */
  score: number;
  /** Each indexed token of the passage (stemmed, as FTS5 holds it) and how often it occurs. */
  termCounts: ReadonlyMap<string, number>;
}

export interface ExpansionTerm {
  term: string;
  weight: number;
  repeats: number;
}

/**
 * The expansion words, heaviest first (ties by the word, so the same data always expands the same way).
 * A word's weight is Σ over the passages of P(passage) · tf/len, P ∝ exp(score − best score) — the relevance
 * model of RM3 — times its IDF, so a word every passage repeats does not crowd out the rare ones that say what
 * the top passages are about. The query's own stems, digits-only tokens, one- and two-letter tokens and words
 * the corpus lacks or holds too often are left out.
 */
export function expansionTerms(
  top: readonly FeedbackPassage[],
  queryStems: ReadonlySet<string>,
  passagesWith: (term: string) => number,
  corpusPassages: number,
  p: FeedbackParameters,
): ExpansionTerm[] {
  if (corpusPassages < p.minCorpus || top.length === 0 || p.terms < 1) return [];
  const best = Math.max(...top.map((t) => t.score));
  const likelihoods = top.map((t) => Math.exp(t.score - best));
  const total = likelihoods.reduce((sum, l) => sum + l, 0);
  const model = new Map<string, number>();
  top.forEach((passage, i) => {
    let length = 0;
    for (const count of passage.termCounts.values()) length += count;
    if (length === 0) return;
    const share = (likelihoods[i] ?? 0) / total;
    for (const [term, count] of passage.termCounts) {
      model.set(term, (model.get(term) ?? 0) + (share * count) / length);
    }
  });
  const ceiling = corpusPassages * p.maxShare;
  const weighted: { term: string; weight: number }[] = [];
  for (const [term, likelihood] of model) {
    if (queryStems.has(term) || term.length < 3 || /^\p{N}+$/u.test(term)) continue;
    const n = passagesWith(term);
    if (n < 1 || n > ceiling) continue;
    weighted.push({ term, weight: likelihood * Math.log((corpusPassages - n + 0.5) / (n + 0.5)) });
  }
  weighted.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  const chosen = weighted.slice(0, p.terms);
  const heaviest = chosen[0]?.weight ?? 0;
  return chosen.map((t) => ({
    ...t,
    repeats: Math.max(1, Math.round((t.weight / heaviest) * p.expansionLevels)),
  }));
}

/**
 * The second pass's terms, each one FTS5 phrase: the person's terms repeated `queryRepeats` times (FTS5 sums
 * a repeated phrase's score, so this is their weight), then each expansion word its repeats.
 */
export function expandedTerms(
  queryTerms: readonly string[],
  expansion: readonly ExpansionTerm[],
  p: FeedbackParameters,
): string[] {
  const terms: string[] = [];
  for (let i = 0; i < p.queryRepeats; i++) terms.push(...queryTerms);
  for (const t of expansion) for (let i = 0; i < t.repeats; i++) terms.push(t.term);
  return terms;
}
