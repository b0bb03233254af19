// One measurement in a fresh process, so that each figure starts from the same empty heap: a restarted
// server is exactly that. Prints one JSON line. Run by bench/run.ts:
//   tsx bench/measure.ts floor <shape> <chunks>                the floor for the generated corpus
//   tsx bench/measure.ts queryfloor <shape> <chunks> <rounds>  the plain FTS5 OR of both query mixes
//   tsx bench/measure.ts cold <db> <rounds> [rows|snapshot]    cold start of a sealed database, then both
//                                                              query mixes (1–6 words, then 10–20 words);
//                                                              from the rows (writing no snapshot), or
//                                                              restoring the sealed index snapshot it holds
//   tsx bench/measure.ts snapshot <db>                         builds the team's index and writes its
//                                                              sealed snapshot into the database

import { readFileSync } from "node:fs";
import { createApp } from "../src/app.js";
import { silentLogger } from "../src/logger.js";
import { serveNode } from "../src/runtime/node-server.js";
import { fromBase64 } from "../src/seal/bytes.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { openStorage } from "../src/store/storage.js";
import { benchConfig } from "./app-config.js";
import { corpusPassages, queryMix } from "./corpus.js";
import { measureFloor, measureQueryFloor, SEARCH_LIMIT } from "./floor.js";
import { longQueryMix } from "./queries.js";
import { type CorpusShape, generateShape, isCorpusShape } from "./shapes.js";
import { latency, settledRssMiB } from "./stats.js";

export interface SealedCorpus {
  dbUrl: string;
  key: string;
  apiKey: string;
  chunks: number;
}

function floor(shape: CorpusShape, chunks: number) {
  const passages = corpusPassages(generateShape(shape, chunks));
  return { floorMs: measureFloor(passages).ms };
}

function queryFloor(shape: CorpusShape, chunks: number, rounds: number) {
  const passages = corpusPassages(generateShape(shape, chunks));
  const [short = [], long = []] = measureQueryFloor(passages, [queryMix(), longQueryMix()], rounds);
  const s = latency(short);
  const l = latency(long);
  return { p50: s.p50, p99: s.p99, longP50: l.p50, longP99: l.p99 };
}

/** Builds the corpus team's index from rows and writes its sealed snapshot (kept in the database). */
async function snapshot(corpusFile: string) {
  const corpus = JSON.parse(readFileSync(corpusFile, "utf8")) as SealedCorpus;
  const storage = await openStorage({ url: corpus.dbUrl });
  const keyring = new Keyring(await importMasterKeys(fromBase64(corpus.key) as Uint8Array<ArrayBuffer>));
  const memoria = createApp({
    config: benchConfig({ adminToken: null, snapshotMinChunks: 0 }),
    storage,
    keyring,
    clock: { now: () => new Date() },
    logger: silentLogger,
  });
  const team = await memoria.directory.authenticate(corpus.apiKey);
  if (!team) throw new Error("the corpus key does not authenticate");
  await storage.snapshots.delete(team.teamId);
  const started = performance.now();
  await memoria.indexes.ready(team);
  await memoria.indexes.settled(team.teamId);
  await memoria.indexes.snapshotsSettled();
  const writtenMs = performance.now() - started;
  const head = await storage.snapshots.head(team.teamId);
  if (!head) throw new Error("no snapshot was written");
  memoria.close();
  storage.close();
  return { parts: head.parts, bytes: head.bytes, buildAndWriteMs: writtenMs };
}

async function cold(corpusFile: string, rounds: number, from: "rows" | "snapshot") {
  const corpus = JSON.parse(readFileSync(corpusFile, "utf8")) as SealedCorpus;
  const queries = queryMix();
  const longQueries = longQueryMix();
  // What the process holds before any corpus: the runtime, the modules and the query mixes.
  const baseRssMiB = settledRssMiB();
  const started = performance.now();
  const storage = await openStorage({ url: corpus.dbUrl });
  const keyring = new Keyring(await importMasterKeys(fromBase64(corpus.key) as Uint8Array<ArrayBuffer>));
  // No rate limit: the bench sends thousands of requests a minute with one key, on purpose.
  // From rows: no snapshot written afterwards either, so the database stays as it was for the next run.
  const memoria = createApp({
    config: benchConfig({ adminToken: null, snapshotMinChunks: Number.MAX_SAFE_INTEGER }),
    storage,
    keyring,
    clock: { now: () => new Date() },
    logger: silentLogger,
  });
  const headers = { authorization: `Bearer ${corpus.apiKey}` };
  const ask = (q: string) =>
    memoria.app.request(`/v1/search?${new URLSearchParams({ q, limit: String(SEARCH_LIMIT) })}`, { headers });
  const first = await ask(queries[0] ?? "report");
  const coldMs = performance.now() - started;
  const restored = memoria.indexes.snapshotCounts().restored;
  if (restored !== (from === "snapshot" ? 1 : 0)) {
    throw new Error(`a cold start from ${from} restored ${restored} snapshots`);
  }
  const body = (await first.json()) as { corpus?: { chunks: number } };
  if (first.status !== 200 || body.corpus?.chunks !== corpus.chunks) {
    throw new Error(`first search answered ${first.status} over ${body.corpus?.chunks} chunks`);
  }
  // Search latency is the steady state's: after the merging the build left for later (a few seconds).
  const settleStarted = performance.now();
  const team = await memoria.directory.authenticate(corpus.apiKey);
  if (team) await memoria.indexes.settled(team.teamId);
  const settleMs = performance.now() - settleStarted;
  const rssMiB = settledRssMiB();
  const timeMix = async (mix: string[]) => {
    const times: number[] = [];
    let hits = 0;
    for (let r = 0; r < rounds; r++) {
      for (const q of mix) {
        const t = performance.now();
        const res = await ask(q);
        hits += ((await res.json()) as { hits: unknown[] }).hits.length;
        times.push(performance.now() - t);
      }
    }
    return { times, hitsPerQuery: hits / times.length };
  };
  const short = await timeMix(queries);
  const long = await timeMix(longQueries);
  // The long mix over loopback HTTP as well, as the performance target is stated: a socket, Node's HTTP
  // server and fetch's client, all in this one process, so it overstates what a client elsewhere would see.
  let port = 0;
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const s = serveNode({ fetch: memoria.app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
      port = info.port;
      resolve(s);
    });
  });
  const longHttp: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      for (const q of longQueries) {
        const t = performance.now();
        const res = await fetch(
          `http://127.0.0.1:${port}/v1/search?${new URLSearchParams({ q, limit: String(SEARCH_LIMIT) })}`,
          { headers },
        );
        await res.json();
        longHttp.push(performance.now() - t);
      }
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  memoria.close();
  storage.close();
  const s = latency(short.times);
  const l = latency(long.times);
  return {
    coldMs,
    settleMs,
    p50: s.p50,
    p99: s.p99,
    longP50: l.p50,
    longP99: l.p99,
    longHttpP50: latency(longHttp).p50,
    longHttpP99: latency(longHttp).p99,
    queries: short.times.length,
    hitsPerQuery: short.hitsPerQuery,
    longHitsPerQuery: long.hitsPerQuery,
    rssMiB,
    baseRssMiB,
  };
}

function shapeArg(name: string | undefined): CorpusShape {
  if (name === undefined || !isCorpusShape(name)) throw new Error(`unknown corpus shape: ${name}`);
  return name;
}

const [mode, a, b, c] = process.argv.slice(2);
const result =
  mode === "floor"
    ? floor(shapeArg(a), Number(b))
    : mode === "queryfloor"
      ? queryFloor(shapeArg(a), Number(b), Number(c ?? 1))
      : mode === "snapshot"
        ? await snapshot(a ?? "")
        : await cold(a ?? "", Number(b ?? 1), c === "snapshot" ? "snapshot" : "rows");
console.log(JSON.stringify(result));
