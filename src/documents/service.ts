// The documents write pipeline and reads: chunk, seal, store in one transaction with the change record,
// then bring the team's live index level before the write is acknowledged.

import type { Clock } from "../clock.js";
import { ConflictError, NotFoundError, PayloadTooLargeError } from "../errors.js";
import { newId } from "../ids.js";
import { chunkDocument, type DocumentFormat } from "../ingest/chunk.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import { type DocumentCursor, type DocumentRow, UniqueExternalRefError } from "../store/documents.js";
import type { Storage } from "../store/storage.js";
import type { LiveIndexes } from "../teams/live-indexes.js";
import {
  chunkRuns,
  openContent,
  openDocumentMeta,
  sealChunkRun,
  sealContent,
  sealDocumentMeta,
} from "./sealed.js";

export interface DocumentInput {
  title: string;
  content: string;
  format: DocumentFormat;
  path: string[];
  externalId: string | null;
}

export interface DocumentView {
  id: string;
  title: string;
  path: string[];
  format: DocumentFormat;
  externalId?: string;
  chunks: number;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentsDeps {
  storage: Storage;
  indexes: LiveIndexes;
  clock: Clock;
  maxDocumentBytes: number;
}

export class DocumentService {
  constructor(private readonly deps: DocumentsDeps) {}

  /**
   * Stores a new document, or replaces the one holding the same externalId (then `created` is false).
   */
  async create(key: TeamKey, input: DocumentInput): Promise<{ document: DocumentView; created: boolean }> {
    const ref = input.externalId === null ? null : await blindIndex(key, input.externalId);
    const existing = ref ? await this.deps.storage.documents.findByExternalRef(key.teamId, ref) : null;
    if (existing) return { document: await this.#write(key, input, ref, existing), created: false };
    try {
      return { document: await this.#write(key, input, ref, null), created: true };
    } catch (error) {
      // Another request stored the same externalId between our lookup and our insert: replace that one.
      if (!(error instanceof UniqueExternalRefError) || !ref) throw error;
      const winner = await this.deps.storage.documents.findByExternalRef(key.teamId, ref);
      if (!winner) throw error;
      return { document: await this.#write(key, input, ref, winner), created: false };
    }
  }

  async replace(key: TeamKey, id: string, input: DocumentInput): Promise<DocumentView> {
    const existing = await this.deps.storage.documents.get(key.teamId, id);
    if (!existing) throw new NotFoundError(`No document ${id}.`);
    const ref = input.externalId === null ? null : await blindIndex(key, input.externalId);
    try {
      return await this.#write(key, input, ref, existing);
    } catch (error) {
      if (error instanceof UniqueExternalRefError) {
        throw new ConflictError("Another document of this team already holds that externalId.");
      }
      throw error;
    }
  }

  async get(key: TeamKey, id: string): Promise<DocumentView & { content: string }> {
    const { documents } = this.deps.storage;
    const row = await documents.get(key.teamId, id);
    const sealedContent = row ? await documents.content(key.teamId, id) : null;
    if (!row || !sealedContent) throw new NotFoundError(`No document ${id}.`);
    const [view, content] = await Promise.all([this.#view(key, row), openContent(key, id, sealedContent)]);
    return { ...view, content };
  }

  async list(
    key: TeamKey,
    limit: number,
    after: DocumentCursor | null,
  ): Promise<{ documents: DocumentView[]; next: DocumentCursor | null }> {
    const rows = await this.deps.storage.documents.list(key.teamId, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      documents: await Promise.all(page.map((row) => this.#view(key, row))),
      next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null,
    };
  }

  async delete(key: TeamKey, id: string): Promise<void> {
    const seq = await this.deps.storage.documents.delete(key.teamId, id, this.deps.clock.now().toISOString());
    if (seq === null) throw new NotFoundError(`No document ${id}.`);
    await this.deps.indexes.committed(key);
  }

  async #write(
    key: TeamKey,
    input: DocumentInput,
    ref: Uint8Array | null,
    existing: DocumentRow | null,
  ): Promise<DocumentView> {
    const { storage, indexes, clock, maxDocumentBytes } = this.deps;
    const contentBytes = new TextEncoder().encode(input.content).length;
    if (contentBytes > maxDocumentBytes) {
      throw new PayloadTooLargeError(
        `Document content is ${contentBytes} bytes; the limit is ${maxDocumentBytes}.`,
      );
    }
    const id = existing?.id ?? newId("d");
    const now = clock.now().toISOString();
    const version = (existing?.version ?? 0) + 1;
    const passages = chunkDocument({ title: input.title, content: input.content, format: input.format });
    const runs = await Promise.all(
      chunkRuns(passages).map(async (run) => {
        const firstOrdinal = run[0]?.ordinal ?? 0;
        const bodies = run.map((p) => ({ heading: p.heading, text: p.text }));
        return {
          documentId: id,
          firstOrdinal,
          count: run.length,
          version,
          sealed: await sealChunkRun(
            key,
            { documentId: id, version, firstOrdinal },
            { title: input.title, path: input.path, chunks: bodies },
          ),
        };
      }),
    );
    const row: DocumentRow = {
      teamId: key.teamId,
      id,
      sealed: await sealDocumentMeta(key, id, {
        title: input.title,
        path: input.path,
        format: input.format,
        externalId: input.externalId,
      }),
      externalRef: ref,
      version,
      chunkCount: passages.length,
      contentBytes,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    const content = await sealContent(key, id, input.content);
    const seq = await storage.documents.write({ row, content, runs }, existing ? "replace" : "insert");
    if (seq === null) throw new NotFoundError(`No document ${id}.`);
    await indexes.committed(key);
    return this.#viewOf(row, input);
  }

  async #view(key: TeamKey, row: DocumentRow): Promise<DocumentView> {
    return this.#viewOf(row, await openDocumentMeta(key, row.id, row.sealed));
  }

  #viewOf(
    row: DocumentRow,
    meta: { title: string; path: string[]; format: DocumentFormat; externalId: string | null },
  ): DocumentView {
    return {
      id: row.id,
      title: meta.title,
      path: meta.path,
      format: meta.format,
      ...(meta.externalId === null ? {} : { externalId: meta.externalId }),
      chunks: row.chunkCount,
      version: row.version,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}
