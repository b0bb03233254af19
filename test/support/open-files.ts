// Watches the files this process holds open, from a thread of its own, so it sees a file that a synchronous
// call on the main thread opens and closes again before returning (a rollback journal during a transaction,
// SQLite's unlinked temporary files). Linux only: it reads /proc/self/fd.

import { Worker } from "node:worker_threads";

const WATCHER = `
const { parentPort } = require("node:worker_threads");
const { readdirSync, readlinkSync } = require("node:fs");
const seen = new Set();
let polls = 0;
let running = true;
parentPort.on("message", () => { running = false; parentPort.postMessage({ seen: [...seen], polls }); });
function poll() {
  polls++;
  let fds = [];
  try { fds = readdirSync("/proc/self/fd"); } catch {}
  for (const fd of fds) {
    try { const target = readlinkSync("/proc/self/fd/" + fd); if (target.startsWith("/")) seen.add(target); } catch {}
  }
  // A look a millisecond: a journal is open for its whole transaction, and a busy loop would take a core.
  if (running) setTimeout(poll, 1);
}
parentPort.postMessage("ready");
poll();
`;

/** Starts watching; `stop()` ends it and gives every absolute path held open meanwhile, and how often it looked. */
export async function watchOpenFiles(): Promise<{ stop(): Promise<{ seen: string[]; polls: number }> }> {
  const worker = new Worker(WATCHER, { eval: true });
  await new Promise<void>((resolve) => worker.once("message", () => resolve()));
  return {
    async stop() {
      const done = new Promise<{ seen: string[]; polls: number }>((resolve) =>
        worker.once("message", resolve),
      );
      worker.postMessage("stop");
      const result = await done;
      await worker.terminate();
      return result;
    },
  };
}

/** The paths a database's data could reach a file by: a journal, a database file, SQLite's temporary files. */
export function databaseFiles(paths: readonly string[]): string[] {
  return paths.filter((p) => /memoria-passages|-journal|-wal|etilqs_|\.db\b/.test(p));
}
