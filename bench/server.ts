// The server a bench measures over loopback HTTP, in a process of its own (so its event loop and memory are
// apart from the client's), and the client side that starts it and reads its port.

import { spawn } from "node:child_process";
import { createApp } from "../src/app.js";
import { systemClock } from "../src/clock.js";
import { silentLogger } from "../src/logger.js";
import { ChunkPool } from "../src/runtime/chunk-pool.js";
import { serveNode } from "../src/runtime/node-server.js";
import { searchThreadsFor } from "../src/runtime/start.js";
import { Keyring } from "../src/seal/keyring.js";
import { importMasterKeys } from "../src/seal/master.js";
import { openStorage } from "../src/store/storage.js";
import { benchConfig } from "./app-config.js";

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

/** Runs `script` with `args` (its server mode) under tsx; resolves its port once it listens. */
export function startBenchServer(script: string, args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = new Promise<number>((resolve, reject) => {
    let seen = "";
    child.stdout.on("data", (d: Buffer) => {
      seen += d.toString();
      const match = seen.match(/"message":"listening","port":(\d+)/);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`the bench server exited with ${code}: ${seen}`)));
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, port, exited };
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
