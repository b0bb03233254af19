// `npx tsx bench/short-question-profile.ts [passages] [--cpu-prof <dir>]`: where a first-asked short question's
// time goes over loopback HTTP, as the real suite meets it. memoria's own server (as `npm start` runs it) gets
// the Debian corpus and 300 long questions first (as the real suite asks them before its short ones); then each
// of the suite's 200 short questions is asked once, in turn with four requests that each stop short of part of
// a search's path over the same connection: `/healthz` (no key, no index), `/v1/stats` with the team's key (the
// key check and the team's middleware, no search), and the same question of a one-document team (the whole
// route and service, an index of one passage on the server's own thread). The answer's `tookMs` is the server's
// own time from the search service's call to its answer. Every figure is beside the in-process FTS5 OR floor
// of the same question (bench/floor.ts). With `--cpu-prof <dir>` the server writes a V8 CPU profile of its
// main thread there on exit (search threads get no flags: run with MEMORIA_SEARCH_THREADS=1 to profile the
// search itself on the main thread).

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openQueryFloor } from "./floor.js";
import { benchCorpus, MEMORY_QUESTIONS } from "./real-corpora.js";
import { call, makeTeam, searchPath } from "./real-http.js";
import { startMemoriaEntry } from "./server.js";
import { latency } from "./stats.js";

/** After the build, for the merging it left and the idle collection (as the real suite's SETTLE_MS). */
const SETTLE_MS = 3000;

const args = process.argv.slice(2);
const profileAt = args.indexOf("--cpu-prof");
const profileDir = profileAt >= 0 ? resolve(args[profileAt + 1] ?? "profiles") : null;
const positional = args.filter((_, i) => profileAt < 0 || (i !== profileAt && i !== profileAt + 1));
const passages = Number(positional[0] ?? "20000");
const corpus = benchCorpus("debian", passages);
const floor = openQueryFloor(corpus.passages);
const scratch = mkdtempSync(join(tmpdir(), "memoria-bench-profile-"));
const nodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
const server = startMemoriaEntry(scratch, undefined, undefined, nodeArgs);
try {
  const base = `http://127.0.0.1:${await server.port}`;
  const apiKey = await makeTeam(base, corpus.name, corpus.documents);
  const oneDocument = corpus.documents.slice(0, 1);
  const smallKey = await makeTeam(base, "one document", oneDocument);
  for (let i = 0; i < MEMORY_QUESTIONS; i++) {
    const q = corpus.long[i % corpus.long.length] ?? "";
    const answer = await call(base, "GET", searchPath(q), apiKey);
    if (answer.status !== 200) throw new Error(`a search answered ${answer.status}`);
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const times = {
    floor: [] as number[],
    healthz: [] as number[],
    stats: [] as number[],
    small: [] as number[],
    search: [] as number[],
    tookMs: [] as number[],
    bytes: [] as number[],
  };
  // CLOCK_MONOTONIC, which V8's profile timestamps also count: the window of a profile these questions fill.
  const windowStart = process.hrtime.bigint() / 1000n;
  for (const q of corpus.short) {
    times.floor.push(floor.time(q));
    let t = performance.now();
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
    times.healthz.push(performance.now() - t);
    t = performance.now();
    const stats = await call(base, "GET", "/v1/stats", apiKey);
    if (stats.status !== 200) throw new Error(`stats answered ${stats.status}`);
    times.stats.push(performance.now() - t);
    t = performance.now();
    const small = await call(base, "GET", searchPath(q), smallKey);
    if (small.status !== 200) throw new Error(`a search answered ${small.status}`);
    times.small.push(performance.now() - t);
    t = performance.now();
    const answer = await call(base, "GET", searchPath(q), apiKey);
    if (answer.status !== 200) throw new Error(`a search answered ${answer.status}`);
    times.search.push(performance.now() - t);
    times.tookMs.push(answer.body.tookMs as number);
    times.bytes.push(JSON.stringify(answer.body).length);
  }
  const windowEnd = process.hrtime.bigint() / 1000n;
  const f = latency(times.floor);
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  console.log(
    `${corpus.passages.length.toLocaleString("en")} passages, ${corpus.short.length} short questions asked once ` +
      `after ${MEMORY_QUESTIONS} long ones; load ${load}; server ` +
      `environment from the bench's: ${server.passed.join(", ") || "none"}`,
  );
  console.log("| request | p50 ms | p99 ms | p50 ÷ floor p50 |\n|---|---|---|---|");
  for (const [name, list] of [
    ["floor (plain FTS5 OR, in process)", times.floor],
    ["GET /healthz", times.healthz],
    ["GET /v1/stats with the key", times.stats],
    ["search of a one-document team", times.small],
    ["search of the corpus's team", times.search],
    ["  its tookMs (the search service, server side)", times.tookMs],
  ] as const) {
    const l = latency(list);
    console.log(`| ${name} | ${l.p50.toFixed(3)} | ${l.p99.toFixed(3)} | ${(l.p50 / f.p50).toFixed(2)}× |`);
  }
  if (profileDir) console.log(`the short questions' window in the profile: ${windowStart}–${windowEnd} µs`);
  console.log(`answer JSON p50 ${latency(times.bytes).p50.toFixed(0)} characters`);
} finally {
  server.child.kill("SIGTERM");
  await server.exited;
  rmSync(scratch, { recursive: true, force: true });
}
