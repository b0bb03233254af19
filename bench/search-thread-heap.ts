// What a search thread's young generation costs and saves: one search thread over the Debian corpus's index
// in process, 300 long questions one at a time, and the process's VmRSS before the thread started and after
// the questions, with the thread's young generation capped (SEARCH_THREAD_YOUNG_GENERATION_MB) or at V8's own
// bound (the thread-young-generation switch off, src/tuning.ts). Prints one JSON line. Alternate fresh
// processes to compare:
//   npx tsx bench/search-thread-heap.ts on|off [passages]

import { readFileSync } from "node:fs";
import { type IndexedDocument, PassageIndex } from "../src/index/passages/passage-index.js";
import { matchQuery } from "../src/index/query.js";
import { FEEDBACK } from "../src/index/ranking/feedback.js";
import { chunkDocument } from "../src/ingest/chunk.js";
import { SearchThreads } from "../src/runtime/search-threads.js";
import { ALL_TUNING_ON, tuningWithout } from "../src/tuning.js";
import { heldOutSentences, readDebianManuals } from "./debian-docs.js";
import { median } from "./stats.js";

const MiB = 1024 * 1024;
const QUESTIONS = 300;
const rss = () => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]) * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const capped = process.argv[2] !== "off";
const corpus = readDebianManuals(Number(process.argv[3] ?? 20_000));
const documents = corpus.indexed.map((doc, d): IndexedDocument => {
  const id = `doc${d}`;
  return {
    id,
    title: doc.title,
    path: doc.source.split("/").slice(0, -1),
    passages: chunkDocument(doc).map((p) => ({ chunkId: `${id}#${p.ordinal}`, ...p })),
  };
});
const questions = heldOutSentences(corpus, QUESTIONS).map((q) => matchQuery(q));
// Feedback on, as the server runs it.
const index = new PassageIndex({ feedback: FEEDBACK });
index.apply(documents);
while (index.wholeMergeStep()) {}
const threads = new SearchThreads({
  threads: 1,
  busyTimeoutMs: 5000,
  minPassages: 0,
  inlineMaxTerms: 0,
  tuning: capped ? ALL_TUNING_ON : tuningWithout(["thread-young-generation"]),
});
await sleep(1000);
const before = rss();
const times: number[] = [];
for (let i = 0; i < QUESTIONS; i++) {
  const started = performance.now();
  await threads.find(index, questions[i % questions.length] ?? matchQuery("warmup"), 20);
  times.push(performance.now() - started);
}
await sleep(1500);
const after = rss();
const sorted = [...times].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    youngGeneration: capped ? "capped" : "V8's own",
    passages: index.counts().chunks,
    threadMiB: Number(((after - before) / MiB).toFixed(1)),
    p50ms: Number(median(times).toFixed(2)),
    p99ms: Number((sorted[Math.floor(0.99 * sorted.length)] ?? Number.NaN).toFixed(2)),
    load: readFileSync("/proc/loadavg", "utf8").split(" ")[0],
  }),
);
await threads.close();
index.close();
