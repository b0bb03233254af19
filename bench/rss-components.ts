// Where the server's RSS goes, read from outside at each step of the real suite's memory figure: memoria's
// Node entry in a fresh process (bench/server.ts), the Debian corpus through the batch route, 300 long
// questions, then a restart over the same database, its first search and 300 long questions again. At each
// step it prints VmRSS and /proc/<pid>/smaps summed by kind of mapping:
// - `files`: mapped files (node itself, libsql's .node, other shared objects);
// - `brk heap`: glibc's main arena (the main thread's malloc);
// - `arenas`: glibc's other arenas, one a thread that mallocs (64 MiB-aligned heaps; up to 8 a core);
// - `other anon`: V8's heaps of every isolate, thread stacks, and malloc's own mmaps of large blocks;
// the thread count, and the index's pages as /metrics gives them (memoria_index_memory_bytes: page_count ×
// page_size and a fixed overhead). `npx tsx bench/rss-components.ts [passages] [--trim] [--heaps]`; the server
// runs with what `npm start` sets and the bench's MEMORIA_* variables (bench/server.ts). Two diagnostics, which
// change what they read and so are never the figures themselves: --trim reads each step again after glibc's
// malloc_trim(0) (how much malloc kept free), --heaps prints each isolate's V8 heap beside each step, with
// its spaces of half a MiB or more as committed/used MiB.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_ADMIN } from "./app-config.js";
import { benchCorpus, MEMORY_QUESTIONS } from "./real-corpora.js";
import { batches } from "./real-http.js";
import { benchClient, startMemoriaEntry } from "./server.js";
import { processRssBytes } from "./stats.js";

const MiB = 1024 * 1024;
/** As the real suite (bench/real-http.ts SETTLE_MS): idle before each reading. */
const SETTLE_MS = 1500;
/** glibc's arenas are heaps of HEAP_MAX_SIZE, 64 MiB on 64-bit, aligned to it. */
const ARENA_ALIGN = 64 * MiB;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Kinds {
  files: number;
  brk: number;
  arenas: number;
  anon: number;
}

function smapsKinds(pid: number): Kinds {
  const kinds: Kinds = { files: 0, brk: 0, arenas: 0, anon: 0 };
  let kind: keyof Kinds = "anon";
  let inArena = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const start = Number.parseInt(header[1] ?? "0", 16);
      const path = header[4] ?? "";
      if (path.startsWith("/")) kind = "files";
      else if (path === "[heap]") kind = "brk";
      else if (path === "") {
        // An arena's heap starts on a 64 MiB boundary; its unused tail (---p) follows it.
        if (start % ARENA_ALIGN === 0) inArena = true;
        else if (header[3] !== "---p") inArena = false;
        kind = inArena ? "arenas" : "anon";
      } else kind = "anon";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss) kinds[kind] += Number(rss[1]) * 1024;
  }
  return kinds;
}

async function indexBytes(base: string): Promise<string> {
  const text = await (
    await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN}` } })
  ).text();
  const bytes = /^memoria_index_memory_bytes (\S+)$/m.exec(text)?.[1];
  return bytes === undefined ? "?" : (Number(bytes) / MiB).toFixed(1);
}

async function reading(
  step: string,
  pid: number,
  empty: number | null,
  textBytes: number,
  base: string,
): Promise<number> {
  const rss = processRssBytes(pid);
  const k = smapsKinds(pid);
  const threads = readdirSync(`/proc/${pid}/task`).length;
  const per = empty === null ? "" : ` ${((rss - empty) / textBytes).toFixed(2)} B/B`;
  console.log(
    `| ${step} | ${(rss / MiB).toFixed(1)}${per} | ${(k.files / MiB).toFixed(1)} | ${(k.brk / MiB).toFixed(1)} | ` +
      `${(k.arenas / MiB).toFixed(1)} | ${(k.anon / MiB).toFixed(1)} | ${threads} | ${await indexBytes(base)} |`,
  );
  if (HEAPS) console.log(`|  | ${heapsOf(pid)} | | | | | | |`);
  if (TRIM) {
    trimNow(pid);
    const trimmed = processRssBytes(pid);
    const k2 = smapsKinds(pid);
    const per2 = empty === null ? "" : ` ${((trimmed - empty) / textBytes).toFixed(2)} B/B`;
    console.log(
      `| ${step}, malloc_trim(0) | ${(trimmed / MiB).toFixed(1)}${per2} | ${(k2.files / MiB).toFixed(1)} | ` +
        `${(k2.brk / MiB).toFixed(1)} | ${(k2.arenas / MiB).toFixed(1)} | ${(k2.anon / MiB).toFixed(1)} | | |`,
    );
  }
  return rss;
}

/**
 * With --trim, each reading is followed by one after glibc's malloc_trim(0) called in the server through gdb:
 * how much of the reading was free space malloc kept (every arena's, not only the top of each heap). A
 * diagnostic only: the figures without it are the server's own.
 */
const TRIM = process.argv.includes("--trim");

/**
 * malloc_trim(0) is called by a thread of a small preloaded library (gdb cannot call into a process here: it
 * fails restoring the registers), which waits on a FIFO named after the server's pid. Built with gcc at the
 * bench's start.
 */
const TRIM_SOURCE = `
#include <stdio.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
static char in[512], out[512];
static void *loop(void *unused) {
  for (;;) {
    int fd = open(in, O_RDONLY); char c; if (fd < 0) return 0;
    while (read(fd, &c, 1) == 1) {
      malloc_trim(0);
      int o = open(out, O_WRONLY); write(o, "1", 1); close(o);
    }
    close(fd);
  }
}
__attribute__((constructor)) static void start(void) {
  const char *dir = getenv("RSS_TRIM_DIR");
  if (!dir) return;
  unsetenv("LD_PRELOAD");
  snprintf(in, sizeof in, "%s/%d.in", dir, getpid());
  snprintf(out, sizeof out, "%s/%d.out", dir, getpid());
  mkfifo(in, 0600); mkfifo(out, 0600);
  pthread_t t; pthread_create(&t, 0, loop, 0); pthread_detach(t);
}
`;

let trimDir = "";
function trimEnvironment(): Record<string, string> {
  if (!TRIM) return {};
  trimDir = mkdtempSync(join(tmpdir(), "memoria-trim-"));
  writeFileSync(join(trimDir, "trim.c"), TRIM_SOURCE);
  execFileSync("gcc", [
    "-shared",
    "-fPIC",
    "-O2",
    "-o",
    join(trimDir, "trim.so"),
    join(trimDir, "trim.c"),
    "-lpthread",
  ]);
  return { LD_PRELOAD: join(trimDir, "trim.so"), RSS_TRIM_DIR: trimDir };
}

/**
 * With --heaps, each isolate of the server (the main thread's and each worker thread's) writes its V8 heap's
 * figures to a file every 0.5 s (a module preloaded with --import), printed beside each reading.
 */
const HEAPS = process.argv.includes("--heaps");
const HEAP_PROBE = `
import { renameSync, writeFileSync } from "node:fs";
import { getHeapSpaceStatistics } from "node:v8";
import { isMainThread, threadId } from "node:worker_threads";
const MiB = 1048576;
const dir = process.env.RSS_HEAP_DIR;
function dump() {
  const u = process.memoryUsage();
  // Written aside and renamed, so a reading never finds the file half written.
  const file = dir + "/" + process.pid + "-" + threadId + ".json";
  writeFileSync(file + ".part", JSON.stringify({
    main: isMainThread, total: u.heapTotal / MiB, used: u.heapUsed / MiB, arrayBuffers: u.arrayBuffers / MiB,
    spaces: getHeapSpaceStatistics()
      .filter((s) => s.space_size >= MiB / 2)
      .map((s) => s.space_name.replace("_space", "") + " " + (s.space_size / MiB).toFixed(1) + "/" + (s.space_used_size / MiB).toFixed(1)),
  }));
  renameSync(file + ".part", file);
}
if (dir) setInterval(dump, 500).unref();
`;
let heapDir = "";
function heapEnvironment(): Record<string, string> {
  if (!HEAPS) return {};
  heapDir = mkdtempSync(join(tmpdir(), "memoria-heaps-"));
  writeFileSync(join(heapDir, "probe.mjs"), HEAP_PROBE);
  return { NODE_OPTIONS: `--import=${join(heapDir, "probe.mjs")}`, RSS_HEAP_DIR: heapDir };
}

function heapsOf(pid: number): string {
  return readdirSync(heapDir)
    .filter((f) => f.startsWith(`${pid}-`) && f.endsWith(".json"))
    .map((f) => {
      const h = JSON.parse(readFileSync(join(heapDir, f), "utf8")) as Record<
        string,
        number | boolean | string[]
      >;
      const n = (k: string) => Number(h[k]).toFixed(1);
      return `${h.main ? "main" : `thread ${f.slice(String(pid).length + 1, -5)}`}: heap ${n("total")} (used ${n("used")}, buffers ${n("arrayBuffers")}; ${(h.spaces as string[]).join(", ")})`;
    })
    .join("; ");
}

function trimNow(pid: number): void {
  execFileSync("sh", ["-c", `echo > ${trimDir}/${pid}.in; head -c1 ${trimDir}/${pid}.out > /dev/null`]);
}

/** A started server once it listens and settled, with its empty reading. */
async function listening(server: ReturnType<typeof startMemoriaEntry>, step: string, textBytes: number) {
  const base = `http://127.0.0.1:${await server.port}`;
  const pid = server.child.pid ?? 0;
  await sleep(SETTLE_MS);
  return { base, call: benchClient(base), pid, empty: await reading(step, pid, null, textBytes, base) };
}

async function main(): Promise<void> {
  const corpus = benchCorpus("debian", Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 20_000));
  console.log(
    `${corpus.passages.length} passages, ${(corpus.textBytes / MiB).toFixed(1)} MiB of text; ` +
      `load ${readFileSync("/proc/loadavg", "utf8").trim()}`,
  );
  console.log("| step | VmRSS MiB | files | brk heap | arenas | other anon | threads | index pages MiB |");
  console.log("|---|---|---|---|---|---|---|---|");
  const scratch = mkdtempSync(join(tmpdir(), "memoria-rss-"));
  const extraEnv = { ...trimEnvironment(), ...heapEnvironment() };
  const server = startMemoriaEntry(scratch, undefined, undefined, [], extraEnv);
  try {
    const { base, call, pid, empty } = await listening(server, "empty", corpus.textBytes);
    const team = await call("POST", "/v1/teams", BENCH_ADMIN, { name: corpus.name });
    const key = team.body.apiKey as string;
    for (const unit of batches(corpus.documents)) {
      const answer = await call("POST", "/v1/documents/batch", key, { documents: unit });
      if (answer.status !== 200) throw new Error(`the batch route answered ${answer.status}`);
    }
    await call("GET", "/v1/search?q=warmup", key);
    await sleep(SETTLE_MS);
    await reading("batch: after the build", pid, empty, corpus.textBytes, base);
    const ask = async (c: typeof call) => {
      for (let i = 0; i < MEMORY_QUESTIONS; i++) {
        const q = corpus.long[i % corpus.long.length] ?? "";
        const answer = await c("GET", `/v1/search?${new URLSearchParams({ q, limit: "20" })}`, key);
        if (answer.status !== 200) throw new Error(`a search answered ${answer.status}`);
      }
      await sleep(SETTLE_MS);
    };
    await ask(call);
    await reading("batch: after 300 long", pid, empty, corpus.textBytes, base);
    server.child.kill("SIGTERM");
    await server.exited;
    const again = startMemoriaEntry(scratch, server.masterKey, undefined, [], extraEnv);
    try {
      const {
        base: baseAgain,
        call: callAgain,
        pid: pidAgain,
        empty: emptyAgain,
      } = await listening(again, "restart: empty", corpus.textBytes);
      await callAgain("GET", `/v1/search?${new URLSearchParams({ q: corpus.long[0] ?? "warmup" })}`, key);
      await sleep(SETTLE_MS);
      await reading("restart: after the first search", pidAgain, emptyAgain, corpus.textBytes, baseAgain);
      await ask(callAgain);
      await reading("restart: after 300 long", pidAgain, emptyAgain, corpus.textBytes, baseAgain);
    } finally {
      again.child.kill("SIGTERM");
      await again.exited;
    }
  } finally {
    server.child.kill("SIGTERM");
    rmSync(scratch, { recursive: true, force: true });
    // The diagnostics' folders: the preloaded probe and its figures, the trim's library.
    for (const dir of [heapDir, trimDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
