// `npm run bench -- --suites export [--export 20000] [--export-rss 100000]`: a team's export and its restore,
// against the batch ingest of the same documents measured in the same run, and the server's memory while it
// exports (and restores) a large team.
//
// The documents are ~1.5 KB each: half cut from the markdown files of installed packages (node_modules,
// real text nobody here wrote), half generated (bench/corpus.ts). A server in a child process (the app over
// a file database with the chunk pool, real HTTP on loopback, as `npm start` serves it) takes them through
// POST /v1/documents/batch (500 a request, 2 in flight: bench/ingest.ts's way); then GET /v1/export is read
// to a file; then a fresh server over a fresh database takes that file through POST /v1/import. Each as a
// ratio to the ingest. Target: export and import each at most 1.5× the ingest.
//
// Memory: the server's resident set (VmRSS, read from /proc by this process, every 50 ms) before and at its
// peak during the export of a team of --export-rss documents by a freshly started server (no index loaded),
// and during the import of that export into a fresh one; printed beside the same at --export documents, so a
// memory that grew with the team would show as a larger peak at the larger size.
//
// Also the server side of it: `tsx bench/export.ts serve <dbUrl>` (run by the suite).

import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { pathToFileURL } from "node:url";
import { BENCH_ADMIN as ADMIN } from "./app-config.js";
import { CORPUS_SEED, type CorpusPassage, corpusPassages, generateCorpus, PATH_SEPARATOR } from "./corpus.js";
import { benchClient, serveBenchApp, startBenchServer } from "./server.js";

const BATCH_DOCUMENTS = 500;
const BATCH_IN_FLIGHT = 2;
/** A document's size, SciFact's average (as bench/ingest.ts). */
const DOCUMENT_CHARS = 1500;
/** One master key for every server of a run: the export is made by a server started again over the database. */
const MASTER_KEY_HEX = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
/** How often the server's RSS is read during an export or import. */
const RSS_EVERY_MS = 50;

interface BenchDocument {
  title: string;
  content: string;
  path: string[];
  format: "markdown" | "text";
}

/** Markdown files of installed packages, cut at paragraphs into pieces of about DOCUMENT_CHARS. */
function realPieces(max: number): BenchDocument[] {
  const root = join(import.meta.dirname, "../node_modules");
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 4) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (name.endsWith(".md")) files.push(path);
      else if (!name.includes(".")) {
        try {
          if (statSync(path).isDirectory()) walk(path, depth + 1);
        } catch {}
      }
    }
  };
  walk(root, 0);
  const pieces: BenchDocument[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    let piece = "";
    for (const paragraph of text.split(/\n\s*\n/)) {
      piece += `${paragraph}\n\n`;
      if (piece.length >= DOCUMENT_CHARS) {
        const rel = file.slice(root.length + 1).split("/");
        pieces.push({
          title: `${rel.join(" ")} ${pieces.length}`,
          content: piece,
          path: rel.slice(0, -1),
          format: "markdown",
        });
        piece = "";
        if (pieces.length >= max) return pieces;
      }
    }
  }
  return pieces;
}

function syntheticDocuments(count: number): BenchDocument[] {
  const sections = corpusPassages(
    generateCorpus({ chunks: 2 * count, seed: CORPUS_SEED, sectionsPerDocument: 1 }),
  );
  const docs: BenchDocument[] = [];
  for (let i = 0; i < count; i++) {
    const first = sections[2 * i] as CorpusPassage;
    const second = sections[2 * i + 1] as CorpusPassage;
    docs.push({
      title: first.title,
      content: `${first.body}\n\n${second.body.slice(0, 500)}`,
      path: first.path === "" ? [] : first.path.split(PATH_SEPARATOR),
      format: "text",
    });
  }
  return docs;
}

function benchDocuments(count: number): { docs: BenchDocument[]; real: number } {
  const real = realPieces(Math.floor(count / 2));
  return { docs: [...real, ...syntheticDocuments(count - real.length)], real: real.length };
}

function rssBytes(pid: number | undefined): number | null {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS until stopped: its peak. */
function sampleRss(pid: number | undefined) {
  let peak = rssBytes(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid) ?? 0);
  }, RSS_EVERY_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, rssBytes(pid) ?? 0);
    },
  };
}

async function withServer<T>(
  dbUrl: string,
  body: (s: { base: string; pid: number | undefined }) => Promise<T>,
): Promise<T> {
  const server = startBenchServer("bench/export.ts", ["serve", dbUrl, MASTER_KEY_HEX]);
  try {
    return await body({ base: `http://127.0.0.1:${await server.port}`, pid: server.child.pid });
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
  }
}

async function ingestBatches(base: string, apiKey: string, docs: readonly BenchDocument[]): Promise<number> {
  const call = benchClient(base);
  const units = Array.from({ length: Math.ceil(docs.length / BATCH_DOCUMENTS) }, (_, i) =>
    docs.slice(i * BATCH_DOCUMENTS, (i + 1) * BATCH_DOCUMENTS),
  );
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < units.length) {
      const unit = units[next++] ?? [];
      const res = await call("POST", "/v1/documents/batch", apiKey, { documents: unit });
      const results = (res.body.results ?? []) as { document?: unknown }[];
      if (res.status !== 200 || results.some((r) => !r.document))
        throw new Error(`a batch answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: BATCH_IN_FLIGHT }, worker));
  return performance.now() - started;
}

async function newTeam(base: string): Promise<string> {
  const team = await benchClient(base)("POST", "/v1/teams", ADMIN, { name: "Export" });
  return team.body.apiKey as string;
}

async function exportTo(base: string, apiKey: string, file: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}/v1/export`, { headers: { authorization: `Bearer ${apiKey}` } });
  if (res.status !== 200 || !res.body) throw new Error(`the export answered ${res.status}`);
  await pipeline(Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>), createWriteStream(file));
  return performance.now() - started;
}

async function importFrom(base: string, apiKey: string, file: string, count: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}/v1/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/x-ndjson" },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
  const body = (await res.json()) as { documents?: { created: number } };
  const ms = performance.now() - started;
  if (res.status !== 200 || body.documents?.created !== count)
    throw new Error(`the import answered ${res.status}: ${JSON.stringify(body)}`);
  return ms;
}

interface Run {
  count: number;
  real: number;
  megabytes: number;
  ingestMs: number;
  exportMs: number;
  importMs: number | null;
  exportRss: { before: number; peak: number };
  importRss: { before: number; peak: number } | null;
}

/**
 * Ingest, then export by a freshly started server, then (with `restore`) import into a fresh instance; times
 * and RSS.
 */
async function run(count: number, restore: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "memoria-bench-export-"));
  try {
    const { docs, real } = benchDocuments(count);
    const megabytes = docs.reduce((sum, d) => sum + Buffer.byteLength(d.content), 0) / 1024 / 1024;
    const source = `file:${join(dir, "source.db")}`;
    const file = join(dir, "team.ndjson");
    const { apiKey, ingestMs } = await withServer(source, async ({ base }) => {
      const key = await newTeam(base);
      await benchClient(base)("GET", "/v1/search?q=warmup", key);
      return { apiKey: key, ingestMs: await ingestBatches(base, key, docs) };
    });
    const { exportMs, exportRss } = await withServer(source, async ({ base, pid }) => {
      await benchClient(base)("GET", "/v1/stats", apiKey);
      const before = rssBytes(pid) ?? 0;
      const sampler = sampleRss(pid);
      const ms = await exportTo(base, apiKey, file);
      return { exportMs: ms, exportRss: { before, peak: sampler.stop() } };
    });
    if (!restore)
      return { count, real, megabytes, ingestMs, exportMs, exportRss, importMs: null, importRss: null };
    const { importMs, importRss } = await withServer(
      `file:${join(dir, "target.db")}`,
      async ({ base, pid }) => {
        const key = await newTeam(base);
        await benchClient(base)("GET", "/v1/search?q=warmup", key);
        const before = rssBytes(pid) ?? 0;
        const sampler = sampleRss(pid);
        const ms = await importFrom(base, key, file, count);
        return { importMs: ms, importRss: { before, peak: sampler.stop() } };
      },
    );
    return { count, real, megabytes, ingestMs, exportMs, importMs, exportRss, importRss };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchExport(count: number, rssCount: number): Promise<void> {
  // The large team is exported only: its ingest alone takes minutes on a busy 2-core machine.
  const runs = [
    await run(count, true),
    ...(rssCount > 0 && rssCount !== count ? [await run(rssCount, false)] : []),
  ];
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  for (const r of runs) {
    console.log(
      `\n## export: ${r.count.toLocaleString("en")} documents (${r.real.toLocaleString("en")} cut from node_modules markdown, the rest generated; ${r.megabytes.toFixed(1)} MiB of text)`,
    );
    const rows: [string, string][] = [
      ["floor: batch ingest, 500 a request, 2 in flight", s(r.ingestMs)],
      [
        "GET /v1/export to a file (target ≤ 1.5×)",
        `${s(r.exportMs)}  ${(r.exportMs / r.ingestMs).toFixed(2)}× the ingest`,
      ],
      [
        "POST /v1/import into a fresh instance (target ≤ 1.5×)",
        r.importMs === null
          ? "not run"
          : `${s(r.importMs)}  ${(r.importMs / r.ingestMs).toFixed(2)}× the ingest`,
      ],
      [
        "server RSS during the export: before → peak",
        `${mb(r.exportRss.before)} → ${mb(r.exportRss.peak)} (${(r.exportRss.peak / r.exportRss.before).toFixed(2)}×)`,
      ],
      [
        "server RSS during the import: before → peak",
        r.importRss === null
          ? "not run"
          : `${mb(r.importRss.before)} → ${mb(r.importRss.peak)} (${(r.importRss.peak / r.importRss.before).toFixed(2)}×)`,
      ],
    ];
    for (const [k, v] of rows) console.log(`${k.padEnd(56)} ${v}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv[2] === "serve") {
  await serveBenchApp({
    dbUrl: process.argv[3] ?? "",
    pool: true,
    maxDocumentBytes: 5 * 1024 * 1024,
    masterKey: new Uint8Array(Buffer.from(process.argv[4] ?? "", "hex")),
  });
}
