// The server a bench measures over loopback HTTP, in a process of its own (so its event loop and memory are
// apart from the client's), and the client side that starts it and reads its port.

import { type ChildProcessByStdio, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { createApp } from "../src/app.js";
import { systemClock } from "../src/clock.js";
import { silentLogger } from "../src/logger.js";
import { ChunkPool } from "../src/runtime/chunk-pool.js";
import { serveNode } from "../src/runtime/node-server.js";
import { searchThreadsFor } from "../src/runtime/start.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { openStorage } from "../src/store/storage.js";
import { BENCH_ADMIN, benchConfig } from "./app-config.js";

/** Serves memoria on a loopback port until SIGTERM, printing `{"message":"listening","port":…}` once. */
export async function serveBenchApp(options: {
  dbUrl: string;
  /** Chunk on the worker-thread pool, as the server entries do; false chunks inline. */
  pool: boolean;
  maxDocumentBytes: number;
  /** Pseudo-relevance feedback in search (MEMORIA_SEARCH_FEEDBACK; on unless false, as memoria ships). */
  searchFeedback?: boolean;
  /** The master key, for a bench that starts a server again over the same database; else a random one. */
  masterKey?: Uint8Array<ArrayBuffer>;
}): Promise<void> {
  const storage = await openStorage({ url: options.dbUrl });
  const keyring = new Keyring(
    await importMasterKeys(options.masterKey ?? crypto.getRandomValues(new Uint8Array(32))),
  );
  const pool = options.pool ? new ChunkPool() : null;
  // As the server entries start them: MEMORIA_SEARCH_THREADS (inherited from the bench's environment), one
  // per core when unset.
  const threadsWanted = process.env.MEMORIA_SEARCH_THREADS;
  const threads = searchThreadsFor({
    searchThreads: threadsWanted ? Number(threadsWanted) : null,
    searchQueueTimeoutMs: 2000,
  });
  const memoria = createApp({
    config: benchConfig({
      maxDocumentBytes: options.maxDocumentBytes,
      searchFeedback: options.searchFeedback ?? true,
    }),
    storage,
    keyring,
    clock: systemClock,
    logger: silentLogger,
    ...(pool ? { chunker: pool.chunker } : {}),
    ...(threads ? { finder: threads } : {}),
  });
  serveNode({ fetch: memoria.app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
    console.log(JSON.stringify({ message: "listening", port: info.port })),
  );
  process.on("SIGTERM", () => {
    void Promise.all([pool?.close(), threads?.close()]).then(() => {
      memoria.close();
      storage.close();
      process.exit(0);
    });
  });
}

/**
 * The port a server process prints once it listens (`{"message":"listening","port":…}` on its standard
 * output); rejects if it exits first. What it prints after goes on being read and dropped, so the pipe never
 * fills.
 */
export function listeningPort(
  child: ChildProcessByStdio<null, Readable, null>,
  name: string,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let seen = "";
    const onData = (d: Buffer) => {
      seen += d.toString();
      const match = seen.match(/"message":"listening","port":(\d+)/);
      if (match) {
        seen = "";
        child.stdout.off("data", onData);
        child.stdout.resume();
        resolve(Number(match[1]));
      } else if (seen.length > 1 << 16) seen = seen.slice(-4096);
    };
    child.stdout.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${name} exited with ${code} before it listened`)));
  });
}

/** Runs `script` with `args` (its server mode) under tsx; resolves its port once it listens. */
export function startBenchServer(script: string, args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = listeningPort(child, "the bench server");
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, port, exited };
}

/** What `npm start` runs: src/ bundled into dist/, then its Node entry (dist/runtime/node.js). */
const NODE_START = resolve(import.meta.dirname, "../scripts/start.mjs");
/** Where the bench reads Cranfield from (bench/real-corpora.ts): the bench's variable, not the server's. */
const BENCH_ONLY = "MEMORIA_EVAL_DIR";

/** This checkout's package.json. */
const OWN_MANIFEST = resolve(import.meta.dirname, "../package.json");

/** The start script of the package.json at `manifestPath`. */
function startScript(manifestPath: string): string {
  return (JSON.parse(readFileSync(manifestPath, "utf8")) as { scripts: { start: string } }).scripts.start;
}

/**
 * The variables `npm start` sets before it runs the entry (package.json's start script, `NAME=value … exec
 * tsx …`), so the bench's server runs with what `npm start` gives it: glibc's malloc settings among them.
 */
export function startScriptEnvironment(manifestPath: string = OWN_MANIFEST): Record<string, string> {
  const assignments =
    /^((?:[A-Za-z_][A-Za-z0-9_]*=\S+\s+)*)exec\s/.exec(startScript(manifestPath))?.[1] ?? "";
  return Object.fromEntries(
    assignments
      .trim()
      .split(/\s+/)
      .filter((pair) => pair.length > 0)
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
}

/** The package.json of the checkout `nodeStart` belongs to: its start script's variables are that checkout's. */
function checkoutManifest(nodeStart: string): string {
  let dir = dirname(resolve(nodeStart));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, "package.json");
}

/** The flags package.json's start script gives node before scripts/start.mjs (`exec node --flag … scripts/…`). */
export function startScriptNodeFlags(manifestPath: string = OWN_MANIFEST): string[] {
  const flags = /\bexec\s+node\s+((?:--\S+\s+)*)\S/.exec(startScript(manifestPath))?.[1] ?? "";
  return flags.split(/\s+/).filter((flag) => flag.length > 0);
}

/**
 * memoria's own Node entry as `npm start` runs it (scripts/start.mjs: src/ bundled, then
 * dist/runtime/node.js, with the start script's variables and node flags) in a process of its own on a loopback
 * port, with whatever the checked-out server does by default: the bench measures the server as it ships.
 * The bench's own settings are an admin token, a master key (random unless given, to start again over the
 * same database), a database under `dbDir` and no rate limit; every MEMORIA_* variable of the bench's own
 * environment but its own is passed on (MEMORIA_SEARCH_THREADS, say), and returned as `passed` so a run can
 * print what it measured.
 */
export function startMemoriaEntry(
  dbDir: string,
  masterKey: string = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
  /**
   * Another checkout's start, for a bench that sets two servers side by side (bench/search-threads.ts): its
   * scripts/start.mjs, or the src/runtime/node.ts of a checkout from before npm start ran dist/ (through tsx).
   */
  nodeStart: string = NODE_START,
  /** Node's and V8's flags for this server alone, after the start script's own (an A/B of a V8 flag, say). */
  nodeFlags: readonly string[] = [],
  /** Variables of the bench's own on top (bench/rss-components.ts's --trim diagnostic). */
  extraEnv: Record<string, string> = {},
  /** The start script's variables this server starts without (bench/tuning-ab.ts's start-command A/B). */
  withoutEnv: readonly string[] = [],
) {
  const passed = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith("MEMORIA_") && entry[0] !== BENCH_ONLY && entry[1] !== undefined,
    ),
  );
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dbDir,
    ...startScriptEnvironment(checkoutManifest(nodeStart)),
    ...passed,
    PORT: "0",
    MEMORIA_HOST: "127.0.0.1",
    MEMORIA_DB_URL: `file:${join(dbDir, "memoria.db")}`,
    MEMORIA_MASTER_KEY: masterKey,
    MEMORIA_ADMIN_TOKEN: BENCH_ADMIN,
    // The bench is its own only client and sends thousands of requests a minute with one key.
    MEMORIA_RATE_LIMIT: "0",
    // Catch-up left alone: the bench is the only writer (as benchConfig).
    MEMORIA_CATCHUP_MS: "60000",
    ...extraEnv,
  };
  for (const name of withoutEnv) delete (env as Record<string, string>)[name];
  const child = spawn(
    process.execPath,
    [
      ...startScriptNodeFlags(checkoutManifest(nodeStart)),
      ...nodeFlags,
      ...(nodeStart.endsWith(".ts") ? ["--import", "tsx", nodeStart] : [nodeStart]),
    ],
    {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const port = listeningPort(child, "memoria");
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, port, exited, passed: Object.keys(passed), masterKey };
}

/** The bench's JSON client of a memoria server: one request, its status and its parsed JSON answer. */
export function benchClient(base: string) {
  return async (method: string, path: string, token: string, json?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}
