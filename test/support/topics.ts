// A corpus of topics: each document draws most words from its topic's own vocabulary, some from everywhere,
// so the best passages for a query share words the query does not hold — what feedback feeds on. Large
// enough (over FEEDBACK.minCorpus passages) for feedback to act; one passage a document.

import { mulberry32 } from "../../bench/corpus.js";
import type { IndexedDocument } from "../../src/index/passages/passage-index.js";

export const TOPICS = 40;
export const topicWord = (topic: number, i: number) => `t${topic}w${i}`;
const commonWords = ["the", "of", "and", "flow", "model", "result"];

/**
 * `documents` one-passage documents, deterministic for a seed. `structured` gives each passage a heading and
 * each document a folder path drawn from its topic too, so every column bm25() weighs holds the topic's words.
 */
export function topicCorpus(seed: number, documents: number, structured = false): IndexedDocument[] {
  const random = mulberry32(seed);
  const word = (topic: number) =>
    random() < 0.35
      ? (commonWords[Math.floor(random() * commonWords.length)] as string)
      : topicWord(topic, Math.floor(random() * random() * 30));
  return Array.from({ length: documents }, (_, d) => {
    const topic = d % TOPICS;
    const words = (n: number) => Array.from({ length: n }, () => word(topic)).join(" ");
    return {
      id: `d${String(d).padStart(5, "0")}`,
      title: words(3),
      path: structured ? [`area${topic % 4}`, words(1)] : [],
      passages: [
        {
          chunkId: `d${d}.0`,
          ordinal: 0,
          heading: structured ? words(2) : "",
          text: words(20 + Math.floor(random() * 40)),
        },
      ],
    };
  });
}
