// The client that asks the real suite's questions one at a time (bench/real-http.ts askInTurn): a worker thread
// of the bench process holding nothing but the floor's table and an HTTP connection, so the times it takes
// are the server's and the floor's, not the bench's own garbage collection.
//
// The bench's main thread holds every corpus, its documents and the peers' inputs, and its collections of that
// heap ran inside the timed requests. Measured (the Debian corpus, 200 short questions asked
// once after 300 long ones, V8's "gc" performance entries of the bench's process against each timed search's
// window, three runs): 1–2 searches a run had 4.6–10.2 ms of the bench's own collection inside them, and in
// every run one of them was among the four slowest (4th; 1st and 2nd; 2nd: the p99 of 200 is the 2nd), while
// the server's own tookMs for them was 2.2–7.1 ms (docs/decisions/0086-lean-in-turn-client.md). A worker
// thread is a V8 heap of its own, collected on its own: the main thread's collections no longer stop its
// clock.

import { Worker } from "node:worker_threads";
import type { CorpusPassage } from "./corpus.js";
import { CREATE_TABLE, floorRows, INSERT, plainOrExpression, SEARCH, SEARCH_LIMIT } from "./floor.js";
import { latency } from "./stats.js";

/**
 * The thread, as plain JavaScript (a worker thread does not inherit tsx's loader). It builds the floor's
 * table as bench/floor.ts's loadedQueryFloor does (the same rows, one transaction, then 'optimize'), then for
 * each question in turn: the floor's plain OR, GET /healthz, and the search, over one keep-alive connection
 * (Node's fetch), each timed on this thread's clock. A search answered other than 200 ends the batch with
 * its status. Asked with `bare` (a URL) instead, each question's floor and then one GET of it. Before the
 * first question to each server it makes WARM_REQUESTS untimed.
 */
const THREAD = `
const { workerData, parentPort } = require("node:worker_threads");
const { DatabaseSync } = require(workerData.driver);
const db = new DatabaseSync(":memory:");
db.exec(workerData.createTable);
const insert = db.prepare(workerData.insertRow);
db.exec("BEGIN");
for (const row of workerData.rows) insert.run(...row);
db.exec("COMMIT");
db.exec("INSERT INTO passages (passages) VALUES ('optimize')");
const search = db.prepare(workerData.searchSql);
const limit = workerData.limit;
workerData.rows = null;
parentPort.postMessage({ ready: true });
const warm = new Set();
parentPort.on("message", async ({ base, apiKey, questions, bare }) => {
  const floor = [], healthz = [], http = [];
  try {
    const first = bare ?? base + "/healthz";
    if (!warm.has(first)) {
      for (let i = 0; i < workerData.warmRequests; i++) await fetch(first).then((r) => r.arrayBuffer());
      warm.add(first);
    }
    for (const { expression, path } of questions) {
      let t = performance.now();
      search.all(expression, limit);
      floor.push(performance.now() - t);
      t = performance.now();
      if (bare) {
        await fetch(bare).then((r) => r.arrayBuffer());
        http.push(performance.now() - t);
        continue;
      }
      await fetch(base + "/healthz").then((r) => r.arrayBuffer());
      healthz.push(performance.now() - t);
      t = performance.now();
      const res = await fetch(base + path, { headers: { authorization: "Bearer " + apiKey } });
      await res.json();
      if (res.status !== 200) throw new Error("a search answered " + res.status);
      http.push(performance.now() - t);
    }
    parentPort.postMessage({ floor, healthz, http });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
});
`;

/**
 * Requests the thread makes, untimed, before its first question: its fetch code compiled, as a client's is that
 * has been running a while (the main thread's was, by the uploads and the 300 questions before the timed
 * ones). Cold, the thread's /healthz read 0.83–0.92 ms p50 against the main thread's 0.77–0.80.
 */
const WARM_REQUESTS = 100;

export interface InTurnTimes {
  floor: { p50: number; p99: number };
  healthz: { p50: number; p99: number };
  http: { p50: number; p99: number };
}

export interface InTurnClient {
  /** Each question asked in turn of the floor, then `/healthz`, then the search (`path` of it) with `apiKey`. */
  ask(
    base: string,
    apiKey: string,
    questions: readonly string[],
    path: (q: string) => string,
  ): Promise<InTurnTimes>;
  /**
   * Each question's floor, then one GET of `bare` (bench/bare-server.ts): what a request costs this machine in
   * the same turn, with none of memoria's code. `http` holds the GET's times, `healthz` nothing.
   */
  askBare(bare: string, questions: readonly string[]): Promise<InTurnTimes>;
  close(): Promise<void>;
}

/** The client thread, its floor built from `passages`; resolves once the floor is ready. */
export async function openInTurnClient(
  passages: readonly CorpusPassage[],
  driver: string,
): Promise<InTurnClient> {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: {
      driver,
      rows: floorRows(passages),
      createTable: CREATE_TABLE,
      insertRow: INSERT,
      searchSql: SEARCH,
      limit: SEARCH_LIMIT,
      warmRequests: WARM_REQUESTS,
    },
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      worker.once("error", onError);
      worker.once("message", (message: Record<string, unknown>) => {
        worker.off("error", onError);
        resolve(message);
      });
    });
  await next();
  return {
    async ask(base, apiKey, questions, path) {
      const answered = next();
      worker.postMessage({
        base,
        apiKey,
        questions: questions.map((q) => ({ expression: plainOrExpression(q), path: path(q) })),
      });
      const message = await answered;
      if (typeof message.error === "string") throw new Error(message.error);
      const { floor, healthz, http } = message as { floor: number[]; healthz: number[]; http: number[] };
      return { floor: latency(floor), healthz: latency(healthz), http: latency(http) };
    },
    async askBare(bare, questions) {
      const answered = next();
      worker.postMessage({ bare, questions: questions.map((q) => ({ expression: plainOrExpression(q) })) });
      const message = await answered;
      if (typeof message.error === "string") throw new Error(message.error);
      const { floor, http } = message as { floor: number[]; http: number[] };
      return { floor: latency(floor), healthz: { p50: Number.NaN, p99: Number.NaN }, http: latency(http) };
    },
    async close() {
      await worker.terminate();
    },
  };
}
