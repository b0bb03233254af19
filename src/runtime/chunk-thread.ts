// The chunk pool's worker thread (src/runtime/chunk-pool.ts): chunks one document per message and answers
// with its passages, or packs documents' text blocks and answers with them; on failure, with the error's name
// only (a message could quote the document).

import { parentPort } from "node:worker_threads";
import { packDocumentText } from "../index/passages/passage-document.js";
import { chunkDocument } from "../ingest/chunk.js";
import type { ChunkReply, ChunkRequest } from "./chunk-pool.js";

const port = parentPort;
if (!port) throw new Error("chunk-thread runs as a worker thread of the chunk pool");

port.on("message", (request: ChunkRequest) => {
  const { id } = request;
  let reply: ChunkReply;
  try {
    reply =
      "doc" in request
        ? { id, passages: chunkDocument(request.doc) }
        : { id, packed: request.pack.map((passages) => packDocumentText(passages)) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.name : "unknown error" };
  }
  port.postMessage(reply);
});
