// `npm run bench -- --suites real`: memoria over loopback HTTP on real text (Debian's manuals,
// bench/debian-docs.ts), as a client sees it. One server in a process of its own, as memoria ships (feedback
// on); the documents go in through the batch route. Then, each against a floor measured in the same run:
// - short questions (two rare words of a held-out sentence) and long ones (held-out sentences of 10–20
//   words): p50 and p99 over HTTP against the plain FTS5 OR of the same words in process (bench/floor.ts),
//   and against GET /healthz over the same connection, asked in turn with each question;
// - throughput at 1, 8 and 64 connections, long questions, for a few seconds each;
// - another team's search latency while one team floods with 64 connections, and how many of the flood's
//   searches were refused (503 with Retry-After, docs/api.md "Many searches at once").
// Every load is loopback only, bounded in count and time.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { queryTerms } from "../src/index/query.js";
import { chunkDocument } from "../src/ingest/chunk.js";
import { BENCH_ADMIN } from "./app-config.js";
import type { CorpusPassage } from "./corpus.js";
import { heldOutSentences, type RealDocument, readDebianManuals } from "./debian-docs.js";
import { openQueryFloor } from "./floor.js";
import { startBenchServer } from "./server.js";
import { latency } from "./stats.js";

/** Documents a batch request carries: manual pages run to 256 KiB, and a batch stays far under the body limit. */
const BATCH = 20;
/** Questions of each kind: a p99 of 200 is its second-worst. */
const QUESTIONS = 200;
/** How long each throughput level and the flood run. Short: the machine is shared. */
const LOAD_MS = 5000;

async function call(base: string, method: string, path: string, token: string, json?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, retryAfter: res.headers.get("retry-after") };
}

async function makeTeam(base: string, name: string, documents: readonly RealDocument[]): Promise<string> {
  const team = await call(base, "POST", "/v1/teams", BENCH_ADMIN, { name });
  const apiKey = team.body.apiKey as string;
  for (let i = 0; i < documents.length; i += BATCH) {
    const unit = documents.slice(i, i + BATCH);
    const answer = await call(base, "POST", "/v1/documents/batch", apiKey, {
      documents: unit.map((doc) => ({ title: doc.title, content: doc.content, format: doc.format })),
    });
    if (answer.status !== 200) throw new Error(`the batch route answered ${answer.status}`);
  }
  await call(base, "GET", "/v1/search?q=warmup", apiKey);
  return apiKey;
}

function searchPath(q: string): string {
  return `/v1/search?${new URLSearchParams({ q, limit: "20" })}`;
}

/** Searches from `connections` clients at once, each asking the next question when answered, for `ms`. */
async function closedLoop(
  base: string,
  apiKey: string,
  questions: readonly string[],
  connections: number,
  ms: number,
) {
  const end = performance.now() + ms;
  const times: number[] = [];
  let refused = 0;
  let withRetryAfter = 0;
  // 429s from the failed-authentication limiter, which counts an address's requests in flight (30).
  let limited = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const q = questions[next++ % questions.length] ?? "";
        const t = performance.now();
        const answer = await call(base, "GET", searchPath(q), apiKey);
        if (answer.status === 200) times.push(performance.now() - t);
        else if (answer.status === 503) {
          refused++;
          if (answer.retryAfter !== null) withRetryAfter++;
        } else if (answer.status === 429) limited++;
        else throw new Error(`a search answered ${answer.status}`);
      }
    }),
  );
  return {
    served: times.length,
    perSecond: times.length / (ms / 1000),
    times,
    refused,
    withRetryAfter,
    limited,
  };
}

export async function benchRealHttp(passages: number): Promise<void> {
  const corpus = readDebianManuals(passages);
  const plain: CorpusPassage[] = corpus.indexed.flatMap((doc) =>
    chunkDocument(doc).map((p) => ({ heading: p.heading, body: p.text, title: doc.title, path: "" })),
  );
  const passagesWith = new Map<string, number>();
  for (const p of plain) {
    for (const word of new Set(queryTerms(`${p.title} ${p.heading} ${p.body}`.toLowerCase()))) {
      passagesWith.set(word, (passagesWith.get(word) ?? 0) + 1);
    }
  }
  const short: string[] = [];
  for (const sentence of heldOutSentences(corpus, 2000, 6, 40)) {
    const rare = [...new Set(queryTerms(sentence.toLowerCase()))]
      .filter((w) => w.length > 3 && (passagesWith.get(w) ?? 0) >= 2 && (passagesWith.get(w) ?? 0) <= 200)
      .sort((a, b) => (passagesWith.get(a) ?? 0) - (passagesWith.get(b) ?? 0) || (a < b ? -1 : 1));
    if (rare.length >= 2) short.push(rare.slice(0, 2).join(" "));
    if (short.length >= QUESTIONS) break;
  }
  const long = heldOutSentences(corpus, QUESTIONS);
  const floor = openQueryFloor(plain);
  const scratch = mkdtempSync(join(tmpdir(), "memoria-bench-real-"));
  const server = startBenchServer("eval/run.ts", [
    "serve",
    `file:${join(scratch, "memoria.db")}`,
    "feedback",
  ]);
  try {
    const base = `http://127.0.0.1:${await server.port}`;
    const loaded = performance.now();
    const apiKey = await makeTeam(base, "manuals", corpus.indexed);
    const other = await makeTeam(base, "other", corpus.heldOut.slice(0, 50));
    console.log(
      `\nreal text over HTTP — ${plain.length} passages of ${corpus.packages.join(", ")} ` +
        `(${corpus.indexed.length} documents; ${corpus.heldOut.length} held out), loaded in ` +
        `${((performance.now() - loaded) / 1000).toFixed(1)} s; feedback on (3+ words)`,
    );
    console.log(
      "| questions | n | floor p50 ms | /healthz p50 ms | HTTP p50 ms | p50 ÷ floor | p99 ÷ floor | p50 − /healthz ms |",
    );
    console.log("|---|---|---|---|---|---|---|---|");
    for (const [name, questions] of [
      ["2 rare words", short],
      ["10–20 words", long],
    ] as const) {
      const f: number[] = [];
      const h: number[] = [];
      const s: number[] = [];
      for (const q of questions) {
        f.push(floor.time(q));
        let t = performance.now();
        await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
        h.push(performance.now() - t);
        t = performance.now();
        const answer = await call(base, "GET", searchPath(q), apiKey);
        if (answer.status !== 200) throw new Error(`a search answered ${answer.status}`);
        s.push(performance.now() - t);
      }
      const [lf, lh, ls] = [latency(f), latency(h), latency(s)];
      console.log(
        `| ${name} | ${questions.length} | ${lf.p50.toFixed(2)} | ${lh.p50.toFixed(2)} | ${ls.p50.toFixed(2)} | ` +
          `${(ls.p50 / lf.p50).toFixed(2)}× | ${(ls.p99 / lf.p99).toFixed(2)}× | ${(ls.p50 - lh.p50).toFixed(2)} |`,
      );
    }
    const one = await closedLoop(base, apiKey, long, 1, LOAD_MS);
    console.log("| connections | searches/s | ÷ 1 connection | p50 ms | p99 ms | refused (503) | 429 |");
    console.log("|---|---|---|---|---|---|---|");
    for (const connections of [1, 8, 64]) {
      const run = connections === 1 ? one : await closedLoop(base, apiKey, long, connections, LOAD_MS);
      const l = latency(run.times);
      console.log(
        `| ${connections} | ${run.perSecond.toFixed(1)} | ${(run.perSecond / one.perSecond).toFixed(2)}× | ` +
          `${l.p50.toFixed(1)} | ${l.p99.toFixed(1)} | ${run.refused} (${run.withRetryAfter} with Retry-After) | ` +
          `${run.limited} |`,
      );
    }
    const otherAlone = await closedLoop(base, other, long, 1, 2000);
    const [flood, during] = await Promise.all([
      closedLoop(base, apiKey, long, 64, LOAD_MS),
      closedLoop(base, other, long, 1, LOAD_MS),
    ]);
    const alone = latency(otherAlone.times);
    const under = latency(during.times);
    console.log(
      `another team's searches while one floods with 64 connections for ${LOAD_MS / 1000} s: p50 ` +
        `${under.p50.toFixed(1)} ms, p99 ${under.p99.toFixed(1)} ms, worst ${Math.max(...during.times).toFixed(1)} ms ` +
        `(alone: p50 ${alone.p50.toFixed(1)}, p99 ${alone.p99.toFixed(1)}; p99 ${(under.p99 / alone.p99).toFixed(2)}× ` +
        `alone); the flood: ${flood.served} served, ${flood.refused} refused (${flood.withRetryAfter} with ` +
        `Retry-After), ${flood.limited} answered 429`,
    );
  } finally {
    floor.close();
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(scratch, { recursive: true, force: true });
  }
}
