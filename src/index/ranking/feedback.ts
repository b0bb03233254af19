// Pseudo-relevance feedback, RM3-style: the words the best first-pass passages share, weighted by how
// strongly those passages matched and how rare each word is, are added to the query, and the first pass's
// best candidates are scored again with them, by the arithmetic of FTS5's own bm25 (bm25.ts). Pure: the
// passages' term counts come in, the words and the new scores go out; passage-index.ts reads the counts from
// FTS5. docs/decisions/0025-feedback.md and 0027-feedback-rescoring.md hold the measurements behind every
// parameter.

import { phraseIdf, phraseShare } from "./bm25.js";

export interface FeedbackParameters {
  /** First-pass passages the expansion words are drawn from. */
  passages: number;
  /** Expansion words added to the query. */
  terms: number;
  /** How many times one share of an expansion word the first pass's score weighs in the rescored one. */
  queryRepeats: number;
  /** Repeats the heaviest expansion word gets; lighter ones get proportionally fewer, never less than one. */
  expansionLevels: number;
  /** A word in more than this share of all passages is too common to say what the query is about. */
  maxShare: number;
  /** Below this many passages a corpus is too small to draw word statistics from: no feedback. */
  minCorpus: number;
  /** First-pass passages scored again with the expansion words; a search asking for more rescores its limit. */
  candidates: number;
  /** Questions of fewer words than this are answered by the first pass alone: feedback costs them more than it gives. */
  minQueryTerms: number;
}

/**
 * Measured on Cranfield (docs/decisions/0025-feedback.md, 0027-feedback-rescoring.md): three feedback
 * passages, twenty words, the person's terms three times over and two weight levels are the best of their
 * neighbours both when the expansion ran as a second search (nDCG@10 0.4006) and now that it rescores the
 * first pass's candidates (0.3959 rescoring 20, 0.4023 rescoring 100, against 0.3620 without feedback). The
 * person's terms twice (0.3919) or four times (0.3928), 10 or 30 words (0.3894, 0.3873), 2 or 5 passages
 * (0.3921, 0.3947) were all worse at 20 candidates. Words in over a tenth of all passages say nothing about a
 * query. Below 1,000 passages there is no feedback: the words of three passages among tens are the corpus's
 * own vocabulary, not the query's topic.
 *
 * Twenty candidates, the search's default limit: each one more costs its tokenizing, ~50 µs, and rescoring 50
 * took the long mix's p50 from 0.47× to 0.61× the floor (20k SciFact-shaped passages), over the 0.6 target,
 * for nDCG@10 0.3999 against 0.3959. A search asking for more hits rescores that many.
 */
/**
 * Feedback by question length (docs/decisions/0036-feedback-by-length.md): on Cranfield's judgments, a
 * question cut to its 2 rarest words gains nDCG@10 +0.0097 from feedback (0.1366 → 0.1463 at the default
 * limit), 3 words +0.0209, the full questions +0.0339; while on 20,000 passages of real manuals feedback
 * multiplies a two-word search's own cost several times over (the table in the record). Two words is what
 * people type into a search box, and what must answer near the floor; three and more gain twice as much.
 */
export const MIN_FEEDBACK_TERMS = 3;

export const FEEDBACK: FeedbackParameters = {
  passages: 3,
  terms: 20,
  queryRepeats: 3,
  expansionLevels: 2,
  maxShare: 0.1,
  minCorpus: 1000,
  candidates: 20,
  minQueryTerms: MIN_FEEDBACK_TERMS,
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

/** A first-pass candidate as rescoring sees it. */
export interface FeedbackCandidate {
  /** Its first-pass score (BM25 negated, larger is better). */
  score: number;
  /** Its length in tokens, all columns together (bm25()'s D). */
  length: number;
  /** The column-weighted frequency (bm25()'s f) of each expansion word it holds. */
  frequencies: ReadonlyMap<string, number>;
}

/** What rescoring needs of the whole index: bm25()'s N and avgD, and each expansion word's row count. */
export interface FeedbackCorpus {
  passages: number;
  averageLength: number;
  passagesWith: (term: string) => number;
}

/**
 * A candidate's score with the expansion: its first-pass score plus each expansion word's bm25() share, its
 * repeats times over, divided by `queryRepeats`. So the person's terms weigh `queryRepeats` times one share of
 * an expansion word, and the score stays on the first pass's scale: a search that was not expanded (a small
 * team, no word qualifying, feedback off) answers scores of the same size. Before the division, the sum is
 * what FTS5 would give the candidate for an OR of the first pass's full expression, `queryRepeats` times over,
 * and of the expansion words' phrases — except that a word is counted by its own token, not as a query would
 * stem it again (docs/decisions/0027-feedback-rescoring.md).
 */
export function feedbackScore(
  candidate: FeedbackCandidate,
  expansion: readonly ExpansionTerm[],
  corpus: FeedbackCorpus,
  p: FeedbackParameters,
): number {
  let expansionShares = 0;
  for (const t of expansion) {
    const frequency = candidate.frequencies.get(t.term) ?? 0;
    if (frequency === 0) continue;
    const idf = phraseIdf(corpus.passages, corpus.passagesWith(t.term));
    expansionShares += t.repeats * phraseShare(idf, frequency, candidate.length, corpus.averageLength);
  }
  return candidate.score + expansionShares / p.queryRepeats;
}
