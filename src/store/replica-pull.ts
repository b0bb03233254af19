// An embedded replica's pull from its primary, on a thread of its own. libSQL's native client pulls
// synchronously: a fresh disk's first pull copies the whole database (a 20k-passage team's, 32,771 pages, took
// 3.1 s from a sqld on the same machine), and on the request thread it held every request, the wake's first
// answer included, for all of it (decision 0107). The thread opens the replica's file, pulls, closes it, and
// ends; the request thread opens the file only after that (replica-client.ts).

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** A pull under way: `opened` once the thread reached the primary, `pulled` once the copy is level with it. */
export interface ReplicaPull {
  readonly opened: Promise<void>;
  readonly pulled: Promise<void>;
  /** Ends the thread; a pull cut short leaves the copy at a frame it reached, which the next pull goes on from. */
  stop(): void;
}

/**
 * The thread's whole work, as CommonJS evaluated by Node (`eval: true`): the same source under `tsx`, from the
 * bundle and in the image, with no entry file of its own to find. The driver's path comes from the request
 * thread, resolved where memoria's own packages are.
 */
const PULL_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { syncUrl: workerData.syncUrl, authToken: workerData.authToken });
parentPort.postMessage("opened");
try { db.sync(); } finally { db.close(); }
parentPort.postMessage("pulled");
`;

/** The path libSQL's native driver opens for a `file:` URL (the form `file:` URLs take in MEMORIA_DB_URL). */
export function replicaPath(url: string): string {
  const rest = (url.slice("file:".length).split("?")[0] ?? "").replace(/^\/\/[^/]*/, "");
  return decodeURIComponent(rest);
}

/** Starts pulling the replica at `url` (a `file:` URL) from `syncUrl` on a thread of its own. */
export function pullReplica(url: string, syncUrl: string, authToken: string | null): ReplicaPull {
  const worker = new Worker(PULL_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve("libsql"),
      path: replicaPath(url),
      syncUrl,
      authToken: authToken ?? "",
    },
  });
  const opened = deferred();
  const pulled = deferred();
  worker.on("message", (step: "opened" | "pulled") => (step === "opened" ? opened : pulled).resolve());
  const failed = (error: unknown) => {
    opened.reject(error);
    pulled.reject(error);
  };
  worker.on("error", failed);
  // An end without "pulled" (stopped, or the thread killed) is a pull that did not finish; after it, a no-op.
  worker.on("exit", () => failed(new Error("the replica's pull ended before it finished")));
  return { opened: opened.promise, pulled: pulled.promise, stop: () => void worker.terminate() };
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Whoever awaits one of the two and not the other: a rejection nobody awaits is not a crash.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
