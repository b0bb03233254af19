// The extract pool's worker thread (src/runtime/extract-pool.ts): reads one file per message and answers
// with its text, with the reason it has none (an ExtractionError's message names the file's problem, never
// its text), or with an unexpected error's name only (its message could quote the file).

import { parentPort } from "node:worker_threads";
import { inlineExtractor } from "../extract/extract.js";
import { ExtractionError } from "../extract/extraction-error.js";
import type { ExtractReply, ExtractRequest } from "./extract-pool.js";

const port = parentPort;
if (!port) throw new Error("extract-thread runs as a worker thread of the extract pool");

port.on("message", async ({ id, file }: ExtractRequest) => {
  let reply: ExtractReply;
  try {
    reply = { id, extracted: await inlineExtractor(file) };
  } catch (error) {
    reply =
      error instanceof ExtractionError
        ? { id, problem: error.problem, message: error.message }
        : { id, error: error instanceof Error ? error.name : "unknown error" };
  }
  port.postMessage(reply);
});
