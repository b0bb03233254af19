// `npm run eval`: memoria's search quality on a public test collection, measured end to end. The collection's
// documents go in through the HTTP API as a client's would, its queries are asked through /v1/search, and the
// run is scored with trec_eval's semantics (eval/metrics.ts) beside the plain FTS5 baseline built in the same
// run (eval/baseline.ts).
//
// Usage: npm run eval [-- --collection DIR] [--limit 100] [--run PATH] [--per-query] [--terms N]
// --terms N asks each query as its N rarest words instead (fewest of the collection's documents holding
// them; ties by the word): the short questions people type, judged by the same judgments. --per-query prints
// each query's word count and nDCG@10 with feedback on, off, and the plain FTS5 baseline's.
// memoria runs twice, as it ships (feedback on) and with MEMORIA_SEARCH_FEEDBACK=off; --run writes both. Each
// also answers every query at the search route's default limit (20), since feedback rescores as many
// candidates as a search asks for (docs/decisions/0027-feedback-rescoring.md): its nDCG@10 there is what a
// client that sets no limit gets.
// DIR defaults to $MEMORIA_EVAL_DIR, else ../shared/eval/cranfield beside this repository (read at run time;
// the collection is never copied in). --run writes memoria's TREC run file, for the collection's ndcg.py.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_ADMIN } from "../bench/app-config.js";
import { serveBenchApp, startBenchServer } from "../bench/server.js";
import { latency } from "../bench/stats.js";
import { queryTerms } from "../src/index/query.js";
import { runBaseline } from "./baseline.js";
import { type Collection, type CollectionQuery, readCollection } from "./collection.js";
import { askQueries, DEFAULT_LIMIT, ingestCollection, MAX_LIMIT, type MemoriaRun } from "./memoria-run.js";
import { evaluate, formatMetrics, type RunMetrics, trecRunText } from "./metrics.js";

import { cranfieldDir } from "./paths.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      collection: { type: "string" },
      limit: { type: "string", default: String(MAX_LIMIT) },
      run: { type: "string" },
      "per-query": { type: "boolean", default: false },
      terms: { type: "string" },
    },
  });
  const dir = values.collection ?? cranfieldDir();
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new Error(`--limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  if (!existsSync(join(dir, "corpus.jsonl"))) {
    // A clone alone has no collection: it is read at run time from beside the repository, never copied in.
    console.error(
      `npm run eval: no collection at ${dir}. Put a copy of the shared eval folder beside the clone ` +
        "(../shared/eval/cranfield), or name it with --collection DIR or MEMORIA_EVAL_DIR.",
    );
    process.exit(1);
  }
  const read = readCollection(dir);
  const terms = values.terms === undefined ? null : Number(values.terms);
  if (terms !== null && (!Number.isInteger(terms) || terms < 1))
    throw new Error("--terms must be a whole number");
  const collection = terms === null ? read : { ...read, queries: rarestTerms(read, terms) };
  console.log(
    `memoria eval — ${collection.name}: ${collection.documents.length} documents, ` +
      `${collection.queries.length} queries${terms === null ? "" : `, each its ${terms} rarest words`}, ` +
      `limit ${limit} (node ${process.version})`,
  );

  const baseline = runBaseline(collection, limit);
  const baselineMetrics = evaluate(baseline.run, collection.judgments);

  // memoria as it ships (feedback on), then with MEMORIA_SEARCH_FEEDBACK=off, each on a fresh server.
  const runs: { name: string; feedback: boolean; run: MemoriaRun; atDefault: MemoriaRun["run"] | null }[] =
    [];
  for (const feedback of [true, false]) {
    const scratch = mkdtempSync(join(tmpdir(), "memoria-eval-"));
    const args = ["serve", `file:${join(scratch, "memoria.db")}`, feedback ? "feedback" : "no-feedback"];
    const server = startBenchServer("eval/run.ts", args);
    try {
      const base = `http://127.0.0.1:${await server.port}`;
      const ingested = await ingestCollection(base, BENCH_ADMIN, collection, (line) =>
        process.stderr.write(`\r${line}`),
      );
      process.stderr.write("\n");
      const asked = await askQueries(base, ingested, collection, limit);
      const atDefault =
        limit === DEFAULT_LIMIT ? null : (await askQueries(base, ingested, collection, DEFAULT_LIMIT)).run;
      runs.push({
        name: feedback ? "memoria (feedback on, the default)" : "memoria, feedback off",
        feedback,
        run: { ...asked, ingestMs: ingested.ingestMs },
        atDefault,
      });
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  const row = (name: string, m: RunMetrics) => console.log(`${name.padEnd(34)} ${formatMetrics(m)}`);
  const delta = (a: number, b: number) => `${a - b >= 0 ? "+" : ""}${(a - b).toFixed(4)}`;
  const ms = (t: { p50: number; p99: number }) => `p50 ${t.p50.toFixed(1)} ms, p99 ${t.p99.toFixed(1)} ms`;
  row("plain FTS5 OR (in process)", baselineMetrics);
  for (const { name, run, atDefault } of runs) {
    const m = evaluate(run.run, collection.judgments);
    row(`${name}, over HTTP`, m);
    console.log(
      `${"  − plain FTS5".padEnd(34)} nDCG@10 ${delta(m.ndcg10, baselineMetrics.ndcg10)}  ` +
        `Recall@100 ${delta(m.recall100, baselineMetrics.recall100)}  ` +
        `MAP@100 ${delta(m.map100, baselineMetrics.map100)}`,
    );
    if (atDefault) {
      const d = evaluate(atDefault, collection.judgments);
      console.log(
        `${`  at the default limit ${DEFAULT_LIMIT}`.padEnd(34)} nDCG@10 ${d.ndcg10.toFixed(4)} ` +
          `(${delta(d.ndcg10, baselineMetrics.ndcg10)} over plain FTS5)`,
      );
    }
    console.log(`${"  its search over HTTP".padEnd(34)} ${ms(latency(run.queryMs))}`);
  }
  console.log(
    `plain FTS5 in process: search ${ms(latency(baseline.queryMs))}, load ${(baseline.buildMs / 1000).toFixed(2)} s; ` +
      `memoria's ingest over the batch route ${((runs[0]?.run.ingestMs ?? 0) / 1000).toFixed(2)} s`,
  );
  const memoriaMetrics = evaluate(runs[0]?.run.run ?? new Map(), collection.judgments);
  if (values["per-query"]) {
    const offMetrics = evaluate(runs[1]?.run.run ?? new Map(), collection.judgments);
    const words = new Map(collection.queries.map((q) => [q.id, queryTerms(q.text).length]));
    console.log("query\twords\tfeedback on nDCG@10\tfeedback off nDCG@10\tplain nDCG@10");
    for (const [id, m] of memoriaMetrics.perQuery) {
      console.log(
        `${id}\t${words.get(id) ?? ""}\t${m.ndcg10.toFixed(4)}\t` +
          `${offMetrics.perQuery.get(id)?.ndcg10.toFixed(4) ?? ""}\t` +
          `${baselineMetrics.perQuery.get(id)?.ndcg10.toFixed(4) ?? ""}`,
      );
    }
  }
  if (values.run) {
    for (const { feedback, run } of runs) {
      const path = feedback ? values.run.replace(/(\.trec)?$/, ".feedback$1") : values.run;
      writeFileSync(path, trecRunText(run.run, feedback ? "memoria_feedback" : "memoria"));
      console.log(`run → ${path}`);
    }
  }
}

/** Each query as its `n` rarest distinct words: fewest documents holding them, ties by the word itself. */
function rarestTerms(collection: Collection, n: number): CollectionQuery[] {
  const documentsWith = new Map<string, number>();
  for (const doc of collection.documents) {
    for (const word of new Set(queryTerms(`${doc.title} ${doc.text}`.toLowerCase()))) {
      documentsWith.set(word, (documentsWith.get(word) ?? 0) + 1);
    }
  }
  return collection.queries.map((q) => {
    const rarest = [...new Set(queryTerms(q.text.toLowerCase()))]
      .filter((word) => (documentsWith.get(word) ?? 0) > 0)
      .sort((a, b) => (documentsWith.get(a) ?? 0) - (documentsWith.get(b) ?? 0) || (a < b ? -1 : 1))
      .slice(0, n);
    return { ...q, text: rarest.join(" ") };
  });
}

if (process.argv[2] === "serve") {
  await serveBenchApp({
    dbUrl: process.argv[3] ?? "",
    pool: true,
    maxDocumentBytes: 5 * 1024 * 1024,
    searchFeedback: process.argv[4] !== "no-feedback",
  });
} else {
  await main();
}
