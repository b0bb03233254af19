// How the write pipeline gets a document's passages: a function it awaits, so the chunking can run on the
// request thread (here) or in a pool of worker threads (src/runtime/chunk-pool.ts) without the caller knowing.

import { chunkDocument, type Passage } from "./chunk.js";
import type { DocumentFormat } from "./formats.js";

export interface ChunkInput {
  title: string;
  content: string;
  format: DocumentFormat;
}

export type Chunker = (doc: ChunkInput) => Promise<Passage[]>;

/** Chunks on the calling thread: the default, and what the pool uses for documents too small to send. */
export const inlineChunker: Chunker = async (doc) =>
  chunkDocument({ title: doc.title, content: doc.content, format: doc.format });
