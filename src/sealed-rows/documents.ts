// What each sealed column holds, as schemas: an opened row that does not match is as unreadable as one that
// does not decrypt, and is reported the same way (never as an empty value).

import { z } from "zod";
import { DomainError } from "../errors.js";
import { documentFormats } from "../ingest/formats.js";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

export const documentMetaSchema = z.object({
  title: z.string(),
  path: z.array(z.string()),
  format: z.enum(documentFormats),
  externalId: z.string().nullable(),
  // The SHA-256 hex of the content's UTF-8 bytes, kept here, sealed, because a plain hash at rest would let
  // anyone holding the database confirm a guessed document. Rows written before it existed have none.
  contentHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  // Its front matter's tags, aliases, keywords and categories (src/ingest/front-matter.ts). Rows written
  // before tags were read have none, and answer `tags: []`.
  tags: z.array(z.string()).optional(),
});
export type DocumentMeta = z.infer<typeof documentMetaSchema>;

export const chunkBodySchema = z.object({ heading: z.string(), text: z.string() });
export type ChunkBody = z.infer<typeof chunkBodySchema>;
// A run carries its document's title and path as well as its chunks, so an index build reads chunk rows
// only: opening every document row as well cost 0.43 s of a 90k-chunk build (9,000 more WebCrypto calls).
// Its tags too, which the index searches with the title; runs written before tags were read have none.
const chunkRunSchema = z.object({
  title: z.string(),
  path: z.array(z.string()),
  tags: z.array(z.string()).optional(),
  chunks: z.array(chunkBodySchema),
});
export type ChunkRun = z.infer<typeof chunkRunSchema>;

/**
 * How many chunks, and how much text, one sealed chunk run holds. Opening a value through WebCrypto costs a
 * fixed ~35 µs per call plus ~8 ms per MB (measured on this project's 2-core machine): at one call per 1 KB
 * chunk the fixed part was 40 ms per MB, five times the work itself. Runs of up to 64 chunks or 32 K
 * characters make the fixed part vanish while one run stays a small row.
 */
export const CHUNK_RUN_MAX_CHUNKS = 64;
export const CHUNK_RUN_MAX_CHARS = 32 * 1024;

/** Splits a document's chunks, in ordinal order, into runs within the bounds above. */
export function chunkRuns<T extends ChunkBody>(chunks: readonly T[]): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let chars = 0;
  for (const chunk of chunks) {
    const size = chunk.heading.length + chunk.text.length;
    if (run.length > 0 && (run.length >= CHUNK_RUN_MAX_CHUNKS || chars + size > CHUNK_RUN_MAX_CHARS)) {
      runs.push(run);
      run = [];
      chars = 0;
    }
    run.push(chunk);
    chars += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** A chunk's id: stable for a document version and ordinal, so a rebuilt index answers with the same ids. */
export function chunkId(documentId: string, version: number, ordinal: number): string {
  return `${documentId}.${version}.${ordinal}`;
}

// A run is bound to its document, version and first ordinal: copied onto another run, another version's
// row or another document, it fails to open.
const runRowId = (documentId: string, version: number, firstOrdinal: number) =>
  `${documentId}/${version}/${firstOrdinal}`;

const contentSchema = z.object({ content: z.string() });

/** Table names as bound into each seal's additional data; changing one makes existing rows unreadable. */
export const sealedTables = {
  documents: "documents",
  documentContent: "document_content",
  chunks: "chunks",
} as const;

export const sealDocumentMeta = (key: TeamKey, id: string, meta: DocumentMeta) =>
  sealRow(key, sealedTables.documents, id, meta);
export const openDocumentMeta = (key: TeamKey, id: string, sealed: Uint8Array) =>
  openAs(documentMetaSchema, key, sealedTables.documents, id, sealed);

export const sealContent = (key: TeamKey, id: string, content: string) =>
  sealRow(key, sealedTables.documentContent, id, { content });
export const openContent = async (key: TeamKey, id: string, sealed: Uint8Array) =>
  (await openAs(contentSchema, key, sealedTables.documentContent, id, sealed)).content;

export const sealChunkRun = (
  key: TeamKey,
  run: { documentId: string; version: number; firstOrdinal: number },
  content: ChunkRun,
) => sealRow(key, sealedTables.chunks, runRowId(run.documentId, run.version, run.firstOrdinal), content);

export async function openChunkRun(
  key: TeamKey,
  run: { documentId: string; version: number; firstOrdinal: number; count: number; sealed: Uint8Array },
): Promise<ChunkRun> {
  const id = runRowId(run.documentId, run.version, run.firstOrdinal);
  const content = await openAs(chunkRunSchema, key, sealedTables.chunks, id, run.sealed);
  if (content.chunks.length !== run.count) {
    throw new DomainError("unreadable", `Stored chunks row ${id} does not hold its count.`);
  }
  return content;
}
