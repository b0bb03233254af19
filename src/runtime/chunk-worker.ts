// The chunk pool's worker thread (src/runtime/chunk-pool.ts): chunks one document per message and answers
// with its passages, or with the error's name only (a message could quote the document).

import { parentPort } from "node:worker_threads";
import { chunkDocument } from "../ingest/chunk.js";
import type { ChunkReply, ChunkRequest } from "./chunk-pool.js";

const port = parentPort;
if (!port) throw new Error("chunk-worker runs as a worker thread of the chunk pool");

port.on("message", ({ id, doc }: ChunkRequest) => {
  let reply: ChunkReply;
  try {
    reply = { id, passages: chunkDocument(doc) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.name : "unknown error" };
  }
  port.postMessage(reply);
});
