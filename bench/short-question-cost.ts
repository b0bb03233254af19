// `npx tsx bench/short-question-cost.ts [passages] [rounds]`: where a two-word search's time goes inside the
// passage index, on real text (Debian's manuals, bench/debian-docs.ts), in one process. Each question is asked
// of the plain FTS5 OR floor (bench/floor.ts) and of memoria's index in turn, so load moves both alike; then
// the snippets of its hits are cut alone (all through FTS5's snippet table, and with ASCII bodies in JS), and its
// hits' text blocks inflated alone. Prints medians and p99 as
// ratios to the floor of the same run.

import { IndexDatabase } from "../src/index/engine.js";
import { InflatedBlocks } from "../src/index/passages/inflated-blocks.js";
import { TRAIL_SEPARATOR } from "../src/index/passages/passage-document.js";
import { PassageIndex } from "../src/index/passages/passage-index.js";
import { packBlock, TextBlock, textBlocks } from "../src/index/passages/passage-text.js";
import { matchQuery, queryTerms } from "../src/index/query.js";
import { type SnippetSource, SnippetTable } from "../src/index/snippets/snippet-table.js";
import type { CorpusPassage } from "./corpus.js";
import { heldOutSentences, indexedDocuments, readDebianManuals } from "./debian-docs.js";
import { openQueryFloor, SEARCH_LIMIT } from "./floor.js";
import { latency } from "./stats.js";

/** The bench's held-out question count: enough for a stable median. */
const QUESTIONS = 200;

export function benchShortQuestionCost(passages: number, rounds: number): void {
  const corpus = readDebianManuals(passages);
  const documents = indexedDocuments(corpus);
  const source = new Map<string, SnippetSource>();
  // Each passage's block, and its place in it.
  const blockOf = new Map<string, { packed: Uint8Array; at: number }>();
  for (const doc of documents) {
    const stored = doc.passages.map((p) => ({ chunkId: p.chunkId, heading: p.heading, body: p.text }));
    for (const block of textBlocks(stored)) {
      const packed = packBlock(block);
      for (const [at, p] of block.entries()) blockOf.set(p.chunkId, { packed, at });
    }
    for (const p of doc.passages) {
      source.set(p.chunkId, {
        heading: p.heading,
        body: p.text,
        title: doc.title,
        path: doc.path.join(TRAIL_SEPARATOR),
      });
    }
  }
  const plain: CorpusPassage[] = [...source.values()];
  const floorTable = openQueryFloor(plain);
  const index = new PassageIndex();
  index.apply(documents);
  while (index.wholeMergeStep()) {}
  const passagesWith = new Map<string, number>();
  for (const p of plain) {
    for (const word of new Set(queryTerms(`${p.title} ${p.heading} ${p.body}`.toLowerCase()))) {
      passagesWith.set(word, (passagesWith.get(word) ?? 0) + 1);
    }
  }
  // Two words of a held-out sentence, each in 2–200 passages: rare, not absent, as people type them.
  const questions: string[] = [];
  for (const sentence of heldOutSentences(corpus, 2000, 6, 40)) {
    const terms = [...new Set(queryTerms(sentence.toLowerCase()))]
      .map((term) => ({ term, n: passagesWith.get(term) ?? 0 }))
      .filter((t) => t.n >= 2 && t.n <= 200 && t.term.length > 3)
      .sort((a, b) => a.n - b.n || (a.term < b.term ? -1 : 1));
    if (terms.length < 2) continue;
    questions.push(`${terms[0]?.term} ${terms[1]?.term}`);
    if (questions.length >= QUESTIONS) break;
  }
  const snippetDb = new IndexDatabase(":memory:");
  const snippets = new SnippetTable(snippetDb);
  const floor: number[] = [];
  const find: number[] = [];
  const cut: number[] = [];
  const cutInJs: number[] = [];
  const inflate: number[] = [];
  const inflateKept: number[] = [];
  // Kept blocks live across rounds in a searcher; here a fresh set each round, so a question asked again
  // finds only what the questions since its last asking left, as distinct questions would.
  let kept = new InflatedBlocks();
  const blockIds = new Map<Uint8Array, number>();
  // Hits whose four columns repeat an earlier hit of the same search: what cutting each distinct row once
  // could spare.
  let hitCount = 0;
  let repeated = 0;
  for (let r = 0; r < rounds; r++) {
    kept = new InflatedBlocks();
    for (const question of questions) {
      const query = matchQuery(question);
      floor.push(floorTable.time(question));
      let t = performance.now();
      const hits = index.find(query, SEARCH_LIMIT);
      find.push(performance.now() - t);
      const sources = hits.flatMap((h) => source.get(h.chunkId) ?? []);
      const distinct = new Set(sources.map((p) => JSON.stringify([p.heading, p.body, p.title, p.path])));
      hitCount += sources.length;
      repeated += sources.length - distinct.size;
      t = performance.now();
      snippets.cut(sources, query.expression);
      cut.push(performance.now() - t);
      // The hits match the query's own phrases, so their ASCII bodies may be cut in JS (ascii-snippet.ts).
      t = performance.now();
      snippets.cut(sources, query.expression, query.terms);
      cutInJs.push(performance.now() - t);
      const places = hits.flatMap((h) => blockOf.get(h.chunkId) ?? []);
      // As the searcher reads them: each block inflated once, each hit's own passage decoded.
      t = performance.now();
      const inflated = new Map<Uint8Array, TextBlock>();
      for (const { packed, at } of places) {
        let block = inflated.get(packed);
        if (!block) {
          block = TextBlock.inflate(packed);
          inflated.set(packed, block);
        }
        block.passage(at);
      }
      inflate.push(performance.now() - t);
      t = performance.now();
      for (const { packed, at } of places) {
        let id = blockIds.get(packed);
        if (id === undefined) {
          id = blockIds.size;
          blockIds.set(packed, id);
        }
        kept.blockOf(id, packed).passage(at);
      }
      inflateKept.push(performance.now() - t);
    }
  }
  const f = latency(floor);
  console.log(
    `\nshort questions — ${plain.length} passages of ${corpus.packages.length} Debian manuals, ` +
      `${questions.length} two-word questions × ${rounds} rounds, limit ${SEARCH_LIMIT}, in process`,
  );
  console.log(`| part | p50 ms | p50 / floor p50 | p99 / floor p99 |\n|---|---|---|---|`);
  for (const [name, times] of [
    ["floor (plain FTS5 OR)", floor],
    ["find()", find],
    ["snippets alone, all through the table", cut],
    ["snippets alone, ASCII bodies in JS", cutInJs],
    ["inflating the hits' blocks alone", inflate],
    ["the same through the kept blocks", inflateKept],
  ] as const) {
    const l = latency(times);
    console.log(
      `| ${name} | ${l.p50.toFixed(3)} | ${(l.p50 / f.p50).toFixed(2)}× | ${(l.p99 / f.p99).toFixed(2)}× |`,
    );
  }
  console.log(`hits repeating an earlier hit's four columns in the same search: ${repeated} of ${hitCount}`);
  // How often a hit's block was inflated for an earlier, different question: what a cache of inflated blocks
  // kept across searches could spare, on distinct questions (one round: repeats would flatter it).
  for (const size of [64, 256, 1024]) {
    const kept = new Map<Uint8Array, true>();
    let reads = 0;
    let found = 0;
    for (const question of questions) {
      const hits = index.find(matchQuery(question), SEARCH_LIMIT);
      for (const block of new Set(hits.flatMap((h) => blockOf.get(h.chunkId)?.packed ?? []))) {
        reads++;
        if (kept.delete(block)) found++;
        kept.set(block, true);
        if (kept.size > size) kept.delete(kept.keys().next().value as Uint8Array);
      }
    }
    console.log(
      `blocks kept ${size}: ${found} of ${reads} block reads (${((100 * found) / reads).toFixed(0)}%) found`,
    );
  }
  snippetDb.close();
  floorTable.close();
  index.close();
}

benchShortQuestionCost(Number(process.argv[2] ?? 19_000), Number(process.argv[3] ?? 3));
