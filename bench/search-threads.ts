// `npx tsx bench/search-threads.ts [--other-entry <checkout>/scripts/start.mjs or src/runtime/node.ts] [--rounds 3] [--ms 5000]
//   [--passages 20000] [--connections 1,8,64] [--node-flags "<flags>"] [--other-node-flags "<flags>"]
//   [--cold-slices 6]`: where the time of a long question goes when searches run on the
// search threads, at 1, 8 and 64 connections over loopback HTTP, on Debian's manuals (bench/real-corpora.ts).
// For each level it prints searches/s and, from /proc/<pid>/task/*/schedstat (read from outside, so nothing
// is added to the server), the CPU each kind of the server's threads spent a search, and their context
// switches a search (slept / preempted): the main thread (HTTP, auth, zod, JSON, the queue), the two search
// threads, V8's platform workers (GC helpers, background compilation) with Node's other start-up threads,
// and the threads started later (libuv's pool, the upload's chunk pool); the bench client's own CPU a search, since the client shares the machine's cores; and how the
// search threads spent the wall clock: on a core, runnable but waiting for one (the machine's load), or
// asleep (no search to run: the share a busier machine does not hide, and what a thread handed its next
// search ahead of time should not have while searches wait).
// With --other-entry, a second server (another checkout's entry, e.g. main's) holds the same documents and
// the levels alternate between the two in every round, so an A/B shares the machine's load; medians of the
// rounds are printed last. With --flood, each round also times another team's searches while one team floods
// with 64 connections (the real suite's target: p99 < 250 ms), on each server in turn. Load average noted before and
// after.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchCorpus } from "./real-corpora.js";
import { closedLoop, makeTeam } from "./real-http.js";
import { startMemoriaEntry } from "./server.js";
import { latency, median } from "./stats.js";

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

interface ThreadTime {
  /** ms on a core so far. */
  cpu: number;
  /** ms runnable but waiting for a core so far. */
  waiting: number;
  /** Context switches so far: the thread gave up its core (slept) / was taken off it (preempted). */
  voluntary: number;
  involuntary: number;
}

/** The switch counts of one thread, from its status file. */
function switches(status: string, name: string): number {
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
}

/** Each thread of `pid` so far, by thread id, from schedstat (ns on a core, ns on the run queue) and status. */
function threadTimes(pid: number): Map<number, ThreadTime> {
  const out = new Map<number, ThreadTime>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    let status: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8");
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
    } catch {
      continue; // The thread ended meanwhile.
    }
    const [cpu = 0, waiting = 0] = stat.trim().split(" ").map(Number);
    out.set(Number(tid), {
      cpu: cpu / 1e6,
      waiting: waiting / 1e6,
      voluntary: switches(status, "voluntary_ctxt_switches"),
      involuntary: switches(status, "nonvoluntary_ctxt_switches"),
    });
  }
  return out;
}

/**
 * The kinds of a server's threads. Node names none of them (every comm is "node"), so they are told apart by
 * when they started: the threads of the process as it listens, before any request, are the main thread and
 * Node's start-up threads — V8's platform workers (--v8-pool-size, 4 by default: concurrent and parallel GC,
 * background compilation) and Node's own few (the signal and inspector threads, asleep); threads started
 * later are the search threads (the two busiest of them during a level) and the rest (libuv's pool, the chunk
 * and extract pools' threads started by the documents' upload, idle while searching).
 */
interface Kinds {
  main: number;
  atStart: Set<number>;
}

/** CPU ms, and switches, a search of one kind of thread. */
interface KindTime {
  cpu: number;
  voluntary: number;
  involuntary: number;
}

interface Level {
  perSecond: number;
  /** A search: the main thread; the two search threads, each; V8's platform and start-up threads; later others. */
  main: KindTime;
  search: [KindTime, KindTime];
  platform: KindTime;
  later: KindTime;
  /** CPU ms a search of the bench's own process (its HTTP client and its GC). */
  client: number;
  /** Shares of the wall clock, the two search threads together: on a core, waiting for one, asleep. */
  onCore: number;
  waiting: number;
  asleep: number;
  refused: number;
}

async function level(
  base: string,
  pid: number,
  kinds: Kinds,
  apiKey: string,
  questions: readonly string[],
  connections: number,
  ms: number,
): Promise<Level> {
  const before = threadTimes(pid);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const run = await closedLoop(base, apiKey, questions, connections, ms);
  const wall = performance.now() - started;
  const client = process.cpuUsage(clientBefore);
  const after = threadTimes(pid);
  const n = Math.max(1, run.times.length);
  const spent = [...after].map(([tid, t]) => {
    const b = before.get(tid);
    return {
      tid,
      cpu: t.cpu - (b?.cpu ?? 0),
      waiting: t.waiting - (b?.waiting ?? 0),
      voluntary: t.voluntary - (b?.voluntary ?? 0),
      involuntary: t.involuntary - (b?.involuntary ?? 0),
    };
  });
  const sum = (ts: typeof spent): KindTime => ({
    cpu: ts.reduce((x, t) => x + t.cpu, 0) / n,
    voluntary: ts.reduce((x, t) => x + t.voluntary, 0) / n,
    involuntary: ts.reduce((x, t) => x + t.involuntary, 0) / n,
  });
  const laterOnes = spent.filter((t) => !kinds.atStart.has(t.tid)).sort((a, b) => b.cpu - a.cpu);
  const searching = laterOnes.slice(0, 2);
  const first = searching[0]?.cpu ?? 0;
  const second = searching[1]?.cpu ?? 0;
  const waiting = searching.reduce((x, t) => x + t.waiting, 0);
  return {
    perSecond: run.perSecond,
    main: sum(spent.filter((t) => t.tid === kinds.main)),
    search: [sum(searching.slice(0, 1)), sum(searching.slice(1, 2))],
    platform: sum(spent.filter((t) => kinds.atStart.has(t.tid) && t.tid !== kinds.main)),
    later: sum(laterOnes.slice(2)),
    client: (client.user + client.system) / 1000 / n,
    onCore: (first + second) / (2 * wall),
    waiting: waiting / (2 * wall),
    asleep: 1 - (first + second + waiting) / (2 * wall),
    refused: run.refused,
  };
}

const f2 = (x: number) => x.toFixed(2);
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

const kt = (k: KindTime) => `${f2(k.cpu)} (${f2(k.voluntary)}/${f2(k.involuntary)})`;

function row(name: string, connections: number, l: Level, one: number): string {
  const total = l.main.cpu + l.search[0].cpu + l.search[1].cpu + l.platform.cpu + l.later.cpu + l.client;
  return (
    `| ${name} | ${connections} | ${l.perSecond.toFixed(1)} | ${f2(l.perSecond / one)}× | ${kt(l.main)} | ` +
    `${kt(l.search[0])} + ${kt(l.search[1])} | ${kt(l.platform)} | ${kt(l.later)} | ${f2(l.client)} | ` +
    `${f2(total)} | ${pct(l.onCore)} | ${pct(l.waiting)} | ${pct(l.asleep)} | ${l.refused} |`
  );
}

const HEADER =
  "| server | connections | searches/s | ÷ 1 connection | main thread ms/search (switches: slept/preempted) | search threads | V8 platform + start-up threads | later others | client ms/search | all ms/search | search threads on a core | waiting for a core | asleep | 503 |\n" +
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";

async function main(): Promise<void> {
  const rounds = Number(arg("rounds", "3"));
  const ms = Number(arg("ms", "5000"));
  const connectionsList = arg("connections", "1,8,64").split(",").map(Number);
  const corpus = benchCorpus("debian", Number(arg("passages", "20000")));
  const long = corpus.long.slice(0, 200);
  const entries: [string, string | undefined][] = [["this checkout", undefined]];
  const other = arg("other-entry", "");
  if (other) entries.push(["other", other]);

  console.log(`load average before: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
  console.log(`${corpus.passages.length} passages; ${rounds} rounds of ${ms / 1000} s a level`);
  const scratch = entries.map(() => mkdtempSync(join(tmpdir(), "memoria-bench-threads-")));
  // --node-flags / --other-node-flags: Node's and V8's flags for one server alone (an A/B of a V8 flag).
  const nodeFlags = [arg("node-flags", ""), arg("other-node-flags", "")];
  const servers = entries.map(([, entry], i) =>
    startMemoriaEntry(
      scratch[i] as string,
      undefined,
      entry ?? undefined,
      (nodeFlags[i] ?? "").split(" ").filter((flag) => flag.length > 0),
    ),
  );
  for (const [i, flags] of nodeFlags.entries())
    if (flags && entries[i]) console.log(`${entries[i]?.[0]}: node ${flags}`);
  try {
    const setups = [];
    for (const [i, server] of servers.entries()) {
      const base = `http://127.0.0.1:${await server.port}`;
      const pid = server.child.pid ?? 0;
      const kinds: Kinds = { main: pid, atStart: new Set(threadTimes(pid).keys()) };
      const apiKey = await makeTeam(base, corpus.name, corpus.documents);
      // Every question once: each connection's first search of the team is not a cold one in the runs.
      await closedLoop(base, apiKey, long, 1, 2000);
      const otherKey = await makeTeam(base, "other", corpus.otherTeam);
      setups.push({ name: entries[i]?.[0] ?? "", base, apiKey, otherKey, pid, kinds });
    }
    // --cold-slices N: the first N seconds at 8 connections after the questions asked one at a time (which all
    // ran on the first search thread), second by second: the second thread's start and its first searches.
    const coldSlices = Number(arg("cold-slices", "0"));
    if (coldSlices > 0) {
      console.log(
        `\nthe first ${coldSlices} s at 8 connections, a second at a time (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`,
      );
      console.log(
        "| server | second | searches/s | search threads ms/search | V8 platform + start-up threads ms/search |",
      );
      console.log("|---|---|---|---|---|");
      for (const s of setups)
        for (let second = 1; second <= coldSlices; second++) {
          const l = await level(s.base, s.pid, s.kinds, s.apiKey, long, 8, 1000);
          console.log(
            `| ${s.name} | ${second} | ${l.perSecond.toFixed(1)} | ${f2(l.search[0].cpu + l.search[1].cpu)} | ${f2(l.platform.cpu)} |`,
          );
        }
    }
    const all = new Map<string, Level[]>();
    const flood = process.argv.includes("--flood");
    const floodP99 = new Map<string, number[]>();
    for (let round = 1; round <= rounds; round++) {
      console.log(`\nround ${round} (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`);
      console.log(HEADER);
      // Alternate which server goes first, so neither always runs after the other's flood.
      const order = round % 2 ? setups : [...setups].reverse();
      for (const connections of connectionsList) {
        for (const s of order) {
          const l = await level(s.base, s.pid, s.kinds, s.apiKey, long, connections, ms);
          const key = `${s.name}|${connections}`;
          all.set(key, [...(all.get(key) ?? []), l]);
          const one = all.get(`${s.name}|1`)?.at(-1)?.perSecond ?? l.perSecond;
          console.log(row(s.name, connections, l, one));
        }
      }
      if (flood)
        for (const s of order) {
          const [, during] = await Promise.all([
            closedLoop(s.base, s.apiKey, long, 64, ms),
            closedLoop(s.base, s.otherKey, long, 1, ms),
          ]);
          const l = latency(during.times);
          floodP99.set(s.name, [...(floodP99.get(s.name) ?? []), l.p99]);
          console.log(
            `${s.name}: another team during a 64-connection flood p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms (${during.times.length} searches)`,
          );
        }
    }
    console.log(`\nmedians of ${rounds} rounds (ratios: medians of each round's own ratio)`);
    console.log(HEADER);
    for (const s of setups) {
      const ones = all.get(`${s.name}|1`) ?? [];
      for (const connections of connectionsList) {
        const ls = all.get(`${s.name}|${connections}`) ?? [];
        const m = (pick: (l: Level) => number) => median(ls.map(pick));
        const mk = (pick: (l: Level) => KindTime): KindTime => ({
          cpu: m((x) => pick(x).cpu),
          voluntary: m((x) => pick(x).voluntary),
          involuntary: m((x) => pick(x).involuntary),
        });
        const ratio = median(ls.map((l, i) => l.perSecond / (ones[i]?.perSecond ?? Number.NaN)));
        const l: Level = {
          perSecond: m((x) => x.perSecond),
          main: mk((x) => x.main),
          search: [mk((x) => x.search[0]), mk((x) => x.search[1])],
          platform: mk((x) => x.platform),
          later: mk((x) => x.later),
          client: m((x) => x.client),
          onCore: m((x) => x.onCore),
          waiting: m((x) => x.waiting),
          asleep: m((x) => x.asleep),
          refused: m((x) => x.refused),
        };
        console.log(row(s.name, connections, l, l.perSecond / ratio));
      }
    }
    for (const [name, p99s] of floodP99)
      console.log(
        `${name}: another team's p99 during the flood, median of the rounds ${median(p99s).toFixed(1)} ms`,
      );
    console.log(`\nload average after: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
  } finally {
    for (const server of servers) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
