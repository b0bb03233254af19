// `npx tsx bench/long-question-tail.ts [debian|cranfield] [rounds] [q,q,…]`: where a long question's time
// goes, and which questions make the p99. In one process: memoria's passage index with feedback (as the
// server runs it) and the plain FTS5 OR floor (bench/floor.ts) over the same passages, each question asked of
// both in turn, `rounds` times; a question's time is its fastest round (the one least disturbed by the
// machine's other work). Every statement a search runs is timed by what it is (the ranking's lists,
// feedback's term table, the snippets…), so the slowest questions' time can be split into parts. Prints
// p50/p99 against the floor's, the slowest questions relative to their own floor, and the mean parts of all
// questions and of the slowest ten. A third argument, question numbers, prints each ranking expression those
// questions ask and its time.

import { IndexDatabase } from "../src/index/engine.js";
import { type IndexedDocument, PassageIndex } from "../src/index/passages/passage-index.js";
import { matchQuery } from "../src/index/query.js";
import { FEEDBACK } from "../src/index/ranking/feedback.js";
import { TermTable } from "../src/index/ranking/term-table.js";
import { SnippetTable } from "../src/index/snippets/snippet-table.js";
import { chunkDocument } from "../src/ingest/chunk.js";
import type { CorpusPassage } from "./corpus.js";
import { heldOutSentences, indexedDocuments, readDebianManuals } from "./debian-docs.js";
import { openQueryFloor, SEARCH_LIMIT } from "./floor.js";
import { cranfieldCorpus, MEMORY_QUESTIONS, QUESTIONS } from "./real-corpora.js";
import { latency } from "./stats.js";

/** The real suite's Debian corpus size (bench/real-http.ts). */
const DEBIAN_PASSAGES = 20_000;

/** What a statement is, from its SQL and, for the ranking's one statement, the expression it is given. */
function partOf(sql: string, parameters: readonly unknown[]): string {
  if (sql.includes("returned_terms")) return "term table";
  if (sql.includes("returned_snippets") || sql.includes("snippet(")) return "snippets";
  if (sql.includes("passage_tokens")) return "token counts";
  if (sql.includes("_docsize") || sql.includes("_data")) return "column sizes";
  if (sql.includes("passage_rows") || sql.includes("passage_documents") || sql.includes("passage_text"))
    return "stored passages";
  if (sql.includes("count(*) AS n FROM passages")) return "term counts";
  if (sql.startsWith("SELECT 1 FROM passages")) return "rank: NEAR check";
  if (sql.includes("bm25(")) {
    const expression = String(parameters[0] ?? "");
    if (expression.includes("NEAR(")) return "rank: NEAR list";
    if (/^"[^"]*"( AND "[^"]*")+$/.test(expression)) return "rank: NEAR check";
    if (expression.includes(" NOT ")) return "rank: NOT list";
    if (expression.includes(" AND ")) return "rank: AND list";
    if (expression.startsWith("(")) return "rank: essential OR";
    return "rank: threshold or full";
  }
  return "other SQL";
}

/** Set while one question's statements are printed (the third argument names the questions). */
let tracing = false;

/** The method whose time a statement's is counted in, when one of spanMethods is running. */
let span: string | null = null;

/** Times calls of `method` of `prototype` as `part`, statements inside them included. */
function timeSpan(prototype: object, method: string, part: string, into: () => Map<string, number>): void {
  const target = prototype as Record<string, (...args: unknown[]) => unknown>;
  const original = target[method];
  if (!original) throw new Error(`no ${method} to time`);
  target[method] = function (this: object, ...args: unknown[]) {
    if (span !== null) return original.apply(this, args);
    span = part;
    const t = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      span = null;
      const parts = into();
      parts.set(part, (parts.get(part) ?? 0) + performance.now() - t);
    }
  };
}

/**
 * Times every statement prepared after it is called, into `into` by part. Each statement gets timed methods of
 * its own: the engine's statement methods are fixed on its prototype (neither writable nor configurable), and
 * an own property is looked up first.
 */
function timeStatements(into: () => Map<string, number>): void {
  const prepare = IndexDatabase.prototype.prepare;
  const timedPrepare = function (this: IndexDatabase, sql: string) {
    const statement = prepare.call(this, sql);
    for (const method of ["all", "get", "run"] as const) {
      const original = statement[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value(this: object, ...parameters: unknown[]) {
          if (span !== null) return original.apply(this, parameters);
          const t = performance.now();
          try {
            return original.apply(this, parameters);
          } finally {
            const part = partOf(sql, parameters);
            if (tracing && part.startsWith("rank"))
              console.log(
                `    ${part} ${ms(performance.now() - t)} ms: ${String(parameters[0]).slice(0, 400)}`,
              );
            const parts = into();
            parts.set(part, (parts.get(part) ?? 0) + performance.now() - t);
            calls.set(part, (calls.get(part) ?? 0) + 1);
          }
        },
      });
    }
    return statement;
  };
  IndexDatabase.prototype.prepare = timedPrepare as typeof prepare;
}

/** Statements run by part, over the whole run (warm-up and rounds). */
const calls = new Map<string, number>();

interface Corpus {
  name: string;
  documents: IndexedDocument[];
  passages: CorpusPassage[];
  questions: string[];
}

function debian(): Corpus {
  const manuals = readDebianManuals(DEBIAN_PASSAGES);
  const documents = indexedDocuments(manuals);
  return {
    name: `debian (${manuals.packages.length} manuals)`,
    documents,
    passages: plainPassages(documents),
    // The real suite's long questions: the first QUESTIONS of these are the ones its latency figures time.
    questions: heldOutSentences(manuals, MEMORY_QUESTIONS).slice(0, QUESTIONS),
  };
}

function cranfield(): Corpus {
  const corpus = cranfieldCorpus();
  const documents = corpus.documents.map(
    (doc, d): IndexedDocument => ({
      id: `d${String(d).padStart(6, "0")}`,
      title: doc.title,
      path: ["cranfield"],
      passages: chunkDocument(doc).map((p, i) => ({
        chunkId: `c${d}-${i}`,
        ordinal: p.ordinal,
        heading: p.heading,
        text: p.text,
      })),
    }),
  );
  return {
    name: "cranfield",
    documents,
    passages: plainPassages(documents),
    questions: corpus.long.slice(0, QUESTIONS),
  };
}

function plainPassages(documents: readonly IndexedDocument[]): CorpusPassage[] {
  return documents.flatMap((doc) =>
    doc.passages.map((p) => ({
      heading: p.heading,
      body: p.text,
      title: doc.title,
      path: doc.path.join(" › "),
    })),
  );
}

const ms = (n: number) => n.toFixed(2);

function main(): void {
  const which = process.argv[2] ?? "debian";
  const rounds = Number(process.argv[3] ?? 3);
  let parts = new Map<string, number>();
  timeStatements(() => parts);
  timeSpan(TermTable.prototype, "read", "feedback: term table read", () => parts);
  timeSpan(TermTable.prototype, "frequenciesOf", "clamped: term table frequencies", () => parts);
  timeSpan(SnippetTable.prototype, "cut", "snippets", () => parts);
  const corpus = which === "cranfield" ? cranfield() : debian();
  const floor = openQueryFloor(corpus.passages);
  const index = new PassageIndex({ feedback: FEEDBACK });
  index.apply(corpus.documents);
  while (index.wholeMergeStep()) {}
  const queries = corpus.questions.map(matchQuery);
  // Warm: the first search of a generation counts its terms and builds its caches.
  for (const query of queries) index.find(query, SEARCH_LIMIT);

  // Wall time and this process's CPU time: on a shared machine the CPU time is the steadier of the two (a
  // search waiting for a core is not charged for the wait).
  const best = corpus.questions.map(() => ({
    total: Number.POSITIVE_INFINITY,
    cpu: Number.POSITIVE_INFINITY,
    floor: Number.POSITIVE_INFINITY,
    floorCpu: Number.POSITIVE_INFINITY,
    parts: new Map<string, number>(),
  }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, question] of corpus.questions.entries()) {
      const query = queries[i];
      const record = best[i];
      if (!query || !record) continue;
      parts = new Map();
      const floorCpu = process.cpuUsage();
      record.floor = Math.min(record.floor, floor.time(question));
      const used = process.cpuUsage(floorCpu);
      record.floorCpu = Math.min(record.floorCpu, (used.user + used.system) / 1000);
      parts = new Map();
      const t = performance.now();
      const cpu = process.cpuUsage();
      index.find(query, SEARCH_LIMIT);
      const total = performance.now() - t;
      const usedHere = process.cpuUsage(cpu);
      record.cpu = Math.min(record.cpu, (usedHere.user + usedHere.system) / 1000);
      if (total < record.total) {
        record.total = total;
        record.parts = parts;
      }
    }
  }
  const traced = process.argv[4];
  if (traced !== undefined) {
    for (const i of traced.split(",").map(Number)) {
      const query = queries[i];
      if (!query) continue;
      console.log(`\nq${i}: ${corpus.questions[i]}`);
      tracing = true;
      index.find(query, SEARCH_LIMIT);
      tracing = false;
    }
  }
  const f = latency(best.map((b) => b.floor));
  const m = latency(best.map((b) => b.total));
  console.log(
    `\n${corpus.name}: ${corpus.passages.length} passages, ${corpus.questions.length} long questions, ` +
      `fastest of ${rounds} rounds, load ${(process.env.LOADAVG ?? "").trim()}`,
  );
  console.log(
    `floor p50 ${ms(f.p50)} p99 ${ms(f.p99)} ms; memoria p50 ${ms(m.p50)} p99 ${ms(m.p99)} ms = ` +
      `${(m.p50 / f.p50).toFixed(3)}× / ${(m.p99 / f.p99).toFixed(3)}×`,
  );
  const fc = latency(best.map((b) => b.floorCpu));
  const mc = latency(best.map((b) => b.cpu));
  console.log(
    `CPU time: floor p50 ${ms(fc.p50)} p99 ${ms(fc.p99)} ms; memoria p50 ${ms(mc.p50)} p99 ${ms(mc.p99)} ms = ` +
      `${(mc.p50 / fc.p50).toFixed(3)}× / ${(mc.p99 / fc.p99).toFixed(3)}×`,
  );
  const named = best.map((b, i) => ({ ...b, i, question: corpus.questions[i] ?? "" }));
  const allParts = new Set(named.flatMap((b) => [...b.parts.keys()]));
  const describe = (b: (typeof named)[number]) => {
    let sql = 0;
    const shown: string[] = [];
    for (const [part, t] of [...b.parts].sort((x, y) => y[1] - x[1])) {
      sql += t;
      if (t >= 0.3) shown.push(`${part} ${ms(t)}`);
    }
    shown.push(`JS ${ms(b.total - sql)}`);
    return shown.join(", ");
  };
  console.log("\nslowest, by time:");
  for (const b of [...named].sort((x, y) => y.total - x.total).slice(0, 10)) {
    console.log(
      `  q${b.i} ${ms(b.total)} ms (floor ${ms(b.floor)}, ${(b.total / b.floor).toFixed(2)}×): ${describe(b)}\n     ${b.question}`,
    );
  }
  console.log("\nslowest, relative to their floor:");
  for (const b of [...named].sort((x, y) => y.total / y.floor - x.total / x.floor).slice(0, 10)) {
    console.log(
      `  q${b.i} ${ms(b.total)} ms (floor ${ms(b.floor)}, ${(b.total / b.floor).toFixed(2)}×): ${describe(b)}`,
    );
  }
  const slow = [...named].sort((x, y) => y.total - x.total).slice(0, 10);
  const mean = (set: typeof named, part: string) =>
    set.reduce((sum, b) => sum + (b.parts.get(part) ?? 0), 0) / set.length;
  console.log("\n| part | mean ms, all | mean ms, slowest 10 |\n|---|---|---|");
  for (const part of [...allParts].sort((a, b) => mean(named, b) - mean(named, a))) {
    console.log(`| ${part} | ${ms(mean(named, part))} | ${ms(mean(slow, part))} |`);
  }
  const js = (set: typeof named) =>
    set.reduce((sum, b) => sum + b.total - [...b.parts.values()].reduce((s, t) => s + t, 0), 0) / set.length;
  console.log(`statements run, by part: ${[...calls].map(([part, n]) => `${part} ${n}`).join(", ")}`);
  console.log(`| JS (the rest) | ${ms(js(named))} | ${ms(js(slow))} |`);
  console.log(
    `| total | ${ms(named.reduce((s, b) => s + b.total, 0) / named.length)} | ${ms(slow.reduce((s, b) => s + b.total, 0) / slow.length)} |`,
  );
  floor.close();
  index.close();
}

main();
