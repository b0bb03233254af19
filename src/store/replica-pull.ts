// An embedded replica's pull from its primary, off the request thread. libSQL's native client pulls
// synchronously: a fresh disk's first pull copies the whole database (a 20k-passage team's, 32,771 pages, took
// 3.1 s from a sqld on the same machine), and on the request thread it held every request, the wake's first
// answer included, for all of it (decision 0107). On Node the pull runs in a child process: a thread could not
// be ended while it is inside the driver's native call, and a process exit waits for its threads, so a stop or
// a refused start would wait for the whole pull (or for ever, if the primary stalled). Deno runs it on a worker
// thread (its own process would need Deno's permission flags passed on). The pull opens the replica's file,
// waits to be let begin (once the wake's reads are over: decision 0110), pulls, closes it and ends; `pulled`
// resolves once it has ended, and only then does the request thread open the file (replica-client.ts).

import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * A pull under way: `opened` once the driver opened the replica, `pulled` once the copy is level with its
 * primary. The driver opens the file at once (a start checks that it can); the copy itself waits for `begin`.
 */
export interface ReplicaPull {
  readonly opened: Promise<void>;
  readonly pulled: Promise<void>;
  /** Lets the copy begin (quiet-reads.ts says when). */
  begin(): void;
  /** Ends the pull at once. */
  stop(): void;
}

/**
 * The pull's niceness (0 is the server's own, 19 the lowest): below the server's, so on a small machine a
 * wake's restore, which the first answer waits for, is not slowed by a copy it does not need yet. Set by the
 * child itself before it loads the driver, so the driver's own threads inherit it.
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
  begin();
  db.sync();
  db.close();
  db = null;
  report("pulled");
} catch (error) {
  report("failed " + JSON.stringify(String((error && error.message) || error)));
  try { if (db) db.close(); } catch {}
}
`;

/**
 * In a child process: the input as the first line on stdin, and "begin" as the second, which lets the copy
 * begin; stdin ending without it (the server gone) ends the pull without copying. Each step a line on file
 * descriptor 3 (one channel of its own, so steps keep their order and nothing the driver prints is taken for
 * one).
 */
const CHILD_SOURCE = `
try { require("node:os").setPriority(${PULL_NICENESS}); } catch {}
const fs = require("node:fs");
const readLine = () => {
  const bytes = [];
  for (const byte = Buffer.alloc(1); fs.readSync(0, byte, 0, 1, null) === 1 && byte[0] !== 10; ) bytes.push(byte[0]);
  return Buffer.from(bytes).toString("utf8");
};
const input = JSON.parse(readLine());
const begin = () => {
  if (readLine() !== "begin") throw new Error("the server ended before the copy began");
};
const report = (line) => fs.writeSync(3, line + "\\n");
${PULL_BODY}`;

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { input, begun } = workerData;
const begin = () => Atomics.wait(new Int32Array(begun), 0, 0);
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
  let done = false;
  const failed = (error: unknown) => {
    opened.reject(error);
    pulled.reject(error);
  };
  const step = (line: string) => {
    if (line === "opened") opened.resolve();
    else if (line === "pulled") done = true;
    else if (line.startsWith("failed "))
      failed(new Error(JSON.parse(line.slice("failed ".length)) as string));
  };
  // Resolved only once the pull has ended and its hold on the file with it; an end without "pulled" (stopped,
  // killed, crashed) is a pull that did not finish.
  const ended = (why: string) => {
    if (done) pulled.resolve();
    else failed(new Error(`the replica's pull ended before it finished (${why})`));
  };
  const { begin, stop } = "Deno" in globalThis ? onThread(input, step, ended) : inChild(input, step, ended);
  return { opened: opened.promise, pulled: pulled.promise, begin, stop };
}

/**
 * What of the server's environment the child gets: where to find programs, certificates and a proxy. Not the
 * server's secrets (the master key, the tokens): the one the pull needs goes on its stdin.
 */
const CHILD_ENVIRONMENT = /^(PATH|HOME|TMPDIR|TZ|LANG|SSL_CERT_FILE|SSL_CERT_DIR|(HTTPS?|NO|ALL)_PROXY)$/i;

/** How much of the child's last words on stderr a failure keeps. */
const STDERR_KEPT = 1024;

interface PullControl {
  begin(): void;
  stop(): void;
}

function inChild(input: PullInput, step: (line: string) => void, ended: (why: string) => void): PullControl {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => CHILD_ENVIRONMENT.test(name)),
  );
  const child: ChildProcess = spawn(process.execPath, ["-e", CHILD_SOURCE], {
    stdio: ["pipe", "ignore", "pipe", "pipe"],
    env,
    // Its own process group: a Ctrl-C meant for the server is the server's to handle (it stops the pull).
    detached: true,
  });
  // Whatever way this process exits, the pull does not go on without it (a server killed outright aside).
  const killChild = () => child.kill("SIGKILL");
  process.once("exit", killChild);
  let steps = "";
  const fd3 = child.stdio[3] as NodeJS.ReadableStream | null;
  fd3?.setEncoding("utf8");
  fd3?.on("data", (text: string) => {
    steps += text;
    for (let newline = steps.indexOf("\n"); newline >= 0; newline = steps.indexOf("\n")) {
      step(steps.slice(0, newline));
      steps = steps.slice(newline + 1);
    }
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    stderr = (stderr + text).slice(-STDERR_KEPT);
  });
  child.on("error", (error) => ended(error.message));
  child.on("close", (code, signal) => {
    process.off("exit", killChild);
    ended(`${signal ? `signal ${signal}` : `exit code ${code}`}${stderr.trim() ? `: ${stderr.trim()}` : ""}`);
  });
  child.stdin?.on("error", () => undefined);
  // JSON escapes every newline inside its strings: the input is one line.
  child.stdin?.write(`${JSON.stringify(input)}\n`);
  return { begin: () => void child.stdin?.end("begin\n"), stop: () => void killChild() };
}

function onThread(input: PullInput, step: (line: string) => void, ended: (why: string) => void): PullControl {
  const begun = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { input, begun }, execArgv: [] });
  worker.on("message", step);
  worker.on("error", (error) => ended(error.message));
  worker.on("exit", (code) => ended(`exit code ${code}`));
  return {
    begin: () => {
      const flag = new Int32Array(begun);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    },
    stop: () => void worker.terminate(),
  };
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
