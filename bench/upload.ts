// `npm run bench -- --suites upload`: does one team's large upload stall another team's searches?
//
// A server in a child process (the app over a file database, real HTTP on loopback, as `npm start` serves
// it) holds team B with a few thousand passages. Team A uploads a generated 5 MiB markdown document a few
// times, one after another, while team B searches in a loop on its own connection. Printed for the chunk
// pool and for chunking inline (what the server did before the pool): the worst and p99 search latency during
// the uploads, as ratios to the floor measured in the same run (the same searches with no upload), and the
// time of each upload. Goal: the worst search during the uploads under 1.5 s on a 2-core machine.
//
// Also the server side of it: `tsx bench/upload.ts serve <pool|inline> <dbUrl>` (run by the suite).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_ADMIN as ADMIN } from "./app-config.js";
import { CORPUS_SEED, generateCorpus, queryMix } from "./corpus.js";
import { benchClient, serveBenchApp, startBenchServer } from "./server.js";

type Mode = "pool" | "inline";

const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
/** Team B's corpus: sections of ~1 KB, uploaded as text so that setting it up costs seconds, not minutes. */
const TEAM_B_SECTIONS = 6_000;
/** How long the floor's searches run, with no upload: a few hundred searches. */
const FLOOR_MS = 2_000;
/**
 * Each mode starts no new upload after this long, so that the suite stays within ~2 minutes even where a
 * 5 MiB markdown document takes tens of seconds to chunk (a busy machine).
 */
const UPLOAD_BUDGET_MS = 25_000;

// --- the server, in its own process ------------------------------------------------------------------------

// --- the client: this process ------------------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** About 5 MiB of markdown notes: headings, prose, lists with emphasis and links, inline and fenced code. */
export function largeMarkdown(maxBytes = MAX_DOCUMENT_BYTES - 1024): string {
  const [doc] = generateCorpus({ chunks: 5_000, seed: CORPUS_SEED + 1, sectionsPerDocument: 5_000 });
  const sections = (doc?.content ?? "").split("\n## ");
  const parts: string[] = [];
  let bytes = 0;
  for (const [i, section] of sections.entries()) {
    const decorated =
      `${i === 0 ? section : `## ${section}`}\n\n` +
      `- step ${i}: run \`deploy --stage ${i}\` and **check** the [dashboard](https://example.test/d/${i})\n` +
      `- then _note_ the result in the log\n\n` +
      (i % 5 === 0 ? `\`\`\`sh\necho "stage ${i}"\n\`\`\`\n\n` : "");
    const size = Buffer.byteLength(decorated);
    if (bytes + size > maxBytes) break;
    parts.push(decorated);
    bytes += size;
  }
  return parts.join("");
}

interface ModeResult {
  passagesB: number;
  floor: number[];
  during: number[];
  uploads: { ms: number; status: number; chunks: number }[];
}

async function runMode(mode: Mode, content: string): Promise<ModeResult> {
  const dir = mkdtempSync(join(tmpdir(), "memoria-bench-upload-"));
  const server = startBenchServer("bench/upload.ts", ["serve", mode, `file:${join(dir, "memoria.db")}`]);
  try {
    const base = `http://127.0.0.1:${await server.port}`;
    const request = benchClient(base);
    const call = (path: string, token: string, json?: unknown) =>
      request(json === undefined ? "GET" : "POST", path, token, json);
    const team = async (name: string) => (await call("/v1/teams", ADMIN, { name })).body.apiKey as string;
    const [teamA, teamB] = [await team("Uploads"), await team("Searches")];

    const docs = generateCorpus({ chunks: TEAM_B_SECTIONS, seed: CORPUS_SEED, sectionsPerDocument: 100 });
    let passagesB = 0;
    for (let i = 0; i < docs.length; i += 4) {
      const answers = await Promise.all(
        docs.slice(i, i + 4).map((d) => call("/v1/documents", teamB, { ...d, format: "text" })),
      );
      for (const a of answers) {
        if (a.status !== 201) throw new Error(`team B's document answered ${a.status}`);
        passagesB += (a.body.document as { chunks: number }).chunks;
      }
    }

    const queries = queryMix();
    let q = 0;
    const search = async () => {
      const started = performance.now();
      const res = await call(
        `/v1/search?${new URLSearchParams({ q: queries[q++ % queries.length] ?? "" })}`,
        teamB,
      );
      if (res.status !== 200) throw new Error(`team B's search answered ${res.status}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 20; i++) await search(); // builds team B's index and warms the path
    const floor: number[] = [];
    const floorEnd = performance.now() + FLOOR_MS;
    while (performance.now() < floorEnd) floor.push(await search());

    const during: number[] = [];
    let uploading = true;
    const searching = (async () => {
      while (uploading) during.push(await search());
    })();
    const uploads: ModeResult["uploads"] = [];
    const body = { title: "Runbook", content, format: "markdown" };
    const budgetEnd = performance.now() + UPLOAD_BUDGET_MS;
    for (let u = 0; u < 3 && performance.now() < budgetEnd; u++) {
      const started = performance.now();
      const res = await call("/v1/documents", teamA, { ...body, title: `Runbook ${u}` });
      uploads.push({
        ms: performance.now() - started,
        status: res.status,
        chunks: (res.body.document as { chunks?: number } | undefined)?.chunks ?? 0,
      });
    }
    uploading = false;
    await searching;
    return { passagesB, floor, during, uploads };
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchUpload(): Promise<void> {
  const content = largeMarkdown();
  const results: Record<Mode, ModeResult> = {
    pool: await runMode("pool", content),
    inline: await runMode("inline", content),
  };
  const mib = (Buffer.byteLength(content) / 1024 / 1024).toFixed(2);
  console.log(
    `\n## upload: team A uploads ${mib} MiB of markdown while team B searches (${results.pool.passagesB.toLocaleString("en")} passages)`,
  );
  const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
  const row = (label: string, cell: (r: ModeResult) => string) =>
    console.log(`${label.padEnd(46)} ${cell(results.pool).padEnd(28)} ${cell(results.inline)}`);
  const stats = (r: ModeResult) => {
    const floor = sorted(r.floor);
    const during = sorted(r.during);
    return {
      floorP99: percentile(floor, 99),
      floorWorst: floor.at(-1) ?? Number.NaN,
      p99: percentile(during, 99),
      worst: during.at(-1) ?? Number.NaN,
    };
  };
  console.log(`${"".padEnd(46)} ${"chunk pool".padEnd(28)} inline (before the pool)`);
  row("floor: search p99 / worst, no upload", (r) => `${ms(stats(r).floorP99)} / ${ms(stats(r).floorWorst)}`);
  row("search worst during uploads (goal < 1.5 s)", (r) => ms(stats(r).worst));
  row("search p99 during uploads", (r) => ms(stats(r).p99));
  row("worst / floor worst", (r) => `${(stats(r).worst / stats(r).floorWorst).toFixed(1)}×`);
  row("p99 / floor p99", (r) => `${(stats(r).p99 / stats(r).floorP99).toFixed(1)}×`);
  row("searches answered during uploads", (r) => String(r.during.length));
  row("upload time, each", (r) => r.uploads.map((u) => `${(u.ms / 1000).toFixed(1)} s`).join(", "));
  row("upload answers", (r) => r.uploads.map((u) => `${u.status} (${u.chunks} chunks)`).join(", "));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv[2] === "serve") {
  await serveBenchApp({
    dbUrl: process.argv[4] ?? "",
    pool: process.argv[3] === "pool",
    maxDocumentBytes: MAX_DOCUMENT_BYTES,
  });
}
