// One peer search library, built and queried in a fresh process (as bench/measure.ts does for memoria), so
// each starts from the same empty heap and none shares caches with another. Prints one JSON line. Run by
// bench/run.ts:
//   tsx bench/peers.ts <minisearch|orama|flexsearch> <shape> <chunks> <rounds>
//
// Each library is used the way its README shows full-text search over a title and a body field: its
// default tokenizer and scoring (MiniSearch and Orama rank with BM25; FlexSearch with its own contextual
// resolution score), top SEARCH_LIMIT, and any-term matching as memoria's OR does (MiniSearch and Orama
// match any term by default; FlexSearch needs `suggest: true`, or a multi-word query returns only
// passages holding every word and most long queries return nothing). A passage is one document of the
// library: its title, and its heading and body as the text.

import { pathToFileURL } from "node:url";
import { create, insertMultiple, search as oramaSearch } from "@orama/orama";
import { Document } from "flexsearch";
import MiniSearch from "minisearch";
import { type CorpusPassage, corpusPassages, queryMix } from "./corpus.js";
import { SEARCH_LIMIT } from "./floor.js";
import { longQueryMix } from "./queries.js";
import { generateShape, isCorpusShape } from "./shapes.js";
import { latency, settledRssMiB } from "./stats.js";

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

// Measures only when run as the script; bench/run.ts imports the list of peers from here.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [peer = "", shape = "", chunks, rounds] = process.argv.slice(2);
  if (!isPeer(peer)) throw new Error(`unknown peer: ${peer}`);
  console.log(JSON.stringify(await measurePeer(peer, shape, Number(chunks), Number(rounds ?? 1))));
}
