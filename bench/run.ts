// `npm run bench`: memoria's cold start and search latency against the floor, measured in the same run.
//
// For each corpus size it prints the floor (libSQL's synchronous engine loading the same plaintext into a
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
// Then chunking (bench/chunk.ts): a generated 5 MiB markdown document against the floor of the same bytes
// chunked as plain text, each in its own fresh process, alternating; and a folder of real README files.
//
// The sealed database of a size is made once and kept under .bench/ (sealed, like any memoria database).
// Usage: npm run bench [-- --sizes 10000,90000] [--pairs 2] [--rounds 2] [--entries 100000]
//        [--suites search,memory,chunk,upload]
//
// The upload suite (bench/upload.ts, not run unless named): another team's search latency while one team
// uploads a 5 MiB markdown document, with the chunk pool and with chunking inline.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createApp } from "../src/app.js";
import { silentLogger } from "../src/logger.js";
import { toBase64Url } from "../src/seal/bytes.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { migrations } from "../src/store/migrations/index.js";
import { openStorage } from "../src/store/storage.js";
import { benchChunk } from "./chunk.js";
import { CORPUS_SEED, generateCorpus } from "./corpus.js";
import { benchIngest } from "./ingest.js";
import type { SealedCorpus } from "./measure.js";
import { benchUpload } from "./upload.js";

const ADMIN = "bench-admin-token-0123456789";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** Makes (or reuses) the sealed database of a corpus: one team, every document through the documents API. */
async function sealedCorpus(dir: string, chunks: number): Promise<string> {
  // Named by the schema's own text, so a changed migration never reuses a database made under the old one.
  const schema = createHash("sha256").update(JSON.stringify(migrations)).digest("hex").slice(0, 12);
  const name = `sealed-${chunks}-${CORPUS_SEED}-${schema}`;
  const corpusFile = join(dir, `${name}.json`);
  if (existsSync(corpusFile)) return corpusFile;
  const dbFile = join(dir, `${name}.db`);
  rmSync(dbFile, { force: true });
  const masterKey = crypto.getRandomValues(new Uint8Array(32));
  const dbUrl = `file:${dbFile}`;
  const storage = await openStorage({ url: dbUrl });
  const memoria = createApp({
    config: { adminToken: ADMIN, cronToken: null, maxDocumentBytes: 5 * 1024 * 1024, catchupMs: 60_000 },
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
  const docs = generateCorpus({ chunks, seed: CORPUS_SEED });
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

function measure(args: string[], script = "bench/measure.ts"): Record<string, number> {
  const out = execFileSync(process.execPath, ["--import", "tsx", script, ...args], {
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

async function benchSize(chunks: number, pairs: number, rounds: number, dir: string) {
  const corpusFile = await sealedCorpus(dir, chunks);
  const floors: number[] = [];
  const colds: number[] = [];
  const runs: Record<string, number>[] = [];
  for (let i = 0; i < pairs; i++) {
    floors.push(measure(["floor", String(chunks)]).floorMs ?? Number.NaN);
    const run = measure(["cold", corpusFile, String(rounds)]);
    runs.push(run);
    colds.push(run.coldMs ?? Number.NaN);
  }
  const ratios = colds.map((c, i) => c / (floors[i] ?? Number.NaN));
  const p50s = runs.map((r) => r.p50 ?? Number.NaN);
  const p99s = runs.map((r) => r.p99 ?? Number.NaN);
  console.log(
    `\n## ${chunks.toLocaleString("en")} chunks (${pairs} fresh-process pairs, medians; every run in brackets)`,
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
    ["cold start / floor (target ≤ 1.5)", `${median(ratios).toFixed(2)}×  [${fmt(ratios)}]`],
    [
      "then merging the build left for later",
      `${(median(runs.map((r) => r.settleMs ?? 0)) / 1000).toFixed(2)} s, searches served meanwhile`,
    ],
    ["search p50 (target < 10 ms)", `${median(p50s).toFixed(2)} ms  [${fmt(p50s)}]`],
    ["search p99 (target < 100 ms)", `${median(p99s).toFixed(2)} ms  [${fmt(p99s)}]`],
    [
      "queries per run",
      `${runs[0]?.queries ?? 0} (200-query mix × ${rounds}), ${(runs[0]?.hitsPerQuery ?? 0).toFixed(1)} hits each`,
    ],
    ["resident memory after the build", `${median(runs.map((r) => r.rssMiB ?? 0)).toFixed(0)} MiB`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(42)} ${v}`);
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

async function main() {
  const sizes = arg("sizes", "10000,90000").split(",").map(Number);
  const pairs = Number(arg("pairs", "2"));
  const rounds = Number(arg("rounds", "2"));
  const suites = arg("suites", "search,memory,chunk").split(",");
  const dir = resolve(".bench");
  mkdirSync(dir, { recursive: true });
  console.log(`memoria bench — node ${process.version}, ${new Date().toISOString()}`);
  if (suites.includes("search")) for (const size of sizes) await benchSize(size, pairs, rounds, dir);
  if (suites.includes("memory")) benchMemory(Number(arg("entries", "100000")), pairs, rounds);
  if (suites.includes("upload")) await benchUpload();
  if (suites.includes("chunk")) benchChunk(pairs, measure);
  // bench/ingest.ts: N ~1.5 KB documents over HTTP, one a request and batched, against the FTS5 floor.
  if (suites.includes("ingest")) await benchIngest(Number(arg("ingest", "5000")));
}

await main();
