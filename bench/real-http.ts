// `npm run bench -- --suites real`: memoria over loopback HTTP as a client sees it, on real text and on the
// synthetic shape side by side (bench/real-corpora.ts: Debian's manuals, Cranfield, SciFact-shaped words at
// the manuals' passage count), every figure against a floor measured in the same run. For each corpus:
// - memoria's own Node entry (src/runtime/node.ts, as `npm start` runs it, feedback on) in a fresh process;
//   its VmRSS read from /proc when it listens (the empty server), after the documents went in through the
//   batch route, and after 300 long questions: bytes of RSS a byte of text, less the empty server's;
// - short questions (two rare words) and long ones (10–20 words for the manuals; Cranfield's own questions;
//   the synthetic long mix), p50 and p99 over HTTP against the plain FTS5 OR of the same words in process
//   (bench/floor.ts), and against GET /healthz over the same connection, asked in turn with each question;
//   then the same turns with a bare node:http server (bench/bare-server.ts) in /healthz's place: what the
//   machine's loopback costs after each floor's pause, with none of memoria's code;
// - throughput at 1, 8 and 64 connections, long questions, and p50/p99 under that load against the floor;
//   then short questions from 1 and 8 connections at once;
// - another team's search latency while one team floods with 64 connections, and the flood's refusals;
// - the server restarted over the same database: VmRSS empty, after the first search (its index's build)
//   and after 300 long questions, a byte of text;
// - what the floor's plain OR must walk for the long questions (posting list lengths, passages matched),
//   the measured cause of where the corpora differ (docs/decisions/0053-real-and-synthetic.md);
// - then the plain FTS5 table, MiniSearch, Orama and FlexSearch, each in a fresh process holding the same
//   passages (bench/peers.ts): RSS growth a byte of text, build, and both mixes in process.
// It ends with the suite's targets (bench/targets.ts). Every load is loopback only, bounded in count and time.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cranfieldDir } from "../eval/paths.js";
import { BENCH_ADMIN } from "./app-config.js";
import { startBareServer } from "./bare-server.js";
import { FLOOR_ENGINE, openQueryFloor } from "./floor.js";
import { type InTurnClient, openInTurnClient } from "./in-turn-client.js";
import { type PeerFigures, peerFigures, peerInputText, REAL_ENGINES } from "./peers.js";
import {
  type BenchCorpus,
  type BenchCorpusName,
  type BenchDocument,
  benchCorpus,
  MEMORY_QUESTIONS,
  QUESTIONS,
} from "./real-corpora.js";
import { startMemoriaEntry } from "./server.js";
import { latency, median, processRssBytes } from "./stats.js";
import { type CorpusFigures, formatSummary, summarize } from "./targets.js";

/** Documents a batch request carries at most: far under the route's 500. */
const BATCH_DOCUMENTS = 200;
/** A batch's text at most: manual pages run to 256 KiB, and a batch stays far under the 64 MiB body limit. */
const BATCH_BYTES = 2 * 1024 * 1024;
/** How long each throughput level and the flood run. Short: the machine is shared. */
const LOAD_MS = 5000;
/** The other team's searches alone, before the flood: its baseline. */
const ALONE_MS = 2000;
/**
 * A peer's mix stops asking past this: Orama's long questions take ~0.4 s each at 20,000 passages (~25 in
 * the budget on a quiet machine), MiniSearch's and the floor's 0.1–0.3 s under load; the rest ask all 200.
 */
const PEER_BUDGET_MS = 10_000;
/**
 * How long the server is left idle before each RSS reading: the empty server's start-up work and a build's
 * merging settle (merging 20,000 passages took ~0.7 s on this machine, 0038).
 */
const SETTLE_MS = 1500;
/**
 * How long the throughput levels are preceded by a run at 8 connections, unmeasured. The questions asked one
 * at a time before them all run on the first search thread (the pool hands a search to a new thread only
 * when every running one is busy), so without it the 8-connection level starts the second thread, opens its
 * connection to the index and runs its first searches cold (interpreted, then compiled by V8 as they come:
 * its first second served ~23 searches/s against ~33–41 in the seconds after it, load ~5), against a
 * 1-connection level on a thread long warm. Both levels are then the server's steady state.
 */
const WARM_MS = 3000;
/** The connection counts the throughput table runs. */
const CONNECTIONS = [1, 8, 64] as const;
/**
 * The short questions' levels: one agent, then eight asking at once. A two-word question is answered on the
 * main thread only while it is alone (docs/decisions/0088-short-questions-inline.md), so eight connections
 * meet the threads and the queue as several agents do. Three seconds each: ~1,000 searches at one connection.
 */
const SHORT_CONNECTIONS = [1, 8] as const;
const SHORT_LOAD_MS = 3000;

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function call(base: string, method: string, path: string, token: string, json?: unknown) {
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

/** Batches of at most BATCH_DOCUMENTS documents and BATCH_BYTES of content (a larger document goes alone). */
export function batches(documents: readonly BenchDocument[]): BenchDocument[][] {
  const out: BenchDocument[][] = [];
  let unit: BenchDocument[] = [];
  let bytes = 0;
  for (const doc of documents) {
    const size = Buffer.byteLength(doc.content);
    if (unit.length > 0 && (unit.length >= BATCH_DOCUMENTS || bytes + size > BATCH_BYTES)) {
      out.push(unit);
      unit = [];
      bytes = 0;
    }
    unit.push(doc);
    bytes += size;
  }
  if (unit.length > 0) out.push(unit);
  return out;
}

export async function makeTeam(
  base: string,
  name: string,
  documents: readonly BenchDocument[],
): Promise<string> {
  const team = await call(base, "POST", "/v1/teams", BENCH_ADMIN, { name });
  if (team.status !== 201) throw new Error(`making a team answered ${team.status}`);
  const apiKey = team.body.apiKey as string;
  for (const unit of batches(documents)) {
    const answer = await call(base, "POST", "/v1/documents/batch", apiKey, { documents: unit });
    if (answer.status !== 200) throw new Error(`the batch route answered ${answer.status}`);
  }
  await call(base, "GET", "/v1/search?q=warmup", apiKey);
  return apiKey;
}

export function searchPath(q: string): string {
  return `/v1/search?${new URLSearchParams({ q, limit: "20" })}`;
}

/**
 * Each question asked in turn of the floor, then `/healthz` and the search over one HTTP connection, so load
 * moves all three alike: their latencies (a search answered other than 200 throws). They are asked and timed
 * by the client thread (bench/in-turn-client.ts), away from this process's heap.
 */
export function askInTurn(client: InTurnClient, base: string, apiKey: string, questions: readonly string[]) {
  return client.ask(base, apiKey, questions, searchPath);
}

/** Searches from `connections` clients at once, each asking the next question when answered, for `ms`. */
export async function closedLoop(
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
  return { perSecond: times.length / (ms / 1000), times, refused, withRetryAfter, limited };
}

/** The peers' table of one corpus: each engine in a fresh process on the same passages and questions. */
function measureEngines(corpus: BenchCorpus): Map<string, PeerFigures> {
  const text = peerInputText(
    {
      short: corpus.short.slice(0, QUESTIONS),
      long: corpus.long.slice(0, QUESTIONS),
      budgetMs: PEER_BUDGET_MS,
    },
    corpus.passages,
  );
  const out = new Map<string, PeerFigures>();
  for (const engine of REAL_ENGINES) {
    const printed = execFileSync(
      process.execPath,
      ["--expose-gc", "--import", "tsx", "bench/peers.ts", engine, "--stdin"],
      { input: text, encoding: "utf8", stdio: ["pipe", "pipe", "inherit"], maxBuffer: 1 << 20 },
    );
    out.set(engine, peerFigures.parse(JSON.parse(printed.trim().split("\n").at(-1) ?? "{}")));
  }
  return out;
}

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 1) : "–");
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");

/**
 * What the floor's plain OR walks for the long questions, by FTS5's own tokenizer and stemmer: the cause
 * 0053 measures. Terms are banded by the share of passages holding them; postings are the sum of a
 * question's list lengths, over the passages (how many times over the OR reads the corpus).
 */
function printLists(corpus: BenchCorpus, floor: ReturnType<typeof openQueryFloor>): void {
  const lists = corpus.long.slice(0, QUESTIONS).map((q) => floor.lists(q));
  const n = corpus.passages.length;
  const all = lists.flatMap((l) => l.lengths);
  const share = (test: (len: number) => boolean) =>
    `${((100 * all.filter(test).length) / all.length).toFixed(0)}%`;
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const commonPostings = sum(all.filter((len) => len >= n / 10)) / sum(all);
  console.log(
    "| long questions | terms a question | terms in ≥ 10% of passages | in 1–10% | in < 1% | postings ÷ passages | of them in ≥ 10% terms | passages matched |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  console.log(
    `| ${corpus.name} | ${median(lists.map((l) => l.terms)).toFixed(0)} | ${share((len) => len >= n / 10)} | ` +
      `${share((len) => len >= n / 100 && len < n / 10)} | ${share((len) => len < n / 100)} | ` +
      `${(median(lists.map((l) => sum(l.lengths))) / n).toFixed(2)} | ${(100 * commonPostings).toFixed(0)}% | ` +
      `${((100 * median(lists.map((l) => l.matched))) / n).toFixed(0)}% |`,
  );
}

/** One corpus end to end; returns its figures for the summary. */
async function benchCorpusOverHttp(corpus: BenchCorpus, peers: boolean): Promise<CorpusFigures> {
  const passages = corpus.passages.length;
  console.log(
    `\n## ${corpus.name}${corpus.real ? "" : " (generated)"}: ${passages.toLocaleString("en")} passages, ` +
      `${(corpus.textBytes / MiB).toFixed(1)} MiB of text — ${corpus.description}; ` +
      `${corpus.short.length} short and ${Math.min(QUESTIONS, corpus.long.length)} long questions`,
  );
  const floor = openQueryFloor(corpus.passages);
  printLists(corpus, floor);
  floor.close();
  const client = await openInTurnClient(corpus.passages, FLOOR_ENGINE);
  const scratch = mkdtempSync(join(tmpdir(), "memoria-bench-real-"));
  const server = startMemoriaEntry(scratch);
  let running = server;
  const pid = server.child.pid ?? 0;
  try {
    const base = `http://127.0.0.1:${await server.port}`;
    if (server.passed.length > 0)
      console.log(`server environment from the bench's: ${server.passed.join(", ")}`);
    await sleep(SETTLE_MS);
    const rssEmpty = processRssBytes(pid);
    const loadStarted = performance.now();
    const apiKey = await makeTeam(base, corpus.name, corpus.documents);
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    await sleep(SETTLE_MS);
    const rssBuilt = processRssBytes(pid);
    for (let i = 0; i < MEMORY_QUESTIONS; i++) {
      const q = corpus.long[i % corpus.long.length] ?? "";
      const answer = await call(base, "GET", searchPath(q), apiKey);
      if (answer.status !== 200) throw new Error(`a search answered ${answer.status}`);
    }
    await sleep(SETTLE_MS);
    const rssAsked = processRssBytes(pid);
    const perByte = (rss: number) => (rss - rssEmpty) / corpus.textBytes;
    console.log(
      `loaded through the batch route in ${loadSeconds.toFixed(1)} s. Server VmRSS: empty ` +
        `${(rssEmpty / MiB).toFixed(0)} MiB; after the build ${(rssBuilt / MiB).toFixed(0)} MiB ` +
        `(${perByte(rssBuilt).toFixed(2)} B a byte of text, less the empty server); after ${MEMORY_QUESTIONS} long ` +
        `questions ${(rssAsked / MiB).toFixed(0)} MiB (**${perByte(rssAsked).toFixed(2)} B a byte**)`,
    );

    console.log(
      "| questions | n | floor p50 ms | floor p99 ms | /healthz p50 ms | HTTP p50 ms | HTTP p99 ms | p50 ÷ floor | p99 ÷ floor | p50 − /healthz ms |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|");
    const asked = new Map<
      string,
      { floor: { p50: number; p99: number }; http: { p50: number; p99: number } }
    >();
    const inTurn = [
      ["short", corpus.short],
      ["long", corpus.long.slice(0, QUESTIONS)],
    ] as const;
    for (const [name, questions] of inTurn) {
      const { floor: lf, healthz: lh, http: ls } = await askInTurn(client, base, apiKey, questions);
      asked.set(name, { floor: lf, http: ls });
      console.log(
        `| ${name} | ${questions.length} | ${ms(lf.p50)} | ${ms(lf.p99)} | ${ms(lh.p50)} | ${ms(ls.p50)} | ${ms(ls.p99)} | ` +
          `${times(ls.p50 / lf.p50)} | ${times(ls.p99 / lf.p99)} | ${ms(ls.p50 - lh.p50)} |`,
      );
    }
    const longFloor = asked.get("long")?.floor ?? { p50: Number.NaN, p99: Number.NaN };
    // The same turns against a server with none of memoria's code: what the machine's loopback costs after
    // each floor's pause, to read the rows above against (docs/decisions/0094-short-questions-time-by-phase.md).
    const bare = await startBareServer();
    try {
      const parts: string[] = [];
      for (const [name, questions] of inTurn) {
        const { floor: bf, http: bh } = await client.askBare(`${bare.base}/`, questions);
        parts.push(
          `after each ${name} question's floor (p50 ${ms(bf.p50)} ms) p50 ${ms(bh.p50)} ms, p99 ${ms(bh.p99)}`,
        );
      }
      console.log(
        `a bare node:http server in a process of its own (bench/bare-server.ts), asked as /healthz is: ${parts.join("; ")}`,
      );
    } finally {
      await bare.close();
    }

    const long = corpus.long.slice(0, QUESTIONS);
    await closedLoop(base, apiKey, long, 8, WARM_MS);
    console.log(
      `after ${WARM_MS / 1000} s unmeasured at 8 connections (every search thread started and warm, as the first is for 1):`,
    );
    console.log(
      "| connections, long questions | searches/s | ÷ 1 connection | p50 ms | p99 ms | p50 ÷ floor p50 | p99 ÷ floor p99 | refused (503) | 429 |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|");
    let one = Number.NaN;
    let eight = Number.NaN;
    for (const connections of CONNECTIONS) {
      const run = await closedLoop(base, apiKey, long, connections, LOAD_MS);
      if (connections === 1) one = run.perSecond;
      if (connections === 8) eight = run.perSecond;
      const l = latency(run.times);
      console.log(
        `| ${connections} | ${run.perSecond.toFixed(1)} | ${times(run.perSecond / one)} | ${ms(l.p50)} | ${ms(l.p99)} | ` +
          `${times(l.p50 / longFloor.p50)} | ${times(l.p99 / longFloor.p99)} | ` +
          `${run.refused} (${run.withRetryAfter} with Retry-After) | ${run.limited} |`,
      );
    }

    console.log(
      "| connections, short questions (each asked again and again) | searches/s | ÷ 1 connection | p50 ms | p99 ms | refused (503) | 429 |",
    );
    console.log("|---|---|---|---|---|---|---|");
    let shortOne = Number.NaN;
    for (const connections of SHORT_CONNECTIONS) {
      const run = await closedLoop(base, apiKey, corpus.short, connections, SHORT_LOAD_MS);
      if (connections === 1) shortOne = run.perSecond;
      const l = latency(run.times);
      console.log(
        `| ${connections} | ${run.perSecond.toFixed(1)} | ${times(run.perSecond / shortOne)} | ${ms(l.p50)} | ` +
          `${ms(l.p99)} | ${run.refused} (${run.withRetryAfter} with Retry-After) | ${run.limited} |`,
      );
    }

    const other = await makeTeam(base, "other", corpus.otherTeam);
    const otherAlone = await closedLoop(base, other, long, 1, ALONE_MS);
    const [flood, during] = await Promise.all([
      closedLoop(base, apiKey, long, 64, LOAD_MS),
      closedLoop(base, other, long, 1, LOAD_MS),
    ]);
    const alone = latency(otherAlone.times);
    const under = latency(during.times);
    console.log(
      `another team (${corpus.otherTeam.length} documents) while one floods with 64 connections for ${LOAD_MS / 1000} s: ` +
        `p50 ${ms(under.p50)} ms, p99 ${ms(under.p99)} ms, worst ${ms(Math.max(...during.times))} ms (alone: p50 ` +
        `${ms(alone.p50)}, p99 ${ms(alone.p99)}; p99 ${times(under.p99 / alone.p99)} alone); the flood: ` +
        `${flood.times.length} served, ${flood.refused} refused (${flood.withRetryAfter} with Retry-After), ` +
        `${flood.limited} answered 429`,
    );

    const short = asked.get("short")?.http ?? { p50: Number.NaN, p99: Number.NaN };
    const longHttp = asked.get("long")?.http ?? { p50: Number.NaN, p99: Number.NaN };
    // A restart over the same database: the index is built again on the first search, from the sealed rows
    // or the team's sealed snapshot (past MEMORIA_SNAPSHOT_MIN_CHUNKS), as every cold start builds it.
    server.child.kill("SIGTERM");
    await server.exited;
    running = startMemoriaEntry(scratch, server.masterKey);
    const again = `http://127.0.0.1:${await running.port}`;
    const againPid = running.child.pid ?? 0;
    await sleep(SETTLE_MS);
    const rssEmptyAgain = processRssBytes(againPid);
    const coldStarted = performance.now();
    const first = await call(again, "GET", searchPath(corpus.long[0] ?? "warmup"), apiKey);
    if (first.status !== 200) throw new Error(`the first search after a restart answered ${first.status}`);
    const coldSeconds = (performance.now() - coldStarted) / 1000;
    await sleep(SETTLE_MS);
    const rssBuiltAgain = processRssBytes(againPid);
    for (let i = 0; i < MEMORY_QUESTIONS; i++) {
      const answer = await call(again, "GET", searchPath(corpus.long[i % corpus.long.length] ?? ""), apiKey);
      if (answer.status !== 200) throw new Error(`a search answered ${answer.status}`);
    }
    await sleep(SETTLE_MS);
    const rssAskedAgain = processRssBytes(againPid);
    const perByteAgain = (rss: number) => (rss - rssEmptyAgain) / corpus.textBytes;
    console.log(
      `restarted over the same database: empty ${(rssEmptyAgain / MiB).toFixed(0)} MiB; first search (the build) ` +
        `${coldSeconds.toFixed(1)} s; after it ${(rssBuiltAgain / MiB).toFixed(0)} MiB ` +
        `(${perByteAgain(rssBuiltAgain).toFixed(2)} B a byte); after ${MEMORY_QUESTIONS} long questions ` +
        `${(rssAskedAgain / MiB).toFixed(0)} MiB (**${perByteAgain(rssAskedAgain).toFixed(2)} B a byte**)`,
    );

    const figures: CorpusFigures = {
      corpus: corpus.name,
      real: corpus.real,
      passages,
      longP50Ratio: longHttp.p50 / longFloor.p50,
      longP99Ratio: longHttp.p99 / longFloor.p99,
      shortP50Ms: short.p50,
      shortP99Ms: short.p99,
      rssPerTextByte: perByte(rssAsked),
      rssPerTextByteRestarted: perByteAgain(rssAskedAgain),
      scaling8: eight / one,
      otherTeamP99Ms: under.p99,
    };
    if (peers) printEngines(corpus, figures, measureEngines(corpus), rssAsked - rssEmpty, longHttp, short);
    return figures;
  } finally {
    await client.close();
    running.child.kill("SIGTERM");
    await running.exited;
    rmSync(scratch, { recursive: true, force: true });
  }
}

function printEngines(
  corpus: BenchCorpus,
  figures: CorpusFigures,
  engines: Map<string, PeerFigures>,
  memoriaHeld: number,
  memoriaLong: { p50: number; p99: number },
  memoriaShort: { p50: number; p99: number },
): void {
  const fts5 = engines.get("fts5");
  console.log(
    `\nthe same ${figures.passages.toLocaleString("en")} passages in a fresh process each (RSS from /proc after ` +
      `the build, settled, less before the input; latency in process, ${PEER_BUDGET_MS / 1000} s at most a mix)`,
  );
  console.log(
    "| engine | build s | RSS held MiB | B a byte of text | short p50 ms | short p99 ms | long p50 ms | long p99 ms | long p50 ÷ floor | long p99 ÷ floor | asked short/long |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  console.log(
    `| memoria (server, over HTTP) | – | ${(memoriaHeld / MiB).toFixed(0)} | ${(memoriaHeld / corpus.textBytes).toFixed(2)} | ${ms(memoriaShort.p50)} | ${ms(memoriaShort.p99)} | ` +
      `${ms(memoriaLong.p50)} | ${ms(memoriaLong.p99)} | ${times(figures.longP50Ratio)} | ${times(figures.longP99Ratio)} | ` +
      `${corpus.short.length}/${Math.min(QUESTIONS, corpus.long.length)} |`,
  );
  for (const [engine, f] of engines) {
    const held = f.rssAfterBytes - f.rssBeforeBytes;
    const name = engine === "fts5" ? "plain FTS5 table (floor)" : engine;
    console.log(
      `| ${name} | ${(f.buildMs / 1000).toFixed(2)} | ${(held / MiB).toFixed(0)} | ${(held / corpus.textBytes).toFixed(2)} | ` +
        `${ms(f.shortP50)} | ${ms(f.shortP99)} | ${ms(f.longP50)} | ${ms(f.longP99)} | ` +
        `${times(f.longP50 / (fts5?.longP50 ?? Number.NaN))} | ${times(f.longP99 / (fts5?.longP99 ?? Number.NaN))} | ` +
        `${f.shortAsked}/${f.longAsked} |`,
    );
  }
}

export interface RealSuiteOptions {
  /** Passages of the Debian corpus (at least; a whole file at a time) and of the synthetic one (exactly its count). */
  passages: number;
  corpora: readonly BenchCorpusName[];
  /** Whether the peers run beside each corpus. */
  peers: boolean;
}

export async function benchRealHttp(options: RealSuiteOptions): Promise<CorpusFigures[]> {
  const started = performance.now();
  const figures: CorpusFigures[] = [];
  let debianPassages: number | null = null;
  for (const name of options.corpora) {
    // The synthetic corpus holds as many passages as the manuals did in this run, so the two compare.
    if (name === "cranfield" && !existsSync(join(cranfieldDir(), "corpus.jsonl"))) {
      console.log(`\n## cranfield: not found at ${cranfieldDir()} (set MEMORIA_EVAL_DIR); skipped`);
      continue;
    }
    const corpus = benchCorpus(
      name,
      name === "synthetic" ? (debianPassages ?? options.passages) : options.passages,
    );
    if (name === "debian") debianPassages = corpus.passages.length;
    figures.push(await benchCorpusOverHttp(corpus, options.peers));
  }
  console.log(
    `\n## the suite's targets (the real suite took ${((performance.now() - started) / 60_000).toFixed(1)} min)`,
  );
  for (const line of formatSummary(figures, summarize(figures))) console.log(line);
  return figures;
}
