// One peer search library, built and queried in a fresh process (as bench/measure.ts does for memoria), so
// each starts from the same empty heap and none shares caches with another. Prints one JSON line. Run by
// bench/run.ts (the peers suite, on a generated shape) and bench/real-http.ts (the real suite: the passages
// and questions arrive on stdin, the plain FTS5 table runs as an engine too, and memory is read as VmRSS):
//   tsx bench/peers.ts <minisearch|orama|flexsearch> <shape> <chunks> <rounds>
//   tsx bench/peers.ts <fts5|minisearch|orama|flexsearch> --stdin
//
// Each library is used the way its README shows full-text search over a title and a body field: its
// default tokenizer and scoring (MiniSearch and Orama rank with BM25; FlexSearch with its own contextual
// resolution score), top SEARCH_LIMIT, and any-term matching as memoria's OR does (MiniSearch and Orama
// match any term by default; FlexSearch needs `suggest: true`, or a multi-word query returns only
// passages holding every word and most long queries return nothing). A passage is one document of the
// library: its title, and its heading and body as the text.

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { create, insertMultiple, insert as oramaInsert, search as oramaSearch } from "@orama/orama";
import { Document } from "flexsearch";
import MiniSearch from "minisearch";
import { z } from "zod";
import { type CorpusPassage, corpusPassages, queryMix } from "./corpus.js";
import { growingQueryFloor, SEARCH_LIMIT } from "./floor.js";
import { longQueryMix } from "./queries.js";
import { generateShape, isCorpusShape } from "./shapes.js";
import { latency, processRssBytes, settledRssMiB } from "./stats.js";

export const PEERS = ["minisearch", "orama", "flexsearch"] as const;
export type Peer = (typeof PEERS)[number];

// A type rather than an interface: FlexSearch wants an object type with an implicit index signature.
type PeerDocument = {
  id: number;
  title: string;
  text: string;
};

/** A built index: answers a query with at most SEARCH_LIMIT ids, best first. */
type Searcher = (query: string) => Promise<unknown[]> | unknown[];

function peerDocuments(passages: readonly CorpusPassage[]): PeerDocument[] {
  return passages.map((p, id) => ({ id, title: p.title, text: `${p.heading}\n\n${p.body}` }));
}

async function build(peer: Peer, docs: PeerDocument[]): Promise<Searcher> {
  switch (peer) {
    case "minisearch": {
      const index = new MiniSearch<PeerDocument>({ fields: ["title", "text"] });
      index.addAll(docs);
      // MiniSearch has no limit option: it scores every match and sorts them all, then we keep the top.
      return (q) => index.search(q).slice(0, SEARCH_LIMIT);
    }
    case "orama": {
      const db = create({ schema: { title: "string", text: "string" } as const });
      await insertMultiple(
        db,
        docs.map(({ title, text }) => ({ title, text })),
      );
      return async (q) => (await oramaSearch(db, { term: q, limit: SEARCH_LIMIT })).hits;
    }
    case "flexsearch": {
      const index = new Document({ document: { id: "id", index: ["title", "text"] } });
      for (const doc of docs) index.add(doc);
      // The limit applies per field, and merging the two fields' lists can give up to twice as many.
      return (q) =>
        (index.search(q, { limit: SEARCH_LIMIT, suggest: true, merge: true }) as unknown[]).slice(
          0,
          SEARCH_LIMIT,
        );
    }
  }
}

async function measurePeer(peer: Peer, shape: string, chunks: number, rounds: number) {
  if (!isCorpusShape(shape)) throw new Error(`unknown corpus shape: ${shape}`);
  const mixes = [queryMix(), longQueryMix()] as const;
  // What the process holds before any corpus: the runtime, the modules and the query mixes.
  const baseRssMiB = settledRssMiB();
  let docs: PeerDocument[] | undefined = peerDocuments(corpusPassages(generateShape(shape, chunks)));
  const started = performance.now();
  const searcher = await build(peer, docs);
  // The first answer, as memoria's cold start counts it: the index is usable once it has answered.
  await searcher(mixes[0][0] ?? "report");
  const buildMs = performance.now() - started;
  // The bench's own copy of the text is dropped, so RSS counts what the library itself keeps.
  docs = undefined;
  const rssMiB = settledRssMiB();
  const results = [];
  for (const mix of mixes) {
    const times: number[] = [];
    let hits = 0;
    for (let r = 0; r < rounds; r++) {
      for (const q of mix) {
        const t = performance.now();
        hits += (await searcher(q)).length;
        times.push(performance.now() - t);
      }
    }
    results.push({ ...latency(times), hitsPerQuery: hits / times.length });
  }
  const [short, long] = results;
  return {
    buildMs,
    p50: short?.p50,
    p99: short?.p99,
    longP50: long?.p50,
    longP99: long?.p99,
    hitsPerQuery: short?.hitsPerQuery,
    longHitsPerQuery: long?.hitsPerQuery,
    rssMiB,
    baseRssMiB,
  };
}

export function isPeer(name: string): name is Peer {
  return (PEERS as readonly string[]).includes(name);
}

/**
 * What the real suite sends a peer's process on its stdin: this header on the first line, then one passage
 * a line. A line at a time, so the input never sits in the heap whole: the heap a 17 MiB JSON value grows
 * stays as RSS after its collection and would be counted as the engine's.
 */
export const peerHeader = z.object({
  passages: z.number().int().nonnegative(),
  short: z.array(z.string()),
  long: z.array(z.string()),
  /** Each mix stops asking past this many milliseconds (Orama's long questions take ~0.4 s each). */
  budgetMs: z.number().positive(),
});
export type PeerHeader = z.infer<typeof peerHeader>;
const peerPassage = z.object({ heading: z.string(), body: z.string(), title: z.string(), path: z.string() });

/** The stdin of a peer's process for these passages and questions. */
export function peerInputText(
  header: Omit<PeerHeader, "passages">,
  passages: readonly CorpusPassage[],
): string {
  const lines = [JSON.stringify({ ...header, passages: passages.length })];
  for (const p of passages) lines.push(JSON.stringify(p));
  return `${lines.join("\n")}\n`;
}

/** What a peer's process prints: its build, its in-process latency by mix, and its memory from /proc. */
export const peerFigures = z.object({
  buildMs: z.number(),
  shortP50: z.number(),
  shortP99: z.number(),
  shortAsked: z.number(),
  longP50: z.number(),
  longP99: z.number(),
  longAsked: z.number(),
  /** VmRSS before the input was read (the runtime and the modules), and after the build, settled. */
  rssBeforeBytes: z.number(),
  rssAfterBytes: z.number(),
});
export type PeerFigures = z.infer<typeof peerFigures>;

/** The engines the real suite runs in a process each: the peers, and the floor's plain FTS5 table. */
export const REAL_ENGINES = ["fts5", ...PEERS] as const;
export type RealEngine = (typeof REAL_ENGINES)[number];

/** An engine built a passage at a time, as the lines arrive. */
interface IncrementalBuild {
  add(passage: CorpusPassage, id: number): unknown;
  done(): Searcher;
}

function incrementalBuild(engine: RealEngine): IncrementalBuild {
  const doc = (p: CorpusPassage, id: number): PeerDocument => ({
    id,
    title: p.title,
    text: `${p.heading}\n\n${p.body}`,
  });
  switch (engine) {
    case "fts5": {
      const floor = growingQueryFloor();
      return { add: (p) => floor.add(p), done: () => floor.done() };
    }
    case "minisearch": {
      const index = new MiniSearch<PeerDocument>({ fields: ["title", "text"] });
      return {
        add: (p, id) => index.add(doc(p, id)),
        done: () => (q) => index.search(q).slice(0, SEARCH_LIMIT),
      };
    }
    case "orama": {
      const db = create({ schema: { title: "string", text: "string" } as const });
      return {
        add: (p) => oramaInsert(db, { title: p.title, text: `${p.heading}\n\n${p.body}` }),
        done: () => async (q) => (await oramaSearch(db, { term: q, limit: SEARCH_LIMIT })).hits,
      };
    }
    case "flexsearch": {
      const index = new Document({ document: { id: "id", index: ["title", "text"] } });
      return {
        add: (p, id) => index.add(doc(p, id)),
        done: () => (q) =>
          (index.search(q, { limit: SEARCH_LIMIT, suggest: true, merge: true }) as unknown[]).slice(
            0,
            SEARCH_LIMIT,
          ),
      };
    }
  }
}

/** The settled VmRSS of this process: after a collection, as a server's would be read between requests. */
function settledRssBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return processRssBytes(process.pid);
}

/** A mix asked in order until its questions or the budget run out; NaN percentiles if none was asked. */
async function timeMix(searcher: Searcher, questions: readonly string[], budgetMs: number) {
  const times: number[] = [];
  const end = performance.now() + budgetMs;
  for (const q of questions) {
    if (performance.now() > end) break;
    const t = performance.now();
    await searcher(q);
    times.push(performance.now() - t);
  }
  return { ...latency(times), asked: times.length };
}

/** One engine on the real suite's passages, in this fresh process: build, both mixes, memory. */
async function measureOnInput(engine: RealEngine): Promise<PeerFigures> {
  const rssBeforeBytes = settledRssBytes();
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let header: PeerHeader | null = null;
  let added = 0;
  let started = 0;
  const build = incrementalBuild(engine);
  for await (const line of lines) {
    if (header === null) {
      header = peerHeader.parse(JSON.parse(line));
      started = performance.now();
      continue;
    }
    if (line.trim() === "") continue;
    await build.add(peerPassage.parse(JSON.parse(line)), added++);
  }
  if (header === null || added !== header.passages)
    throw new Error(`expected ${header?.passages} passages, read ${added}`);
  const { short, long, budgetMs } = header;
  const searcher = build.done();
  await searcher(long[0] ?? "report");
  const buildMs = performance.now() - started;
  const rssAfterBytes = settledRssBytes();
  const s = await timeMix(searcher, short, budgetMs);
  const l = await timeMix(searcher, long, budgetMs);
  return {
    buildMs,
    shortP50: s.p50,
    shortP99: s.p99,
    shortAsked: s.asked,
    longP50: l.p50,
    longP99: l.p99,
    longAsked: l.asked,
    rssBeforeBytes,
    rssAfterBytes,
  };
}

function isRealEngine(name: string): name is RealEngine {
  return (REAL_ENGINES as readonly string[]).includes(name);
}

// Measures only when run as the script; bench/run.ts imports the list of peers from here.
//   tsx bench/peers.ts <peer> <shape> <chunks> <rounds>   (the peers suite, generated corpora)
//   tsx bench/peers.ts <fts5|peer> --stdin                (the real suite: peerInputText on stdin)
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [engine = "", shape = "", chunks, rounds] = process.argv.slice(2);
  if (shape === "--stdin") {
    if (!isRealEngine(engine)) throw new Error(`unknown engine: ${engine}`);
    console.log(JSON.stringify(await measureOnInput(engine)));
  } else {
    if (!isPeer(engine)) throw new Error(`unknown peer: ${engine}`);
    console.log(JSON.stringify(await measurePeer(engine, shape, Number(chunks), Number(rounds ?? 1))));
  }
}
