// `npm run bench`: memoria's cold start and search latency against the floor, measured in the same run.
//
// For each corpus size it prints the floor (the index's own engine, @photostructure/sqlite, loading the same plaintext into a
// fresh :memory: FTS5 table in one transaction), memoria's cold start (a new process opening the sealed
// database, until its first search is answered: read, open, index), and search latency p50/p99 over a fixed
// mix of 200 queries of 1–6 words. Every measurement runs in a fresh process, alternating floor and cold
// start, and cold starts are given as ratios to the floor of the same pair, so a busier or slower machine
// moves both sides alike.
//
// Then the working-memory path (bench/memory.ts): gather + slice + render over a team of 100k entries with
// pools of ~600 candidates, against the floor of the same three reads as plain statements, each in its own
// fresh process, alternating.
//
// Search runs for each corpus shape (bench/shapes.ts): `sections`, ten ~1 KB sections a document, and
// `scifact`, one ~1.5 KB passage a document on average 1.1 — what most users' notes look like. Both query
// mixes are timed: the 200 queries of 1–6 words, and 200 natural-language queries of 10–20 words
// (bench/queries.ts), whose floor is the plain FTS5 OR of the same terms in process on the same plaintext.
//
// The peers suite (bench/peers.ts) builds MiniSearch, Orama and FlexSearch on the same passages, each in a
// fresh process next to memoria's cold start and the floor, times both mixes, and prints memoria against
// each as ratios; it writes the chart .bench/peers.svg.
//
// Then chunking (bench/chunk.ts): a generated 5 MiB markdown document and a 5 MiB page of real Sphinx and
// rustdoc pages, each against the floor of the same bytes chunked as plain text, each in its own fresh
// process, alternating; and a folder of real README files.
//
// The sealed database of a size is made once and kept under .bench/ (sealed, like any memoria database).
// Usage: npm run bench [-- --sizes 10000,90000] [--shapes sections,scifact] [--pairs 2] [--rounds 2]
//        [--entries 100000] [--peer-sizes 20000]
//        [--suites search,memory,chunk,peers,upload,page,ingest,extract,export,real,feedback,remote,audit,oauth,tuning]
//        [--audit-rounds 40] [--oauth-rounds 40]
//        [--ingest 5000] [--export 20000] [--export-rss 100000]
//        [--real-passages 20000] [--real-corpora debian,cranfield,synthetic] [--real-peers on|off]
//        [--tuning-passages 20000] [--tuning-rounds 2] [--tuning-mechanisms <names>] [--tuning-parts local,remote]
//
// The tuning suite (bench/tuning-ab.ts, not run unless named): each mechanism of speed or memory off, beside
// the server with all of them on, in the same run: the real suite's figures locally, and a wake 20 ms from sqld.
//
// The extract suite (bench/extract.ts, not run unless named): PDF text of a printed 600-page manual and of a
// 25 MiB file against pdftotext on the same file, and a DOCX zip bomb's refusal.
//
// The feedback suite (bench/feedback-cost.ts, not run unless named): feedback's cost by question length on
// 20,000 passages of Debian's manuals (--feedback-passages), against the plain FTS5 OR floor, in process.
// The real suite (bench/real-http.ts, not run unless named): memoria's own server entry over loopback HTTP on
// Debian's manuals (20,000 passages and more, --real-passages), Cranfield's abstracts and the synthetic
// SciFact shape at the manuals' passage count, side by side (--real-corpora debian,cranfield,synthetic):
// short and long questions against the floor, throughput and p50/p99 at 1/8/64 connections, another team's
// latency during a flood, the server's RSS a byte of text from /proc; MiniSearch, Orama, FlexSearch and the
// plain FTS5 table beside it in fresh processes (--real-peers off leaves them out); the suite's targets last.
// The upload suite (bench/upload.ts, not run unless named): another team's search latency while one team
// uploads a 5 MiB markdown document, with the chunk pool and with chunking inline.
// Without --sizes, `sections` runs at 10k and 90k chunks and `scifact` at 20k passages (sealing 90k
// SciFact-shaped documents one request at a time takes over seven minutes, once); --sizes sets both.
// The peers suite runs at 20k passages by default, one fresh process per engine and shape: Orama alone
// takes 2–3 minutes to build and query 20k passages on the 2-core machine (its long queries ~0.4 s each).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createApp } from "../src/app.js";
import { silentLogger } from "../src/logger.js";
import { toBase64Url } from "../src/seal/bytes.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { migrations } from "../src/store/migrations/index.js";
import { openStorage } from "../src/store/storage.js";
import { BENCH_ADMIN as ADMIN, benchConfig } from "./app-config.js";
import { benchAudit } from "./audit.js";
import { type ChartRow, peersChart } from "./chart.js";
import { benchChunk } from "./chunk.js";
import { CORPUS_SEED } from "./corpus.js";
import { benchExport } from "./export.js";
import { benchExtract } from "./extract.js";
import { benchFeedbackCost } from "./feedback-cost.js";
import { benchIngest } from "./ingest.js";
import type { SealedCorpus } from "./measure.js";
import { benchOAuth } from "./oauth.js";
import { benchPage } from "./page.js";
import { PEERS } from "./peers.js";
import { BENCH_CORPORA, type BenchCorpusName, isBenchCorpusName } from "./real-corpora.js";
import { benchRealHttp } from "./real-http.js";
import { benchRemote } from "./remote.js";
import { type CorpusShape, generateShape, isCorpusShape } from "./shapes.js";
import { benchTuningAb, TUNING_AB_NAMES } from "./tuning-ab.js";
import { benchUpload } from "./upload.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** Makes (or reuses) the sealed database of a corpus: one team, every document through the documents API. */
async function sealedCorpus(dir: string, shape: CorpusShape, chunks: number): Promise<string> {
  // Named by the schema's own text, so a changed migration never reuses a database made under the old one.
  const schema = createHash("sha256").update(JSON.stringify(migrations)).digest("hex").slice(0, 12);
  const name = `sealed-${shape}-${chunks}-${CORPUS_SEED}-${schema}`;
  const corpusFile = join(dir, `${name}.json`);
  if (existsSync(corpusFile)) return corpusFile;
  const dbFile = join(dir, `${name}.db`);
  rmSync(dbFile, { force: true });
  const masterKey = crypto.getRandomValues(new Uint8Array(32));
  const dbUrl = `file:${dbFile}`;
  const storage = await openStorage({ url: dbUrl });
  // No rate limit: the bench sends thousands of requests a minute with one key, on purpose.
  const memoria = createApp({
    config: benchConfig(),
    storage,
    keyring: new Keyring(await importMasterKeys(masterKey)),
    clock: { now: () => new Date() },
    logger: silentLogger,
  });
  const team = await memoria.app.request("/v1/teams", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench" }),
  });
  const { apiKey } = (await team.json()) as { apiKey: string };
  const docs = generateShape(shape, chunks);
  const started = performance.now();
  // A few writes in flight overlap sealing (off the main thread) with storage.
  const inFlight = 4;
  for (let i = 0; i < docs.length; i += inFlight) {
    await Promise.all(
      docs.slice(i, i + inFlight).map(async (d) => {
        const res = await memoria.app.request("/v1/documents", {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ title: d.title, content: d.content, path: d.path, format: "markdown" }),
        });
        if (res.status !== 201) throw new Error(`ingest answered ${res.status}`);
      }),
    );
    if ((i / inFlight) % 100 === 0) process.stderr.write(`\r  sealing corpus: ${i}/${docs.length} documents`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`\r  sealed ${docs.length} documents (${chunks} chunks) in ${seconds} s\n`);
  memoria.close();
  storage.close();
  const corpus: SealedCorpus = { dbUrl, key: toBase64Url(masterKey), apiKey, chunks };
  writeFileSync(corpusFile, JSON.stringify(corpus));
  return corpusFile;
}

/**
 * A copy of the sealed database of a corpus holding the team's sealed index snapshot as well (made once, beside
 * it): cold starts from rows read the original, which never gets one, and cold starts from the snapshot
 * read the copy.
 */
function snapshotCorpus(corpusFile: string): string {
  const snapshotFile = corpusFile.replace(/\.json$/, "-snapshot.json");
  if (existsSync(snapshotFile)) return snapshotFile;
  const corpus = JSON.parse(readFileSync(corpusFile, "utf8")) as SealedCorpus;
  const dbFile = corpus.dbUrl.replace(/^file:/, "");
  const copy = dbFile.replace(/\.db$/, "-snapshot.db");
  copyFileSync(dbFile, copy);
  const made = { ...corpus, dbUrl: `file:${copy}` };
  const tmp = `${snapshotFile}.tmp`;
  writeFileSync(tmp, JSON.stringify(made));
  const written = measure(["snapshot", tmp]);
  process.stderr.write(
    `  snapshot: ${written.parts} parts, ${((written.bytes ?? 0) / 1024 / 1024).toFixed(1)} MiB, built and written in ${((written.buildAndWriteMs ?? 0) / 1000).toFixed(1)} s\n`,
  );
  writeFileSync(snapshotFile, JSON.stringify(made));
  rmSync(tmp);
  return snapshotFile;
}

function measure(args: string[], script = "bench/measure.ts"): Record<string, number> {
  // --expose-gc lets each process collect before it reads its RSS (bench/stats.ts settledRssMiB).
  const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", script, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Record<string, number>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? Number.NaN) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const fmt = (xs: number[], digits = 2) => xs.map((x) => x.toFixed(digits)).join(", ");

async function benchSize(shape: CorpusShape, chunks: number, pairs: number, rounds: number, dir: string) {
  const corpusFile = await sealedCorpus(dir, shape, chunks);
  const snapshotFile = snapshotCorpus(corpusFile);
  const floors: number[] = [];
  const colds: number[] = [];
  const restores: number[] = [];
  const runs: Record<string, number>[] = [];
  const restoreRuns: Record<string, number>[] = [];
  const queryFloors: Record<string, number>[] = [];
  for (let i = 0; i < pairs; i++) {
    floors.push(measure(["floor", shape, String(chunks)]).floorMs ?? Number.NaN);
    const run = measure(["cold", corpusFile, String(rounds), "rows"]);
    runs.push(run);
    colds.push(run.coldMs ?? Number.NaN);
    const restore = measure(["cold", snapshotFile, String(rounds), "snapshot"]);
    restoreRuns.push(restore);
    restores.push(restore.coldMs ?? Number.NaN);
    queryFloors.push(measure(["queryfloor", shape, String(chunks), String(rounds)]));
  }
  const ratios = colds.map((c, i) => c / (floors[i] ?? Number.NaN));
  const restoreRatios = restores.map((c, i) => c / (floors[i] ?? Number.NaN));
  const of = (xs: Record<string, number>[], key: string) => xs.map((r) => r[key] ?? Number.NaN);
  // Each run against the query floor measured right after it, so both saw the same machine.
  const toFloor = (key: string) =>
    runs.map((r, i) => (r[key] ?? Number.NaN) / (queryFloors[i]?.[key] ?? Number.NaN));
  const toFloorAs = (key: string, floorKey: string) =>
    runs.map((r, i) => (r[key] ?? Number.NaN) / (queryFloors[i]?.[floorKey] ?? Number.NaN));
  const ms = (xs: number[]) => `${median(xs).toFixed(2)} ms  [${fmt(xs)}]`;
  const times = (xs: number[]) => `${median(xs).toFixed(2)}×  [${fmt(xs)}]`;
  const documents = generateShape(shape, chunks).length;
  console.log(
    `\n## ${shape}: ${chunks.toLocaleString("en")} chunks in ${documents.toLocaleString("en")} documents (${pairs} fresh-process pairs, medians; every run in brackets)`,
  );
  const rows: [string, string][] = [
    [
      "floor: plain FTS5 load of the plaintext",
      `${(median(floors) / 1000).toFixed(2)} s  [${fmt(floors.map((f) => f / 1000))}]`,
    ],
    [
      "cold start: sealed rows → first answer",
      `${(median(colds) / 1000).toFixed(2)} s  [${fmt(colds.map((c) => c / 1000))}]`,
    ],
    ["cold start / floor (target ≤ 1.5)", times(ratios)],
    [
      "cold start: sealed snapshot → first answer",
      `${(median(restores) / 1000).toFixed(2)} s  [${fmt(restores.map((c) => c / 1000))}]`,
    ],
    ["snapshot start / floor (≤ 0.5 at 23k, 0.35 at 90k)", times(restoreRatios)],
    ["  its search p50, 1–6 words", ms(of(restoreRuns, "p50"))],
    ["  its search p50, 10–20 words", ms(of(restoreRuns, "longP50"))],
    [
      "then merging the build left for later",
      `${(median(of(runs, "settleMs")) / 1000).toFixed(2)} s, searches served meanwhile`,
    ],
    ["search p50, 1–6 words (target < 10 ms)", ms(of(runs, "p50"))],
    ["search p99, 1–6 words (target < 100 ms)", ms(of(runs, "p99"))],
    ["  floor p50: plain FTS5 OR in process", ms(of(queryFloors, "p50"))],
    ["  floor p99", ms(of(queryFloors, "p99"))],
    ["  p50 / floor p50", times(toFloor("p50"))],
    ["  p99 / floor p99", times(toFloor("p99"))],
    ["search p50, 10–20 words", ms(of(runs, "longP50"))],
    ["search p99, 10–20 words", ms(of(runs, "longP99"))],
    ["  floor p50: plain FTS5 OR in process", ms(of(queryFloors, "longP50"))],
    ["  floor p99", ms(of(queryFloors, "longP99"))],
    ["  p50 / floor p50 (target ≤ 0.6)", times(toFloor("longP50"))],
    ["  p99 / floor p99 (target ≤ 0.6)", times(toFloor("longP99"))],
    ["search p50, 10–20 words, over loopback HTTP", ms(of(runs, "longHttpP50"))],
    ["search p99, 10–20 words, over loopback HTTP", ms(of(runs, "longHttpP99"))],
    ["  HTTP p50 / floor p50 (target ≤ 0.6)", times(toFloorAs("longHttpP50", "longP50"))],
    ["  HTTP p99 / floor p99 (target ≤ 0.6)", times(toFloorAs("longHttpP99", "longP99"))],
    [
      "queries per run, each mix",
      `${runs[0]?.queries ?? 0} (200-query mix × ${rounds}); ${(runs[0]?.hitsPerQuery ?? 0).toFixed(1)} and ${(runs[0]?.longHitsPerQuery ?? 0).toFixed(1)} hits each`,
    ],
    [
      "resident memory after the build",
      `${median(of(runs, "rssMiB")).toFixed(0)} MiB (${median(of(runs, "baseRssMiB")).toFixed(0)} MiB before any corpus)`,
    ],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(50)} ${v}`);
}

/**
 * memoria, the floor and each peer on one shape and size, one fresh process each, in that order and
 * `pairs` times over, so every engine's figures come from the same stretch of the same machine. memoria's
 * build is its cold start from sealed rows; the floor's is the plain FTS5 load, its search the plain OR;
 * a peer's build is from the plaintext in memory to its first answer.
 */
async function benchPeers(
  shape: CorpusShape,
  chunks: number,
  pairs: number,
  rounds: number,
  dir: string,
): Promise<ChartRow[]> {
  const corpusFile = await sealedCorpus(dir, shape, chunks);
  const engines = ["memoria", "FTS5 floor", ...PEERS] as const;
  const runs = new Map<string, Record<string, number>[]>(engines.map((e) => [e, []]));
  for (let i = 0; i < pairs; i++) {
    const cold = measure(["cold", corpusFile, String(rounds), "rows"]);
    runs.get("memoria")?.push({ ...cold, buildMs: cold.coldMs ?? Number.NaN });
    const load = measure(["floor", shape, String(chunks)]);
    const search = measure(["queryfloor", shape, String(chunks), String(rounds)]);
    runs.get("FTS5 floor")?.push({ ...search, buildMs: load.floorMs ?? Number.NaN });
    for (const peer of PEERS) {
      runs.get(peer)?.push(measure([peer, shape, String(chunks), String(rounds)], "bench/peers.ts"));
    }
  }
  const figure = (engine: string, key: string) =>
    median((runs.get(engine) ?? []).map((r) => r[key] ?? Number.NaN));
  const documents = generateShape(shape, chunks).length;
  console.log(
    `\n## peers, ${shape}: ${chunks.toLocaleString("en")} passages in ${documents.toLocaleString("en")} documents (${pairs} fresh process${pairs > 1 ? "es" : ""} each, medians; ${rounds} rounds of each 200-query mix)`,
  );
  for (const r of [...runs.values()].flat())
    r.heldMiB = (r.rssMiB ?? Number.NaN) - (r.baseRssMiB ?? Number.NaN);
  const keys = ["buildMs", "p50", "p99", "longP50", "longP99", "rssMiB", "heldMiB"] as const;
  // "held" is RSS after the build less RSS before any corpus: what the index itself costs.
  const header = ["engine", "build", "1–6 p50", "1–6 p99", "10–20 p50", "10–20 p99", "RSS", "held"];
  // The floor keeps no RSS figure: its load and its searches run in two processes, neither a server's.
  const cell = (key: string, v: number) =>
    !Number.isFinite(v)
      ? "–"
      : key === "buildMs"
        ? `${(v / 1000).toFixed(2)} s`
        : key === "rssMiB" || key === "heldMiB"
          ? `${v.toFixed(0)} MiB`
          : `${v.toFixed(2)} ms`;
  console.log(header.map((h, i) => (i === 0 ? h.padEnd(12) : h.padStart(11))).join(" "));
  for (const engine of engines) {
    console.log([engine.padEnd(12), ...keys.map((k) => cell(k, figure(engine, k)).padStart(11))].join(" "));
  }
  console.log("memoria / engine (below 1: memoria is faster or smaller)");
  for (const engine of engines.slice(1)) {
    console.log(
      [
        `  ÷ ${engine}`.padEnd(12),
        ...keys.map((k) => {
          const ratio = figure("memoria", k) / figure(engine, k);
          return (Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : "–").padStart(11);
        }),
      ].join(" "),
    );
  }
  return engines.map((engine) => ({
    shape: `${shape}, ${chunks.toLocaleString("en")} passages`,
    engine,
    buildMs: figure(engine, "buildMs"),
    p50: figure(engine, "p50"),
    p99: figure(engine, "p99"),
    longP50: figure(engine, "longP50"),
    longP99: figure(engine, "longP99"),
  }));
}

function benchMemory(entries: number, pairs: number, rounds: number) {
  const floors: Record<string, number>[] = [];
  const paths: Record<string, number>[] = [];
  for (let i = 0; i < pairs; i++) {
    floors.push(measure(["floor", String(entries), String(rounds)], "bench/memory.ts"));
    paths.push(measure(["path", String(entries), String(rounds)], "bench/memory.ts"));
  }
  const of = (runs: Record<string, number>[], key: string) => runs.map((r) => r[key] ?? Number.NaN);
  const ratio = (key: string) =>
    paths.map((p, i) => (p[key] ?? Number.NaN) / (floors[i]?.[key] ?? Number.NaN));
  const line = (xs: number[], unit: string) => `${median(xs).toFixed(2)}${unit}  [${fmt(xs)}]`;
  console.log(
    `\n## working memory, ${entries.toLocaleString("en")} entries (${pairs} fresh-process pairs, medians; every run in brackets)`,
  );
  const rows: [string, string][] = [
    ["floor p50: the three reads, plain statements", line(of(floors, "p50"), " ms")],
    ["floor p99", line(of(floors, "p99"), " ms")],
    ["gather + slice + render p50 (target < 5 ms)", line(of(paths, "p50"), " ms")],
    ["gather + slice + render p99 (target < 20 ms)", line(of(paths, "p99"), " ms")],
    ["p50 / floor p50", line(ratio("p50"), "×")],
    ["p99 / floor p99", line(ratio("p99"), "×")],
    ["slice alone p50 (target < 1 ms)", line(of(paths, "sliceP50"), " ms")],
    ["slice alone p99", line(of(paths, "sliceP99"), " ms")],
    [
      "asks per run",
      `${paths[0]?.asks ?? 0}, ${(paths[0]?.candidatesPerAsk ?? 0).toFixed(0)} candidates and ${(paths[0]?.includedPerAsk ?? 0).toFixed(0)} lines each`,
    ],
    ["resident memory with the index built", `${median(of(paths, "rssMiB")).toFixed(0)} MiB`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(46)} ${v}`);
}

/** Each shape's sizes when --sizes is not given; see the usage above for why scifact's is smaller. */
const DEFAULT_SIZES: Record<CorpusShape, string> = { sections: "10000,90000", scifact: "20000" };

async function main() {
  const sizesOf = (shape: CorpusShape) => arg("sizes", DEFAULT_SIZES[shape]).split(",").map(Number);
  const shapes = arg("shapes", "sections,scifact").split(",");
  for (const shape of shapes) if (!isCorpusShape(shape)) throw new Error(`unknown corpus shape: ${shape}`);
  const pairs = Number(arg("pairs", "2"));
  const rounds = Number(arg("rounds", "2"));
  const suites = arg("suites", "search,memory,chunk,peers").split(",");
  const dir = resolve(".bench");
  mkdirSync(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  console.log(`memoria bench — node ${process.version}, ${startedAt}`);
  if (suites.includes("search")) {
    for (const shape of shapes as CorpusShape[])
      for (const size of sizesOf(shape)) await benchSize(shape, size, pairs, rounds, dir);
  }
  if (suites.includes("memory")) benchMemory(Number(arg("entries", "100000")), pairs, rounds);
  if (suites.includes("upload")) await benchUpload();
  if (suites.includes("chunk")) benchChunk(pairs, measure);
  if (suites.includes("page")) await benchPage();
  if (suites.includes("extract")) await benchExtract();
  if (suites.includes("peers")) {
    const peerSizes = arg("peer-sizes", "20000").split(",").map(Number);
    const chart: ChartRow[] = [];
    for (const shape of shapes as CorpusShape[])
      for (const size of peerSizes) chart.push(...(await benchPeers(shape, size, pairs, rounds, dir)));
    const file = join(dir, "peers.svg");
    writeFileSync(
      file,
      peersChart(chart, `memoria and its peers — ${startedAt.slice(0, 10)}, node ${process.version}`),
    );
    console.log(`\nchart: ${file}`);
  }
  // bench/ingest.ts: N ~1.5 KB documents over HTTP, one a request and batched, against the FTS5 floor.
  if (suites.includes("ingest")) await benchIngest(Number(arg("ingest", "5000")));
  if (suites.includes("real")) {
    const corpora = arg("real-corpora", BENCH_CORPORA.join(",")).split(",");
    for (const name of corpora) if (!isBenchCorpusName(name)) throw new Error(`unknown corpus: ${name}`);
    await benchRealHttp({
      passages: Number(arg("real-passages", "20000")),
      corpora: corpora as BenchCorpusName[],
      peers: arg("real-peers", "on") !== "off",
    });
  }
  // bench/remote.ts: wakes over a real sqld behind a latency proxy and an embedded replica, against file:.
  if (suites.includes("remote"))
    await benchRemote({
      passages: Number(arg("remote-passages", "20000")),
      roundTrips: arg("remote-round-trips", "0,5,20").split(",").map(Number),
      wakes: Number(arg("remote-wakes", "2")),
    });
  // bench/tuning-ab.ts: each mechanism of speed or memory off, beside all on, locally and 20 ms from sqld.
  if (suites.includes("tuning")) {
    const mechanisms = arg("tuning-mechanisms", "")
      .split(",")
      .filter((name) => name !== "");
    for (const name of mechanisms)
      if (!TUNING_AB_NAMES.includes(name))
        throw new Error(`unknown mechanism: ${name} (known: ${TUNING_AB_NAMES.join(", ")})`);
    const parts = arg("tuning-parts", "local,remote").split(",");
    for (const part of parts)
      if (part !== "local" && part !== "remote") throw new Error(`unknown part: ${part}`);
    await benchTuningAb({
      passages: Number(arg("tuning-passages", "20000")),
      rounds: Number(arg("tuning-rounds", "2")),
      mechanisms,
      parts: parts as ("local" | "remote")[],
    });
  }
  // bench/audit.ts: a document write with its audit event in its transaction, ÷ the same write without.
  if (suites.includes("audit")) await benchAudit(Number(arg("audit-rounds", "40")));
  // bench/oauth.ts: /mcp with an OAuth access token ÷ with a team key; a refresh; a code's exchange.
  if (suites.includes("oauth")) await benchOAuth(Number(arg("oauth-rounds", "40")));
  if (suites.includes("feedback")) benchFeedbackCost(Number(arg("feedback-passages", "20000")), rounds);
  // bench/export.ts: a team's export and restore against the batch ingest of the same documents, and the
  // server's RSS while exporting and restoring a large team.
  if (suites.includes("export"))
    await benchExport(Number(arg("export", "20000")), Number(arg("export-rss", "100000")));
}

await main();
