// `npm run bench -- --suites ingest [--ingest 20000]`: how long storing N short documents over HTTP takes,
// against the floor of the plain FTS5 load of the same text (bench/floor.ts), measured in the same run.
//
// The documents are SciFact-sized: ~1.5 KB of plain text each, one passage (generated, bench/corpus.ts).
// A server in a child process (the app over a file database with the chunk pool, real HTTP on loopback, as
// `npm start` serves it) takes them twice, each time into a fresh database: once one document a request with
// 4 requests in flight (what an import did before the batch route), once through POST /v1/documents/batch
// (500 a request, 2 in flight, so one batch's parsing overlaps the other's storage). The team's index is
// loaded before the first write, so every write also brings it level, as on a server that is searched.
// Printed: seconds for each and their ratio to the floor. Target: the batch within 10× the floor.
//
// Also the server side of it: `tsx bench/ingest.ts serve <dbUrl>` (run by the suite).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_ADMIN as ADMIN } from "./app-config.js";
import { CORPUS_SEED, type CorpusPassage, corpusPassages, generateCorpus, PATH_SEPARATOR } from "./corpus.js";
import { measureFloor } from "./floor.js";
import { benchClient, serveBenchApp, startBenchServer } from "./server.js";

/** Requests in flight one document a request: what the import sent before batches (its CONCURRENCY). */
const SINGLE_IN_FLIGHT = 4;
/** Documents a batch request carries: the route's most. */
const BATCH_DOCUMENTS = 500;
const BATCH_IN_FLIGHT = 2;
/** Characters taken from a second generated section, so a document is ~1.5 KB like SciFact's average. */
const SECOND_PART_CHARS = 500;

interface IngestDocument {
  title: string;
  content: string;
  path: string[];
  format: "text";
}

/** N documents of ~1.5 KB of plain text (one passage each), from 2N generated ~1 KB sections. */
function ingestDocuments(count: number): IngestDocument[] {
  const sections = corpusPassages(
    generateCorpus({ chunks: 2 * count, seed: CORPUS_SEED, sectionsPerDocument: 1 }),
  );
  const docs: IngestDocument[] = [];
  for (let i = 0; i < count; i++) {
    const first = sections[2 * i] as CorpusPassage;
    const second = sections[2 * i + 1] as CorpusPassage;
    docs.push({
      title: first.title,
      content: `${first.body}\n\n${second.body.slice(0, SECOND_PART_CHARS)}`,
      path: first.path === "" ? [] : first.path.split(PATH_SEPARATOR),
      format: "text",
    });
  }
  return docs;
}

/** The floor's passages: the same text, one passage a document, as the index would hold it. */
function floorPassages(docs: readonly IngestDocument[]): CorpusPassage[] {
  return docs.map((d) => ({
    heading: "",
    body: d.content,
    title: d.title,
    path: d.path.join(PATH_SEPARATOR),
  }));
}

// --- the client: this process ------------------------------------------------------------------------------

type Mode = "single" | "batch";

/**
 * The CPU time a process has used, all of its threads, in ms; null where /proc is not there. On a machine
 * shared with other work the wall-clock time moves with their load, and this much less.
 */
function processCpuMs(pid: number | undefined): number | null {
  try {
    // Fields after the command name (which is in parentheses and may hold spaces): utime and stime are the
    // 12th and 13th, in clock ticks of 10 ms on Linux.
    const fields = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * Milliseconds from the first document sent to the last one acknowledged, on a fresh server, and the CPU
 * time the server used meanwhile (null where it cannot be read).
 */
async function ingest(
  mode: Mode,
  docs: readonly IngestDocument[],
): Promise<{ ms: number; cpuMs: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), "memoria-bench-ingest-"));
  const server = startBenchServer("bench/ingest.ts", ["serve", `file:${join(dir, "memoria.db")}`]);
  try {
    const base = `http://127.0.0.1:${await server.port}`;
    const call = benchClient(base);
    const team = await call("POST", "/v1/teams", ADMIN, { name: "Ingest" });
    const apiKey = team.body.apiKey as string;
    // Loads the team's (empty) index, so each write brings a live index level.
    await call("GET", "/v1/search?q=warmup", apiKey);

    const units =
      mode === "single"
        ? docs.map((d) => [d])
        : Array.from({ length: Math.ceil(docs.length / BATCH_DOCUMENTS) }, (_, i) =>
            docs.slice(i * BATCH_DOCUMENTS, (i + 1) * BATCH_DOCUMENTS),
          );
    const inFlight = mode === "single" ? SINGLE_IN_FLIGHT : BATCH_IN_FLIGHT;
    let next = 0;
    let stored = 0;
    const cpuBefore = processCpuMs(server.child.pid);
    const started = performance.now();
    const worker = async () => {
      while (next < units.length) {
        const unit = units[next++] ?? [];
        if (mode === "single") {
          const res = await call("POST", "/v1/documents", apiKey, unit[0]);
          if (res.status !== 201)
            throw new Error(`a document answered ${res.status}: ${JSON.stringify(res.body)}`);
          stored++;
        } else {
          const res = await call("POST", "/v1/documents/batch", apiKey, { documents: unit });
          const results = (res.body.results ?? []) as { document?: unknown }[];
          if (res.status !== 200 || results.some((r) => !r.document)) {
            throw new Error(
              `a batch answered ${res.status} with ${results.filter((r) => !r.document).length} errors`,
            );
          }
          stored += results.length;
        }
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    const ms = performance.now() - started;
    const cpuAfter = processCpuMs(server.child.pid);
    const cpuMs = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
    const found = await call("GET", "/v1/search?q=the", apiKey);
    const corpus = found.body.corpus as { documents: number };
    if (stored !== docs.length || corpus.documents !== docs.length) {
      throw new Error(`stored ${stored}, the index holds ${corpus.documents}, of ${docs.length}`);
    }
    return { ms, cpuMs };
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchIngest(count: number): Promise<void> {
  const docs = ingestDocuments(count);
  const bytes = docs.reduce((sum, d) => sum + Buffer.byteLength(d.content), 0);
  const floorMs = measureFloor(floorPassages(docs)).ms;
  const single = await ingest("single", docs);
  const batch = await ingest("batch", docs);
  const singleMs = single.ms;
  const batchMs = batch.ms;
  const floorAfterMs = measureFloor(floorPassages(docs)).ms;
  // The floor before and after, so a machine that got busier in between shows as a spread.
  const floor = (floorMs + floorAfterMs) / 2;
  console.log(
    `\n## ingest: ${count.toLocaleString("en")} documents of ~${Math.round(bytes / count)} B over HTTP (${(bytes / 1024 / 1024).toFixed(1)} MiB of text)`,
  );
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const cpu = (ms: number | null) => (ms === null ? "" : `, server CPU ${s(ms)}`);
  const rows: [string, string][] = [
    ["floor: plain FTS5 load of the same text", `${s(floor)}  [${s(floorMs)}, ${s(floorAfterMs)}]`],
    [
      `one a request, ${SINGLE_IN_FLIGHT} in flight`,
      `${s(singleMs)}  ${(singleMs / floor).toFixed(1)}× the floor, ${Math.round(count / (singleMs / 1000))} documents/s${cpu(single.cpuMs)}`,
    ],
    [
      `batch route, ${BATCH_DOCUMENTS} a request, ${BATCH_IN_FLIGHT} in flight (target ≤ 10×)`,
      `${s(batchMs)}  ${(batchMs / floor).toFixed(1)}× the floor, ${Math.round(count / (batchMs / 1000))} documents/s${cpu(batch.cpuMs)}`,
    ],
    ["batch speed-up over one a request", `${(singleMs / batchMs).toFixed(1)}×`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(56)} ${v}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv[2] === "serve") {
  await serveBenchApp({ dbUrl: process.argv[3] ?? "", pool: true, maxDocumentBytes: 5 * 1024 * 1024 });
}
