// `npm run bench -- --suites feedback`: what pseudo-relevance feedback costs a search, by question length, on
// real text (Debian's manuals, bench/debian-docs.ts). In one process: memoria's passage index with feedback,
// the same index without it, and the plain FTS5 OR floor (bench/floor.ts) over the same passages, each
// question asked of all three in turn, so load moves the three alike. Prints medians and p99 as ratios to the
// floor of the same run. Its gain, by question length, is `npm run eval -- --terms N` (eval/run.ts).

import { PassageIndex } from "../src/index/passages/passage-index.js";
import { matchQuery, queryTerms } from "../src/index/query.js";
import { FEEDBACK } from "../src/index/ranking/feedback.js";
import type { CorpusPassage } from "./corpus.js";
import { heldOutSentences, indexedDocuments, readDebianManuals } from "./debian-docs.js";
import { openQueryFloor, SEARCH_LIMIT } from "./floor.js";
import { latency } from "./stats.js";

/** Questions of each length: enough for a stable median and a p99 that is not one outlier. */
const QUESTIONS_PER_LENGTH = 200;

/**
 * Short questions as people type them: `words` words of one held-out sentence that the index holds in few
 * passages (2 to 200 of 20,000: rare, not absent), so each question has answers to rank.
 */
function shortQuestions(
  sentences: readonly string[],
  counts: (term: string) => number,
  words: number,
): string[] {
  const out: string[] = [];
  for (const sentence of sentences) {
    const terms = [...new Set(queryTerms(sentence.toLowerCase()))]
      .map((term) => ({ term, n: counts(term) }))
      .filter((t) => t.n >= 2 && t.n <= 200 && t.term.length > 3)
      .sort((a, b) => a.n - b.n || (a.term < b.term ? -1 : 1));
    if (terms.length < words) continue;
    out.push(
      terms
        .slice(0, words)
        .map((t) => t.term)
        .join(" "),
    );
    if (out.length >= QUESTIONS_PER_LENGTH) break;
  }
  return out;
}

export function benchFeedbackCost(passages: number, rounds: number): void {
  const corpus = readDebianManuals(passages);
  const documents = indexedDocuments(corpus);
  const plain: CorpusPassage[] = documents.flatMap((doc) =>
    doc.passages.map((p) => ({
      heading: p.heading,
      body: p.text,
      title: doc.title,
      path: doc.path.join(" › "),
    })),
  );
  const floorTable = openQueryFloor(plain);
  const withFeedback = new PassageIndex({ feedback: FEEDBACK });
  const without = new PassageIndex();
  withFeedback.apply(documents);
  without.apply(documents);
  while (withFeedback.wholeMergeStep()) {}
  while (without.wholeMergeStep()) {}
  const sentences = heldOutSentences(corpus, 1000, 6, 40);
  // Passages holding each word, as lower-cased runs of letters: close enough to FTS5's count to call a word
  // rare, and one pass over the text instead of a search a word.
  const passagesWith = new Map<string, number>();
  for (const p of plain) {
    for (const word of new Set(queryTerms(`${p.title} ${p.heading} ${p.body}`.toLowerCase()))) {
      passagesWith.set(word, (passagesWith.get(word) ?? 0) + 1);
    }
  }
  const counts = (term: string) => passagesWith.get(term) ?? 0;
  const long = heldOutSentences(corpus, QUESTIONS_PER_LENGTH);
  const mixes: { name: string; questions: string[] }[] = [
    { name: "2 rare words", questions: shortQuestions(sentences, counts, 2) },
    { name: "4 rare words", questions: shortQuestions(sentences, counts, 4) },
    { name: "6 rare words", questions: shortQuestions(sentences, counts, 6) },
    { name: "10–20 words", questions: long },
  ];
  console.log(
    `\nfeedback's cost — ${plain.length} passages of ${corpus.packages.length} Debian manuals ` +
      `(${corpus.indexed.length} documents, ${corpus.heldOut.length} held out), in process, ${rounds} rounds`,
  );
  console.log("| questions | n | floor p50 ms | off p50 | on p50 | off p99 | on p99 | on − off p50 ms |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const { name, questions } of mixes) {
    const floor: number[] = [];
    const off: number[] = [];
    const on: number[] = [];
    const queries = questions.map(matchQuery);
    for (let r = 0; r < rounds; r++) {
      for (const [i, question] of questions.entries()) {
        const query = queries[i];
        if (!query) continue;
        floor.push(floorTable.time(question));
        let t = performance.now();
        without.find(query, SEARCH_LIMIT);
        off.push(performance.now() - t);
        t = performance.now();
        withFeedback.find(query, SEARCH_LIMIT);
        on.push(performance.now() - t);
      }
    }
    const f = latency(floor);
    const a = latency(off);
    const b = latency(on);
    console.log(
      `| ${name} | ${questions.length} | ${f.p50.toFixed(3)} | ${(a.p50 / f.p50).toFixed(2)}× | ` +
        `${(b.p50 / f.p50).toFixed(2)}× | ${(a.p99 / f.p99).toFixed(2)}× | ${(b.p99 / f.p99).toFixed(2)}× | ` +
        `${(b.p50 - a.p50).toFixed(2)} |`,
    );
  }
  floorTable.close();
  withFeedback.close();
  without.close();
}
