// One measurement in a fresh process, so that each figure starts from the same empty heap: a restarted
// server is exactly that. Prints one JSON line. Run by bench/run.ts:
//   tsx bench/measure.ts floor <chunks>        the floor for the generated corpus of that size
//   tsx bench/measure.ts cold <db> <rounds>    cold start of a sealed database, then the query mix

import { readFileSync } from "node:fs";
import { createApp } from "../src/app.js";
import { silentLogger } from "../src/logger.js";
import { fromBase64 } from "../src/seal/bytes.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { openStorage } from "../src/store/storage.js";
import { CORPUS_SEED, corpusPassages, generateCorpus, queryMix } from "./corpus.js";
import { measureFloor } from "./floor.js";

export interface SealedCorpus {
  dbUrl: string;
  key: string;
  apiKey: string;
  chunks: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function floor(chunks: number) {
  const passages = corpusPassages(generateCorpus({ chunks, seed: CORPUS_SEED }));
  return { floorMs: measureFloor(passages).ms };
}

async function cold(corpusFile: string, rounds: number) {
  const corpus = JSON.parse(readFileSync(corpusFile, "utf8")) as SealedCorpus;
  const queries = queryMix();
  const started = performance.now();
  const storage = await openStorage({ url: corpus.dbUrl });
  const keyring = new Keyring(await importMasterKeys(fromBase64(corpus.key) as Uint8Array<ArrayBuffer>));
  const memoria = createApp({
    config: { adminToken: null, cronToken: null, maxDocumentBytes: 5 * 1024 * 1024, catchupMs: 60_000 },
    storage,
    keyring,
    clock: { now: () => new Date() },
    logger: silentLogger,
  });
  const headers = { authorization: `Bearer ${corpus.apiKey}` };
  const ask = (q: string) =>
    memoria.app.request(`/v1/search?${new URLSearchParams({ q, limit: "20" })}`, { headers });
  const first = await ask(queries[0] ?? "report");
  const coldMs = performance.now() - started;
  const body = (await first.json()) as { corpus?: { chunks: number } };
  if (first.status !== 200 || body.corpus?.chunks !== corpus.chunks) {
    throw new Error(`first search answered ${first.status} over ${body.corpus?.chunks} chunks`);
  }
  // Search latency is the steady state's: after the merging the build left for later (a few seconds).
  const settleStarted = performance.now();
  const team = await memoria.directory.authenticate(corpus.apiKey);
  if (team) await memoria.indexes.settled(team.teamId);
  const settleMs = performance.now() - settleStarted;
  const rss = process.memoryUsage().rss;
  const times: number[] = [];
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t = performance.now();
      const res = await ask(q);
      hits += ((await res.json()) as { hits: unknown[] }).hits.length;
      times.push(performance.now() - t);
    }
  }
  times.sort((a, b) => a - b);
  memoria.close();
  storage.close();
  return {
    coldMs,
    settleMs,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    queries: times.length,
    hitsPerQuery: hits / times.length,
    rssMiB: rss / 1024 / 1024,
  };
}

const [mode, a, b] = process.argv.slice(2);
const result = mode === "floor" ? await floor(Number(a)) : await cold(a ?? "", Number(b ?? 1));
console.log(JSON.stringify(result));
