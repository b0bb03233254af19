// Words too common to matter, which the page's snippets do not highlight. Search still matches and ranks them
// (FTS5's BM25 already gives a word found everywhere almost no weight); only the page's <mark>s leave them
// out, so "how to deploy the worker" marks "deploy" and "worker", not every "to" and "the". The search API's
// snippets keep every matched term marked: a client reads marks as "where the query matched", and decides
// for itself what to show (decision 0042).

/**
 * English function words: articles, pronouns, auxiliaries, prepositions and conjunctions, the closed-class
 * words that carry no topic. Kept short on purpose: a content word wrongly listed here would lose its mark.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between " +
    "both but by can could did do does doing down during each few for from further had has have having he her " +
    "here hers herself him himself his how i if in into is it its itself just me more most my myself no nor " +
    "not now of off on once only or other our ours ourselves out over own same she should so some such than " +
    "that the their theirs them themselves then there these they this those through to too under until up " +
    "very was we were what when where which while who whom why will with would you your yours yourself " +
    "yourselves"
  ).split(" "),
);

/** Whether a marked piece of a snippet is a stop word (case and surrounding space ignored). */
export function isStopWord(text: string): boolean {
  return STOP_WORDS.has(text.trim().toLowerCase());
}
