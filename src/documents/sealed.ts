// What each sealed column holds, as schemas: an opened row that does not match is as unreadable as one that
// does not decrypt, and is reported the same way (never as an empty value).

import { z } from "zod";
import { UnreadableError } from "../errors.js";
import { documentFormats } from "../ingest/chunk.js";
import { openRow, sealRow, type TeamKey } from "../seal/team-key.js";

export const documentMetaSchema = z.object({
  title: z.string(),
  path: z.array(z.string()),
  format: z.enum(documentFormats),
  externalId: z.string().nullable(),
});
export type DocumentMeta = z.infer<typeof documentMetaSchema>;

export const chunkBodySchema = z.object({ heading: z.string(), text: z.string() });
export type ChunkBody = z.infer<typeof chunkBodySchema>;

const contentSchema = z.object({ content: z.string() });

/** Table names as bound into each seal's additional data; changing one makes existing rows unreadable. */
export const sealedTables = {
  documents: "documents",
  documentContent: "document_content",
  chunks: "chunks",
} as const;

async function openAs<T>(schema: z.ZodType<T>, key: TeamKey, table: string, id: string, sealed: Uint8Array) {
  const parsed = schema.safeParse(await openRow(key, table, id, sealed));
  if (!parsed.success)
    throw new UnreadableError(`Stored ${table} row ${id} opened but is not in the expected shape.`);
  return parsed.data;
}

export const sealDocumentMeta = (key: TeamKey, id: string, meta: DocumentMeta) =>
  sealRow(key, sealedTables.documents, id, meta);
export const openDocumentMeta = (key: TeamKey, id: string, sealed: Uint8Array) =>
  openAs(documentMetaSchema, key, sealedTables.documents, id, sealed);

export const sealContent = (key: TeamKey, id: string, content: string) =>
  sealRow(key, sealedTables.documentContent, id, { content });
export const openContent = async (key: TeamKey, id: string, sealed: Uint8Array) =>
  (await openAs(contentSchema, key, sealedTables.documentContent, id, sealed)).content;

export const sealChunk = (key: TeamKey, chunkId: string, body: ChunkBody) =>
  sealRow(key, sealedTables.chunks, chunkId, body);
export const openChunk = (key: TeamKey, chunkId: string, sealed: Uint8Array) =>
  openAs(chunkBodySchema, key, sealedTables.chunks, chunkId, sealed);
