// memoria answering a collection the way a client would: one team, the documents sent through
// POST /v1/documents/batch, each query asked through GET /v1/search, over loopback HTTP to a server in a
// process of its own. Passages come back; a document ranks where its best passage does.

import { benchClient } from "../bench/server.js";
import type { Collection } from "./collection.js";
import type { Retrieved } from "./metrics.js";

/** The batch route's most (docs/api.md). */
const BATCH_DOCUMENTS = 500;
/** The search route's most (docs/api.md): a run is scored to Recall@100 and MAP@100. */
export const MAX_LIMIT = 100;

export interface MemoriaRun {
  run: Map<string, Retrieved[]>;
  ingestMs: number;
  queryMs: number[];
}

/** One request; an answer that is not a success is an error naming its status and code. */
function client(base: string) {
  const request = benchClient(base);
  return {
    async call(method: string, path: string, token: string, json?: unknown) {
      const { status, body } = await request(method, path, token, json);
      if (status < 200 || status > 299) {
        throw new Error(`${method} ${path.split("?")[0]} answered ${status}: ${JSON.stringify(body)}`);
      }
      return body;
    },
  };
}

interface Hit {
  documentId: string;
  score: number;
}

/** The search route's default limit (docs/api.md): what a client that sets none is answered with. */
export const DEFAULT_LIMIT = 20;

/** A collection sent to memoria: the team's key and each memoria document id's collection id. */
export interface IngestedCollection {
  apiKey: string;
  collectionIdOf: Map<string, string>;
  ingestMs: number;
}

/** One team, the collection sent through the batch route, and the first search level with it. */
export async function ingestCollection(
  base: string,
  adminToken: string,
  collection: Collection,
  onProgress: (line: string) => void = () => {},
): Promise<IngestedCollection> {
  const http = client(base);
  const team = await http.call("POST", "/v1/teams", adminToken, { name: `eval ${collection.name}` });
  const apiKey = team.apiKey as string;
  const collectionIdOf = new Map<string, string>();
  const started = performance.now();
  for (let i = 0; i < collection.documents.length; i += BATCH_DOCUMENTS) {
    const unit = collection.documents.slice(i, i + BATCH_DOCUMENTS);
    const answer = await http.call("POST", "/v1/documents/batch", apiKey, {
      documents: unit.map((doc) => ({
        // A title is required; the collection has documents without one (Cranfield's 471 and 995).
        title: doc.title.trim() === "" ? doc.id : doc.title,
        content: doc.text,
        format: "text",
        externalId: doc.id,
      })),
    });
    const results = answer.results as ({ document: { id: string } } | { error: { code: string } })[];
    results.forEach((result, j) => {
      if ("error" in result) throw new Error(`document ${unit[j]?.id} was refused: ${result.error.code}`);
      collectionIdOf.set(result.document.id, unit[j]?.id ?? "");
    });
    onProgress(
      `sent ${Math.min(i + BATCH_DOCUMENTS, collection.documents.length)}/${collection.documents.length}`,
    );
  }
  // The first search waits for the team's index to be level with what was sent.
  await http.call("GET", "/v1/search?q=warmup", apiKey);
  return { apiKey, collectionIdOf, ingestMs: performance.now() - started };
}

/** Every query asked through /v1/search at `limit`; a document ranks where its best passage does. */
export async function askQueries(
  base: string,
  ingested: IngestedCollection,
  collection: Collection,
  limit: number,
): Promise<{ run: Map<string, Retrieved[]>; queryMs: number[] }> {
  const http = client(base);
  const run = new Map<string, Retrieved[]>();
  const queryMs: number[] = [];
  for (const query of collection.queries) {
    if (!/[\p{L}\p{N}]/u.test(query.text)) {
      run.set(query.id, []);
      continue;
    }
    const t0 = performance.now();
    const answer = await http.call(
      "GET",
      `/v1/search?q=${encodeURIComponent(query.text)}&limit=${limit}`,
      ingested.apiKey,
    );
    queryMs.push(performance.now() - t0);
    const seen = new Set<string>();
    const retrieved: Retrieved[] = [];
    for (const hit of answer.hits as Hit[]) {
      const docId = ingested.collectionIdOf.get(hit.documentId);
      if (docId === undefined || seen.has(docId)) continue;
      seen.add(docId);
      retrieved.push({ docId, score: hit.score });
    }
    run.set(query.id, retrieved);
  }
  return { run, queryMs };
}

export async function runMemoria(
  base: string,
  adminToken: string,
  collection: Collection,
  limit: number,
  onProgress: (line: string) => void = () => {},
): Promise<MemoriaRun> {
  const ingested = await ingestCollection(base, adminToken, collection, onProgress);
  const { run, queryMs } = await askQueries(base, ingested, collection, limit);
  return { run, ingestMs: ingested.ingestMs, queryMs };
}
