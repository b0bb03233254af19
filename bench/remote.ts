// The remote suite (`npm run bench -- --suites remote`): memoria deployed as its container runs it, a process
// that sleeps and wakes over storage across a network. A real sqld (the server Turso runs) holds a team of
// Debian's manuals; a latency proxy (bench/latency-proxy.ts) sets it 0, 5 or 20 ms of round trip away; an
// embedded replica starts on a fresh disk, as a container's does after sleeping. Everything is measured from
// outside the process, on the compiled entry the image runs (dist/runtime/node.js): exec to /readyz, exec to
// the first answer of a search after a wake (from the team's snapshot, and from its rows with no snapshot),
// the snapshot's write and the ingest through the batch route, each beside the same team on a `file:`
// database and the plain FTS5 load of the same passages (bench/floor.ts) measured in the same run.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStorage } from "../src/store/storage.js";
import { startSqld } from "../test/support/sqld.js";
import { BENCH_ADMIN } from "./app-config.js";
import { LARGE_TEAM_MANUALS } from "./debian-docs.js";
import { measureFloor } from "./floor.js";
import { type LatencyProxy, startLatencyProxy } from "./latency-proxy.js";
import { type BenchCorpus, type BenchDocument, debianCorpus } from "./real-corpora.js";
import { batches, call, searchPath } from "./real-http.js";
import { listeningPort, startMemoriaEntry } from "./server.js";
import { median, processRssBytes } from "./stats.js";

/** The compiled entry the image runs; `npm start` writes it (scripts/start.mjs) before the first wake here. */
const COMPILED_ENTRY = resolve(import.meta.dirname, "../dist/runtime/node.js");
const CRON_TOKEN = "bench-cron-token-0123456789";
/** Documents ingested through the proxy and near, side by side: enough batches for a steady per-document cost. */
const INGEST_SAMPLE_DOCUMENTS = 400;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** A wake that has not answered in this long is a failure of the run, not a figure. */
const WAKE_DEADLINE_MS = 300_000;

/** Where a wake's storage is: a `file:` database, a URL (sqld direct or through the proxy), or a fresh replica. */
export type Storage =
  | { kind: "file"; path: string }
  | { kind: "remote"; url: string }
  | { kind: "replica"; syncUrl: string };

function storageEnv(storage: Storage, replicaDir: () => string): Record<string, string> {
  if (storage.kind === "file") return { MEMORIA_DB_URL: `file:${storage.path}` };
  if (storage.kind === "remote") return { MEMORIA_DB_URL: storage.url };
  return { MEMORIA_DB_URL: `file:${join(replicaDir(), "replica.db")}`, MEMORIA_DB_SYNC_URL: storage.syncUrl };
}

interface Wake {
  readyMs: number;
  firstAnswerMs: number;
  source: string | null;
  loadMs: number | null;
  /** The server's resident set just after the first answer, MiB. */
  rssMiB: number;
  /** What `after` measured, when given. */
  afterMiB: number | null;
}

/**
 * Starts the compiled entry over `storage`, times exec → /readyz 200 and exec → the first search that answers
 * 200 (a cold team answers 503 while it loads), reads how the index was made from /v1/stats, and stops it.
 */
export async function wake(
  storage: Storage,
  masterKey: string,
  apiKey: string,
  question: string,
  dir: string,
  /** Variables and node flags of this wake alone (bench/tuning-ab.ts's A/B). */
  variant: {
    env?: Record<string, string>;
    nodeFlags?: readonly string[];
    /** Work after the first answer, on the same server; its figure is returned as `afterMiB`. */
    after?: (base: string, pid: number) => Promise<number>;
  } = {},
) {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    PORT: "0",
    MEMORIA_HOST: "127.0.0.1",
    MEMORIA_MASTER_KEY: masterKey,
    MEMORIA_ADMIN_TOKEN: BENCH_ADMIN,
    MEMORIA_RATE_LIMIT: "0",
    MEMORIA_LOG_LEVEL: "info",
    // A wake from rows must not spend the first answer's time writing a snapshot the next wake would use.
    MEMORIA_SNAPSHOT_MIN_CHUNKS: "100000000",
    ...storageEnv(storage, () => mkdtempSync(join(dir, "replica-"))),
    ...variant.env,
  };
  const started = performance.now();
  const child = spawn(process.execPath, [...(variant.nodeFlags ?? []), COMPILED_ENTRY], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  try {
    const base = `http://127.0.0.1:${await listeningPort(child, "memoria")}`;
    let readyMs = Number.NaN;
    const overdue = () => {
      if (performance.now() - started > WAKE_DEADLINE_MS) throw new Error("the wake did not answer in time");
    };
    for (; ; overdue()) {
      if ((await fetch(`${base}/readyz`)).ok) {
        readyMs = performance.now() - started;
        break;
      }
      await sleep(2);
    }
    for (; ; overdue()) {
      const answer = await call(base, "GET", searchPath(question), apiKey);
      if (answer.status === 200) break;
      if (answer.status !== 503) throw new Error(`the first search answered ${answer.status}`);
      await sleep(20);
    }
    const firstAnswerMs = performance.now() - started;
    const rss = processRssBytes(child.pid ?? 0) / (1024 * 1024);
    const stats = await call(base, "GET", "/v1/stats", apiKey);
    const index = stats.body.index as { source?: string | null; loadMs?: number | null };
    const afterMiB = variant.after ? await variant.after(base, child.pid ?? 0) : null;
    return {
      readyMs,
      firstAnswerMs,
      source: index.source ?? null,
      loadMs: index.loadMs ?? null,
      rssMiB: rss,
      afterMiB,
    } satisfies Wake;
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

/** A team of `documents` made through the batch route; its id, key and the ingest's milliseconds a document. */
async function ingestTeam(base: string, name: string, documents: readonly BenchDocument[]) {
  const team = await call(base, "POST", "/v1/teams", BENCH_ADMIN, { name });
  if (team.status !== 201) throw new Error(`making a team answered ${team.status}`);
  const apiKey = team.body.apiKey as string;
  const teamId = (team.body.team as { id: string }).id;
  const started = performance.now();
  for (const unit of batches(documents)) {
    const answer = await call(base, "POST", "/v1/documents/batch", apiKey, { documents: unit });
    if (answer.status !== 200) throw new Error(`the batch route answered ${answer.status}`);
  }
  return { apiKey, teamId, msPerDocument: (performance.now() - started) / documents.length };
}

/** `npm start`'s server over `dbUrl` for the duration of `work`; the same master key on every storage. */
export async function withServer<T>(
  dir: string,
  masterKey: string,
  dbUrl: string,
  work: (base: string) => Promise<T>,
) {
  const server = startMemoriaEntry(dir, masterKey, undefined, [], {
    MEMORIA_DB_URL: dbUrl,
    MEMORIA_CRON_TOKEN: CRON_TOKEN,
  });
  try {
    return await work(`http://127.0.0.1:${await server.port}`);
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
  }
}

/** The team ingested, then its snapshot written by the reindex ping (timed): what a wake restores. */
export async function seedTeam(base: string, corpus: BenchCorpus) {
  const team = await ingestTeam(base, "remote-bench", corpus.documents);
  const started = performance.now();
  const ping = await call(base, "POST", "/v1/reindex", CRON_TOKEN, { teamId: team.teamId });
  if (ping.status !== 200) throw new Error(`the reindex ping answered ${ping.status}`);
  return { ...team, snapshotMs: performance.now() - started };
}

async function dropSnapshot(dbUrl: string, teamId: string): Promise<void> {
  const storage = await openStorage({ url: dbUrl });
  try {
    await storage.snapshots.delete(teamId);
  } finally {
    storage.close();
  }
}

export interface RemoteSuiteOptions {
  passages: number;
  /** Round trips the proxy adds, in milliseconds; 0 is sqld reached directly. */
  roundTrips: number[];
  /** Wakes of each kind; the median is printed. */
  wakes: number;
}

export async function benchRemote(options: RemoteSuiteOptions): Promise<void> {
  // Past the ~21k passages Debian's manuals of the real suite hold, Python's and Node.js's join them.
  const corpus = debianCorpus(options.passages, options.passages > 21_000 ? LARGE_TEAM_MANUALS : undefined);
  console.log(`\nremote storage — ${corpus.description}; ${corpus.passages.length} passages`);
  const floorMs = median([0, 1, 2].map(() => measureFloor(corpus.passages).ms));
  const dir = mkdtempSync(join(tmpdir(), "memoria-remote-"));
  const running: LatencyProxy[] = [];
  let sqld: Awaited<ReturnType<typeof startSqld>> | null = null;
  try {
    sqld = await startSqld(dir);
    await measureWakes(options, corpus, floorMs, dir, sqld, running);
  } finally {
    for (const proxy of running) await proxy.close();
    await sqld?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureWakes(
  options: RemoteSuiteOptions,
  corpus: BenchCorpus,
  floorMs: number,
  dir: string,
  sqld: { url: string },
  running: LatencyProxy[],
): Promise<void> {
  const sqldPort = Number(new URL(sqld.url).port);
  const proxies = new Map<number, string>([[0, sqld.url]]);
  for (const rtt of options.roundTrips.filter((ms) => ms > 0)) {
    const proxy = await startLatencyProxy({ host: "127.0.0.1", port: sqldPort }, rtt);
    running.push(proxy);
    proxies.set(rtt, proxy.url);
  }
  const farthest = Math.max(...options.roundTrips);
  const masterKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
  const filePath = join(dir, "file.db");
  const question = corpus.short[0] ?? "install";
  const onFile = await withServer(dir, masterKey, `file:${filePath}`, (base) => seedTeam(base, corpus));
  const onSqld = await withServer(dir, masterKey, sqld.url.replace(/^http/, "ws"), (base) =>
    seedTeam(base, corpus),
  );
  const sample = corpus.documents.slice(0, INGEST_SAMPLE_DOCUMENTS);
  const near = await withServer(dir, masterKey, sqld.url, (base) => ingestTeam(base, "near", sample));
  const far = await withServer(dir, masterKey, proxies.get(farthest) ?? sqld.url, (base) =>
    ingestTeam(base, "far", sample),
  );

  // WebSocket streams (ws://) at every distance; HTTP (what libsql:// and https:// URLs use on Node) near
  // and at the farthest, the two transports side by side (decision 0098).
  const ws = (url: string) => url.replace(/^http/, "ws");
  const storages: { name: string; storage: Storage; apiKey: string }[] = [
    { name: "file:", storage: { kind: "file", path: filePath }, apiKey: onFile.apiKey },
    ...[...proxies].flatMap(([rtt, url]) => {
      const away = rtt === 0 ? "near" : `${rtt} ms away`;
      const schemes = rtt === 0 || rtt === farthest ? ["ws", "http"] : ["ws"];
      return schemes.map((scheme) => ({
        name: `sqld ${scheme}://, ${away}`,
        storage: { kind: "remote", url: scheme === "ws" ? ws(url) : url } as Storage,
        apiKey: onSqld.apiKey,
      }));
    }),
    {
      name: `embedded replica, fresh disk, ${farthest} ms`,
      storage: { kind: "replica", syncUrl: proxies.get(farthest) ?? sqld.url },
      apiKey: onSqld.apiKey,
    },
  ];
  const wakesOf = async (storage: Storage, apiKey: string) => {
    const runs: Wake[] = [];
    for (let i = 0; i < options.wakes; i++) runs.push(await wake(storage, masterKey, apiKey, question, dir));
    return {
      readyMs: median(runs.map((r) => r.readyMs)),
      firstAnswerMs: median(runs.map((r) => r.firstAnswerMs)),
      sources: [...new Set(runs.map((r) => r.source))].join("/"),
      loadMs: median(runs.map((r) => r.loadMs ?? Number.NaN)),
      rssMiB: median(runs.map((r) => r.rssMiB)),
    };
  };
  const fromSnapshot = [];
  for (const s of storages) fromSnapshot.push({ ...s, ...(await wakesOf(s.storage, s.apiKey)) });
  await dropSnapshot(`file:${filePath}`, onFile.teamId);
  await dropSnapshot(sqld.url, onSqld.teamId);
  const fromRows = [];
  for (const s of storages) fromRows.push({ ...s, ...(await wakesOf(s.storage, s.apiKey)) });

  const fileSnapshot = fromSnapshot[0]?.firstAnswerMs ?? Number.NaN;
  const fmt = (ms: number) => `${Math.round(ms)} ms`.padStart(9);
  const ratio = (x: number) => `${(x).toFixed(2)}×`.padStart(7);
  console.log(`  plain FTS5 load of the same passages (floor): ${Math.round(floorMs)} ms`);
  console.log(
    `  ingest through the batch route, ${sample.length} documents: ${near.msPerDocument.toFixed(2)} ms a document near, ` +
      `${far.msPerDocument.toFixed(2)} at ${farthest} ms (${ratio(far.msPerDocument / near.msPerDocument)})`,
  );
  console.log(
    `  the reindex ping that writes the snapshot: file: ${fmt(onFile.snapshotMs)}, sqld ws:// near ${fmt(onSqld.snapshotMs)}`,
  );
  console.log(
    `  wakes (median of ${options.wakes}), from exec:       ready  first answer   source   loadMs  ÷file snap  ÷floor   RSS`,
  );
  for (const [kind, rows] of [
    ["snapshot", fromSnapshot],
    ["rows", fromRows],
  ] as const) {
    for (const row of rows)
      console.log(
        `  ${`${kind}, ${row.name}`.padEnd(44)} ${fmt(row.readyMs)} ${fmt(row.firstAnswerMs)} ${row.sources.padStart(9)} ${fmt(row.loadMs)} ${ratio(row.firstAnswerMs / fileSnapshot)} ${ratio(row.firstAnswerMs / floorMs)} ${Math.round(row.rssMiB)} MiB`,
      );
  }
}
