// `npx tsx bench/engine-threads.ts [passages=20000] [ms=4000] [rounds=2] [another engine's package]`: how well the index's SQL engine
// itself answers on two threads at once, with nothing of memoria's around it. The plain FTS5 OR floor
// (bench/floor.ts) over the real suite's Debian passages answers the suite's long and short questions in a
// closed loop on one thread, then on two at once: each thread with its own private in-memory copy of the
// table, and both reading one named memdb database (as memoria's search threads read a team's index,
// docs/decisions/0044-search-threads.md). Prints each thread's ms a question and the two threads' throughput
// as a ratio to one thread's: 2.00× is a second core's whole worth, 1.00× none of it. The load average is
// printed before and after: on a shared machine, take the figures of a quiet window.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { CorpusPassage } from "./corpus.js";
import {
  CREATE_TABLE,
  FLOOR_ENGINE,
  floorRows,
  INSERT,
  plainOrExpression,
  SEARCH,
  SEARCH_LIMIT,
} from "./floor.js";
import { benchCorpus, QUESTIONS } from "./real-corpora.js";
import { median } from "./stats.js";

/**
 * A thread's loop, as plain JavaScript (a worker thread does not inherit tsx's loader): it opens the named
 * database, or builds its private copy as the floor builds it (bench/floor.ts: the same table, one
 * transaction, then 'optimize'), answers WARM questions unclocked, then as many as `ms` allows.
 */
const THREAD = `
const { workerData, parentPort } = require("node:worker_threads");
const { name, passages, expressions, ms, warm, limit, createTable, insertRow, searchSql } = workerData;
const engine = require(workerData.driver);
const db = engine.DatabaseSync ? new engine.DatabaseSync(name ?? ":memory:") : new engine(name ?? ":memory:");
if (!name) {
  db.exec(createTable);
  const insert = db.prepare(insertRow);
  db.exec("BEGIN");
  passages.forEach((p, i) => insert.run(p.heading, p.body, p.title, p.path, "c" + i, "d" + i, 0));
  db.exec("COMMIT");
  db.exec("INSERT INTO passages (passages) VALUES ('optimize')");
}
const search = db.prepare(searchSql);
for (let i = 0; i < warm; i++) search.all(expressions[i % expressions.length], limit);
const started = performance.now();
let answered = 0;
while (performance.now() - started < ms) search.all(expressions[answered++ % expressions.length], limit);
parentPort.postMessage((performance.now() - started) / answered);
db.close();
`;

/** Questions answered before the clock: each thread's statement prepared, its pages and JIT warm. */
const WARM = 40;

async function main(): Promise<void> {
  const passages = Number(process.argv[2] ?? 20_000);
  const ms = Number(process.argv[3] ?? 4000);
  const rounds = Number(process.argv[4] ?? 2);
  // Another engine, by package name ("libsql", which memoria's indexes ran on before decision 0089, or a
  // binding with its synchronous API): timed instead of the indexes' own, for a build made otherwise.
  const require = createRequire(import.meta.url);
  const driver = process.argv[5] ? require.resolve(process.argv[5]) : FLOOR_ENGINE;
  const layouts = ["private", "shared"] as const;
  const corpus = benchCorpus("debian", passages);
  console.log(`load average before: ${loadAverage()}`);
  console.log(`${corpus.passages.length} passages; ${rounds} rounds of ${ms / 1000} s a level; ${driver}`);
  const name = `file:/engine-threads-${randomBytes(8).toString("hex")}?vfs=memdb`;
  // Held open for the whole run: memdb drops a named database when its last connection closes.
  const keeper = sharedFloor(require(driver), name, corpus.passages);

  const run = (task: object, threads: number) =>
    Promise.all(
      Array.from(
        { length: threads },
        () =>
          new Promise<number>((resolve, reject) => {
            const worker = new Worker(THREAD, { eval: true, workerData: task });
            worker.once("message", (m: number) => resolve(m));
            worker.once("error", reject);
          }),
      ),
    );

  const rows: string[] = [];
  const ratios = new Map<string, number[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const [kind, questions] of [
      ["long", corpus.long.slice(0, QUESTIONS)],
      ["short", corpus.short],
    ] as const) {
      for (const layout of layouts) {
        const task = {
          driver,
          name: layout === "shared" ? name : null,
          passages: layout === "shared" ? null : corpus.passages,
          expressions: questions.map(plainOrExpression).filter((e) => e !== ""),
          ms,
          warm: WARM,
          limit: SEARCH_LIMIT,
          createTable: CREATE_TABLE,
          insertRow: INSERT,
          searchSql: SEARCH,
        };
        const [one = Number.NaN] = await run(task, 1);
        const two = await run(task, 2);
        const ratio = two.reduce((sum, each) => sum + one / each, 0);
        const key = `${kind} | ${layout}`;
        ratios.set(key, [...(ratios.get(key) ?? []), ratio]);
        rows.push(
          `| ${round} | ${key} | ${one.toFixed(3)} | ${two.map((t) => t.toFixed(3)).join(" / ")} | ${ratio.toFixed(2)}× |`,
        );
      }
    }
  }
  console.log(
    "| round | questions | copy | 1 thread: ms a question | 2 threads: ms a question each | 2 threads ÷ 1, questions/s |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const row of rows) console.log(row);
  console.log("| medians | questions | copy | 2 threads ÷ 1 |");
  console.log("|---|---|---|---|");
  for (const [key, values] of ratios) console.log(`| | ${key} | ${median(values).toFixed(2)}× |`);
  keeper.db.close();
  console.log(`load average after: ${loadAverage()}`);
}

await main();

/** The floor's table in the named database, built in this thread by `engine` as each thread builds its own. */
function sharedFloor(engine: EngineModule, name: string, passages: readonly CorpusPassage[]) {
  const db = engine.DatabaseSync ? new engine.DatabaseSync(name) : new engine(name);
  db.exec(CREATE_TABLE);
  const insert = db.prepare(INSERT);
  db.exec("BEGIN");
  for (const row of floorRows(passages)) insert.run(...row);
  db.exec("COMMIT");
  db.exec("INSERT INTO passages (passages) VALUES ('optimize')");
  return { db };
}

/** node:sqlite's API (the indexes' engine) or better-sqlite3's (libsql's): what sharedFloor uses of each. */
interface EngineDatabase {
  exec(sql: string): void;
  prepare(sql: string): { run(...values: unknown[]): unknown };
  close(): void;
}
type EngineModule = { DatabaseSync?: new (name: string) => EngineDatabase } & (new (
  name: string,
) => EngineDatabase);

function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").trim();
}
