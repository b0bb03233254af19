// `npm run bench`: memoria's cold start and search latency against the floor, measured in the same run.
//
// For each corpus size it prints the floor (the sync engine's plain FTS5 load of the same plaintext into a
// fresh :memory: database), memoria's cold start (a new app over the sealed rows, until the first search is
// answered: read, open, index), and search latency p50/p99 over a fixed mix of 1–6 word queries. Figures are
// ratios to the floor, so a slower or busier machine shifts both sides alike.
//
// The sealed database for a size is made once and kept under .bench/ (sealed, like any memoria database),
// so later runs skip the ingest. Usage: npm run bench [-- --sizes 10000,90000] [--rounds 3]

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createApp, type Memoria } from "../src/app.js";
import { silentLogger } from "../src/logger.js";
import { fromBase64, toBase64Url } from "../src/seal/bytes.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { latestSchemaVersion } from "../src/store/migrations/index.js";
import { openStorage, type Storage } from "../src/store/storage.js";
import { type CorpusDocument, corpusPassages, generateCorpus, queryMix } from "./corpus.js";
import { measureFloor } from "./floor.js";

const ADMIN = "bench-admin-token-0123456789";
const SEED = 20261130;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function build(
  dbUrl: string,
  masterKey: Uint8Array<ArrayBuffer>,
): Promise<{ memoria: Memoria; storage: Storage }> {
  const storage = await openStorage({ url: dbUrl });
  const keyring = new Keyring(await importMasterKeys(masterKey));
  const memoria = createApp({
    config: { adminToken: ADMIN, cronToken: null, maxDocumentBytes: 5 * 1024 * 1024, catchupMs: 60_000 },
    storage,
    keyring,
    clock: { now: () => new Date() },
    logger: silentLogger,
  });
  return { memoria, storage };
}

function toMarkdownDocuments(docs: CorpusDocument[]) {
  return docs.map((d) => ({ title: d.title, content: d.content, path: d.path, format: "markdown" }));
}

/** Makes (or reuses) the sealed database for a corpus: a team, every document through the documents API. */
async function sealedCorpus(dir: string, docs: CorpusDocument[], chunks: number) {
  const name = `sealed-${chunks}-${SEED}-v${latestSchemaVersion}`;
  const dbFile = join(dir, `${name}.db`);
  const metaFile = join(dir, `${name}.json`);
  if (existsSync(dbFile) && existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as { key: string; apiKey: string };
    return {
      dbUrl: `file:${dbFile}`,
      masterKey: fromBase64(meta.key) as Uint8Array<ArrayBuffer>,
      apiKey: meta.apiKey,
    };
  }
  rmSync(dbFile, { force: true });
  const masterKey = crypto.getRandomValues(new Uint8Array(32));
  const dbUrl = `file:${dbFile}`;
  const { memoria, storage } = await build(dbUrl, masterKey);
  const team = await memoria.app.request("/v1/teams", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench" }),
  });
  const { apiKey } = (await team.json()) as { apiKey: string };
  const started = performance.now();
  const bodies = toMarkdownDocuments(docs);
  let done = 0;
  // A few writes in flight overlap sealing (off the main thread) with storage.
  const inFlight = 4;
  for (let i = 0; i < bodies.length; i += inFlight) {
    await Promise.all(
      bodies.slice(i, i + inFlight).map(async (body) => {
        const res = await memoria.app.request("/v1/documents", {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        if (res.status !== 201) throw new Error(`ingest answered ${res.status}`);
      }),
    );
    done += Math.min(inFlight, bodies.length - i);
    if (done % 500 < inFlight) process.stderr.write(`\r  sealing corpus: ${done}/${bodies.length} documents`);
  }
  process.stderr.write(
    `\r  sealed ${bodies.length} documents in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  memoria.close();
  storage.close();
  writeFileSync(metaFile, JSON.stringify({ key: toBase64Url(masterKey), apiKey }));
  return { dbUrl, masterKey, apiKey };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function benchSize(chunks: number, rounds: number, dir: string) {
  console.log(`\n## ${chunks.toLocaleString("en")} chunks`);
  const docs = generateCorpus({ chunks, seed: SEED });
  const passages = corpusPassages(docs);
  const corpus = await sealedCorpus(dir, docs, chunks);
  const queries = queryMix();

  const floorBefore = measureFloor(passages).ms;

  const { memoria, storage } = await build(corpus.dbUrl, corpus.masterKey);
  const headers = { authorization: `Bearer ${corpus.apiKey}` };
  const ask = (q: string) =>
    memoria.app.request(`/v1/search?${new URLSearchParams({ q, limit: "20" })}`, { headers });
  const coldStarted = performance.now();
  const first = await ask(queries[0] ?? "report");
  const coldMs = performance.now() - coldStarted;
  if (first.status !== 200) throw new Error(`first search answered ${first.status}`);
  const firstBody = (await first.json()) as { corpus: { chunks: number } };
  if (firstBody.corpus.chunks !== chunks) throw new Error(`index holds ${firstBody.corpus.chunks} chunks`);
  const rss = process.memoryUsage().rss;

  const times: number[] = [];
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t = performance.now();
      const res = await ask(q);
      const body = (await res.json()) as { hits: unknown[] };
      times.push(performance.now() - t);
      hits += body.hits.length;
    }
  }
  times.sort((a, b) => a - b);
  memoria.close();
  storage.close();

  const floorAfter = measureFloor(passages).ms;
  // The faster floor is the stricter comparison.
  const floor = Math.min(floorBefore, floorAfter);
  const rows: [string, string][] = [
    [
      "floor (sync engine, plain FTS5 load)",
      `${(floor / 1000).toFixed(2)} s  (runs: ${(floorBefore / 1000).toFixed(2)}, ${(floorAfter / 1000).toFixed(2)})`,
    ],
    [
      "cold start, sealed rows → first answer",
      `${(coldMs / 1000).toFixed(2)} s  = ${(coldMs / floor).toFixed(2)}× floor (target ≤ 1.5×)`,
    ],
    [
      "search p50",
      `${percentile(times, 50).toFixed(2)} ms  = ${(percentile(times, 50) / floor).toExponential(2)}× floor (target < 10 ms)`,
    ],
    [
      "search p99",
      `${percentile(times, 99).toFixed(2)} ms  = ${(percentile(times, 99) / floor).toExponential(2)}× floor (target < 100 ms)`,
    ],
    [
      "queries",
      `${times.length} (${queries.length} × ${rounds}), ${(hits / times.length).toFixed(1)} hits each on average`,
    ],
    ["resident memory after build", `${(rss / 1024 / 1024).toFixed(0)} MiB`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(40)} ${v}`);
}

async function main() {
  const sizes = arg("sizes", "10000,90000").split(",").map(Number);
  const rounds = Number(arg("rounds", "3"));
  const dir = resolve(".bench");
  mkdirSync(dir, { recursive: true });
  console.log(`memoria bench — node ${process.version}, ${new Date().toISOString()}`);
  for (const size of sizes) await benchSize(size, rounds, dir);
}

await main();
