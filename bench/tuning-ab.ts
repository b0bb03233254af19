// The tuning A/B (`npm run bench -- --suites tuning`): every mechanism of speed or memory (src/tuning.ts, and
// the two the start command carries: glibc's mmap threshold and the main isolate's small young generation)
// turned off one at a time, each beside the server with all of them on, in the same run. A mechanism stays
// only while it shows a gain a user would notice: a figure that moves by more than the run's own noise (the
// all-on server's spread, and what a variant that changes nothing moves it; docs/decisions/0111).
//
// Two parts, each a round after another, the variants' order rotated by one every round so that none always
// runs at the same point of the run (the machine's load drifts over a run):
//  - local: memoria's own server entry, as `npm start` runs it, on a `file:` database. A team of Debian's
//    manuals loaded through the batch route; RSS after the build and after 300 long questions; short and long
//    questions asked in turn beside the FTS5 floor (p50, p99); then a restart over the same database, its first
//    search (the build), and RSS after 300 long questions again. The real suite's figures, without its
//    throughput levels, flood and peers.
//  - remote: the compiled entry the image runs, waking over a real sqld 20 ms away (the latency proxy) from the
//    team's sealed snapshot: exec to the first answer, and RSS then and after 100 long questions and 1.5 s
//    idle.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TuningMechanism, tuningMechanisms } from "../src/tuning.js";
import { startSqld } from "../test/support/sqld.js";
import { FLOOR_ENGINE } from "./floor.js";
import { openInTurnClient } from "./in-turn-client.js";
import { type LatencyProxy, startLatencyProxy } from "./latency-proxy.js";
import { type BenchCorpus, benchCorpus, MEMORY_QUESTIONS } from "./real-corpora.js";
import { askInTurn, call, makeTeam, searchPath } from "./real-http.js";
import { seedTeam, wake, withServer } from "./remote.js";
import { startMemoriaEntry, startScriptEnvironment, startScriptNodeFlags } from "./server.js";
import { median, processRssBytes } from "./stats.js";

/** One server of the A/B: all on, one mechanism off, or the start command without one of its two. */
interface Variant {
  name: string;
  env: Record<string, string>;
  nodeFlags: readonly string[];
  withoutEnv: readonly string[];
}

/**
 * V8's own bound on a semispace on this machine's Node (16 MiB): the main isolate's young generation as it is
 * without the start command's --max-semi-space-size=2. A later flag wins, so this undoes that one.
 */
const V8_DEFAULT_SEMI_SPACE = "--max-semi-space-size=16";
/** The start command's glibc variable (package.json's start, the Dockerfile). */
const MMAP_THRESHOLD_VARIABLE = "MALLOC_MMAP_THRESHOLD_";

/** How long the server is left idle before each RSS reading, as the real suite leaves it (SETTLE_MS there). */
const SETTLE_MS = 1500;
/** Questions asked after a remote wake before its second RSS reading. */
const REMOTE_QUESTIONS = 100;
/** The remote part's round trip to sqld: the farthest the remote suite measures. */
const REMOTE_ROUND_TRIP_MS = 20;

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface TuningAbOptions {
  passages: number;
  rounds: number;
  /** The mechanisms to turn off one at a time; every one unless named. */
  mechanisms: readonly string[];
  parts: readonly ("local" | "remote")[];
}

/** The names `--tuning-mechanisms` takes: the switches, and the start command's two. */
export const TUNING_AB_NAMES: readonly string[] = [...tuningMechanisms, "young-generation", "mmap-threshold"];

function variants(mechanisms: readonly string[]): Variant[] {
  // Set on every server, so a MEMORIA_TUNING_OFF of the bench's own environment never reaches "all on".
  const none = { env: { MEMORIA_TUNING_OFF: "" }, nodeFlags: [], withoutEnv: [] };
  const off = (name: TuningMechanism): Variant => ({
    ...none,
    name: `${name} off`,
    env: { MEMORIA_TUNING_OFF: name },
  });
  const chosen = (name: string) => mechanisms.length === 0 || mechanisms.includes(name);
  return [
    { ...none, name: "all on" },
    ...tuningMechanisms.filter(chosen).map(off),
    ...(chosen("young-generation")
      ? [{ ...none, name: "young-generation off", nodeFlags: [V8_DEFAULT_SEMI_SPACE] }]
      : []),
    ...(chosen("mmap-threshold")
      ? [{ ...none, name: "mmap-threshold off", withoutEnv: [MMAP_THRESHOLD_VARIABLE] }]
      : []),
  ];
}

/** The variants in round `round`'s order: turned by one each round. */
function inTurn<T>(list: readonly T[], round: number): T[] {
  const k = round % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

type Figures = Record<string, number>;

async function localRun(corpus: BenchCorpus, variant: Variant): Promise<Figures> {
  const client = await openInTurnClient(corpus.passages, FLOOR_ENGINE);
  const scratch = mkdtempSync(join(tmpdir(), "memoria-bench-tuning-"));
  const start = (masterKey?: string) =>
    startMemoriaEntry(scratch, masterKey, undefined, variant.nodeFlags, variant.env, variant.withoutEnv);
  let server = start();
  try {
    const base = `http://127.0.0.1:${await server.port}`;
    const pid = server.child.pid ?? 0;
    await sleep(SETTLE_MS);
    const empty = processRssBytes(pid);
    const apiKey = await makeTeam(base, corpus.name, corpus.documents);
    await sleep(SETTLE_MS);
    const built = processRssBytes(pid);
    await askLong(base, apiKey, corpus, MEMORY_QUESTIONS);
    await sleep(SETTLE_MS);
    const asked = processRssBytes(pid);
    const short = await askInTurn(client, base, apiKey, corpus.short);
    const long = await askInTurn(client, base, apiKey, corpus.long);

    server.child.kill("SIGTERM");
    await server.exited;
    server = start(server.masterKey);
    const again = `http://127.0.0.1:${await server.port}`;
    const againPid = server.child.pid ?? 0;
    await sleep(SETTLE_MS);
    const emptyAgain = processRssBytes(againPid);
    const coldStarted = performance.now();
    await askLong(again, apiKey, corpus, 1);
    const firstSearchMs = performance.now() - coldStarted;
    await askLong(again, apiKey, corpus, MEMORY_QUESTIONS);
    await sleep(SETTLE_MS);
    const askedAgain = processRssBytes(againPid);
    return {
      "long p50 ÷ floor": long.http.p50 / long.floor.p50,
      "long p99 ÷ floor": long.http.p99 / long.floor.p99,
      "short p50 ms": short.http.p50,
      "short p99 ms": short.http.p99,
      "RSS after build, B a byte": (built - empty) / corpus.textBytes,
      "RSS after 300 long, B a byte": (asked - empty) / corpus.textBytes,
      "restart: first search ms": firstSearchMs,
      "restart: RSS after 300 long, B a byte": (askedAgain - emptyAgain) / corpus.textBytes,
      "empty server MiB": empty / MiB,
    };
  } finally {
    await client.close();
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function askLong(base: string, apiKey: string, corpus: BenchCorpus, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const answer = await call(base, "GET", searchPath(corpus.long[i % corpus.long.length] ?? ""), apiKey);
    if (answer.status !== 200) throw new Error(`a search answered ${answer.status}`);
  }
}

/** Each variant's figures over the rounds: the median, and for "all on" the spread (least to most). */
function printTable(title: string, runs: Map<string, Figures[]>): void {
  const allOn = runs.get("all on") ?? [];
  const names = Object.keys(allOn[0] ?? {});
  console.log(
    `\n### ${title}: median of ${allOn.length} rounds; "all on" with its spread, the others ÷ "all on"`,
  );
  console.log(`| figure | all on | ${[...runs.keys()].filter((v) => v !== "all on").join(" | ")} |`);
  console.log(
    `|---|---|${[...runs.keys()]
      .slice(1)
      .map(() => "---|")
      .join("")}`,
  );
  for (const figure of names) {
    const of = (variant: string) => (runs.get(variant) ?? []).map((run) => run[figure] ?? Number.NaN);
    const base = median(of("all on"));
    const spread = `${fmt(Math.min(...of("all on")))}–${fmt(Math.max(...of("all on")))}`;
    const cells = [...runs.keys()]
      .filter((v) => v !== "all on")
      .map((v) => `${fmt(median(of(v)))} (${(median(of(v)) / base).toFixed(2)}×)`);
    console.log(`| ${figure} | ${fmt(base)} (${spread}) | ${cells.join(" | ")} |`);
  }
}

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2));

async function localPart(corpus: BenchCorpus, all: Variant[], rounds: number): Promise<void> {
  const runs = new Map<string, Figures[]>(all.map((v) => [v.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of inTurn(all, round)) {
      const started = performance.now();
      runs.get(variant.name)?.push(await localRun(corpus, variant));
      console.log(
        `  round ${round + 1}, ${variant.name}: ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
  }
  printTable(`local, ${corpus.passages.length.toLocaleString("en")} passages of Debian's manuals`, runs);
}

async function remotePart(corpus: BenchCorpus, all: Variant[], rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "memoria-bench-tuning-remote-"));
  let proxy: LatencyProxy | null = null;
  const sqld = await startSqld(dir);
  try {
    proxy = await startLatencyProxy(
      { host: "127.0.0.1", port: Number(new URL(sqld.url).port) },
      REMOTE_ROUND_TRIP_MS,
    );
    const masterKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
    const team = await withServer(dir, masterKey, sqld.url.replace(/^http/, "ws"), (base) =>
      seedTeam(base, corpus),
    );
    const storage = { kind: "remote" as const, url: proxy.url.replace(/^http/, "ws") };
    const runs = new Map<string, Figures[]>(all.map((v) => [v.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const variant of inTurn(all, round)) {
        // The compiled entry runs without the start command, so each wake is given the start command's
        // variables and node flags, less what the variant goes without.
        const env: Record<string, string> = { ...startScriptEnvironment(), ...variant.env };
        for (const name of variant.withoutEnv) delete env[name];
        const nodeFlags = [...startScriptNodeFlags(), ...variant.nodeFlags];
        const woken = await wake(storage, masterKey, team.apiKey, corpus.short[0] ?? "install", dir, {
          env,
          nodeFlags,
          after: async (base, pid) => {
            await askLong(base, team.apiKey, corpus, REMOTE_QUESTIONS);
            await sleep(SETTLE_MS);
            return processRssBytes(pid) / MiB;
          },
        });
        runs.get(variant.name)?.push({
          "exec to first answer ms": woken.firstAnswerMs,
          "RSS at the first answer MiB": woken.rssMiB,
          [`RSS after ${REMOTE_QUESTIONS} long and a pause MiB`]: woken.afterMiB ?? Number.NaN,
        });
      }
    }
    printTable(`remote, sqld ${REMOTE_ROUND_TRIP_MS} ms away, a wake from the snapshot`, runs);
  } finally {
    await proxy?.close();
    await sqld.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchTuningAb(options: TuningAbOptions): Promise<void> {
  const corpus = benchCorpus("debian", options.passages);
  const all = variants(options.mechanisms);
  console.log(
    `\n## tuning A/B — ${all.length} servers (${all.map((v) => v.name).join(", ")}), ${options.rounds} rounds`,
  );
  if (options.parts.includes("local")) await localPart(corpus, all, options.rounds);
  if (options.parts.includes("remote")) await remotePart(corpus, all, options.rounds);
}
