// An embedded replica's pull from its primary, off the request thread. libSQL's native client pulls
// synchronously: a fresh disk's first pull copies the whole database (a 20k-passage team's, 32,771 pages, took
// 3.1 s from a sqld on the same machine), and on the request thread it held every request, the wake's first
// answer included, for all of it (decision 0107). On Node the pull runs in a child process: a thread could not
// be ended while it is inside the driver's native call, and a process exit waits for its threads, so a stop or
// a refused start would wait for the whole pull (or forever, if the primary stalled). Deno runs it on a worker
// thread (its own process would need Deno's permission flags passed on). The pull opens the replica's file,
// pulls, closes it and ends; the request thread opens the file only after that (replica-client.ts).

import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { setPriority } from "node:os";
import { Worker } from "node:worker_threads";

/** A pull under way: `opened` once the driver opened the replica, `pulled` once the copy is level with its primary. */
export interface ReplicaPull {
  readonly opened: Promise<void>;
  readonly pulled: Promise<void>;
  /** Ends the pull at once; a pull cut short leaves the copy at a frame it reached, which the next goes on from. */
  stop(): void;
}

/**
 * The pull's niceness (0 is the server's own, 19 the lowest): below the server's, so on a small machine a
 * wake's restore, which the first answer waits for, is not slowed by a copy it does not need yet.
 */
export const PULL_NICENESS = 10;

/** What the pull is given: the driver's entry (resolved where memoria's packages are), the file, the primary. */
interface PullInput {
  driver: string;
  path: string;
  syncUrl: string;
  authToken: string;
}

/**
 * The pull itself, as CommonJS evaluated by the runtime: the same source under `tsx`, from the bundle and in
 * the image, with no entry file to find. `input` and `report` come from the prelude of where it runs.
 */
const PULL_BODY = `
let db = null;
try {
  const Database = require(input.driver);
  db = new Database(input.path, { syncUrl: input.syncUrl, authToken: input.authToken });
  report("opened");
  db.sync();
  db.close();
  db = null;
  report("pulled");
} catch (error) {
  report("failed " + JSON.stringify(String((error && error.message) || error)));
  try { if (db) db.close(); } catch {}
}
`;

/** In a child process: the input on stdin, each step a line on stdout (one channel, so steps keep their order). */
const CHILD_SOURCE = `
const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const report = (line) => process.stdout.write(line + "\\n");
${PULL_BODY}`;

const WORKER_SOURCE = `
const { parentPort, workerData: input } = require("node:worker_threads");
const report = (line) => parentPort.postMessage(line);
${PULL_BODY}`;

/**
 * The path libSQL's native driver opens for a `file:` URL: the URL's path, percent-decoded. An embedded
 * replica's URL is a plain path (replicaUrlProblem refuses the rest).
 */
export function replicaPath(url: string): string {
  return decodeURIComponent(url.slice("file:".length).replace(/^\/\/(localhost)?(?=\/)/, ""));
}

/**
 * Why `url` cannot be an embedded replica's file, or null. The client that reads the replica refuses a query
 * other than its own two and a fragment, and a replica cannot live in memory; the pull would open such a URL
 * as a file of another name, so it is refused at start rather than retried for ever.
 */
export function replicaUrlProblem(url: string): string | null {
  if (!url.startsWith("file:")) return "it is not a file: URL";
  if (/[?#]/.test(url)) return "it has a query or a fragment (an embedded replica takes a plain file: path)";
  if (url.includes(":memory:")) return "an embedded replica cannot be in memory";
  if (/^file:\/\/(?!localhost\/|\/)/.test(url))
    return "it names a host (an embedded replica's file is on this machine)";
  try {
    if (replicaPath(url) === "") return "it has no path";
  } catch {
    return "its path is not valid percent-encoding";
  }
  return null;
}

/** Starts pulling the replica at `url` (a `file:` URL replicaUrlProblem accepts) from `syncUrl`. */
export function pullReplica(url: string, syncUrl: string, authToken: string | null): ReplicaPull {
  const input: PullInput = {
    driver: createRequire(import.meta.url).resolve("libsql"),
    path: replicaPath(url),
    syncUrl,
    authToken: authToken ?? "",
  };
  const opened = deferred();
  const pulled = deferred();
  const failed = (error: unknown) => {
    opened.reject(error);
    pulled.reject(error);
  };
  const step = (line: string) => {
    if (line === "opened") opened.resolve();
    else if (line === "pulled") pulled.resolve();
    else if (line.startsWith("failed "))
      failed(new Error(JSON.parse(line.slice("failed ".length)) as string));
  };
  // An end without "pulled" (stopped, or killed) is a pull that did not finish; after "pulled", a no-op.
  const ended = () => failed(new Error("the replica's pull ended before it finished"));
  const stop = "Deno" in globalThis ? onThread(input, step, ended) : inChild(input, step, ended);
  return { opened: opened.promise, pulled: pulled.promise, stop };
}

function inChild(input: PullInput, step: (line: string) => void, ended: () => void): () => void {
  // None of the parent's Node options (a loader, heap limits): the child runs plain CommonJS.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child: ChildProcess = spawn(process.execPath, ["-e", CHILD_SOURCE], {
    stdio: ["pipe", "pipe", "ignore"],
    env,
  });
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (text: string) => {
    out += text;
    for (let newline = out.indexOf("\n"); newline >= 0; newline = out.indexOf("\n")) {
      step(out.slice(0, newline));
      out = out.slice(newline + 1);
    }
  });
  child.on("error", ended);
  child.on("close", ended);
  // The wake that waits for its first answer comes first: the pull takes what CPU that leaves.
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, PULL_NICENESS);
    } catch {
      // A platform without priorities: the pull runs beside the wake as it is.
    }
  }
  // The token goes on stdin, not in the child's arguments or environment, which other tools list.
  child.stdin?.on("error", () => undefined);
  child.stdin?.end(JSON.stringify(input));
  return () => void child.kill("SIGKILL");
}

function onThread(input: PullInput, step: (line: string) => void, ended: () => void): () => void {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: input, execArgv: [] });
  worker.on("message", step);
  worker.on("error", ended);
  worker.on("exit", ended);
  return () => void worker.terminate();
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
