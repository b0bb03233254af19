// The documents write pipeline and reads: chunk, seal, store in one transaction with the change record,
// then bring the team's live index level before the write is acknowledged.

import { KeyedSerialQueue } from "../async/serial-queue.js";
import type { Clock } from "../clock.js";
import { DomainError, isDomainError } from "../errors.js";
import { newId } from "../ids.js";
import type { Passage } from "../ingest/chunk.js";
import { type Chunker, inlineChunker } from "../ingest/chunker.js";
import type { DocumentFormat } from "../ingest/formats.js";
import { contentHashOf, describeNotText, notTextReason } from "../ingest/text.js";
import type { LiveIndexes } from "../live/indexes.js";
import { toHex } from "../seal/bytes.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import {
  chunkRuns,
  type DocumentMeta,
  openContent,
  openDocumentMeta,
  sealChunkRun,
  sealContent,
  sealDocumentMeta,
} from "../sealed/documents.js";
import { openReadable } from "../sealed/readable.js";
import {
  type DocumentCursor,
  type DocumentRow,
  type DocumentWrite,
  UniqueExternalRefError,
} from "../store/documents.js";
import { pageOf } from "../store/page.js";
import type { Storage } from "../store/storage.js";
import { utf8Length } from "../text/length.js";

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
  /** Absent for a document last written before content hashes were kept. */
  contentHash?: string;
  chunks: number;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * How often a write is retried after losing a race to another write of the same document. Each retry
 * follows a write that did commit, so running out means the document is being rewritten non-stop.
 */
const MAX_WRITE_ATTEMPTS = 5;

/**
 * Refuses content that is not a note's text, whichever way it came (JSON, the webhook, Notion; a raw or
 * multipart upload is refused by its route first, with 415). Before anything is chunked or stored.
 */
function refuseNotText(input: DocumentInput): void {
  const reason = notTextReason(input.content);
  if (reason)
    throw new DomainError("invalid_request", `Invalid request: content: ${describeNotText(reason)}.`);
}

export interface DocumentsDeps {
  storage: Storage;
  indexes: LiveIndexes;
  clock: Clock;
  maxDocumentBytes: number;
  /** Turns a document into passages; inline unless the runtime gives a worker pool. */
  chunker?: Chunker;
}

export class DocumentService {
  /**
   * Writes of one document (by id or by external id) in this instance run one at a time, so they never race
   * each other's version check; writes from other instances still can, and are retried (see #write).
   */
  readonly #writing = new KeyedSerialQueue();

  constructor(private readonly deps: DocumentsDeps) {}

  /**
   * Stores a new document, or replaces the one holding the same externalId (then `created` is false).
   */
  async create(key: TeamKey, input: DocumentInput): Promise<{ document: DocumentView; created: boolean }> {
    refuseNotText(input);
    const ref = input.externalId === null ? null : await blindIndex(key, input.externalId);
    const store = async () => {
      const existing = ref ? await this.deps.storage.documents.findByExternalRef(key.teamId, ref) : null;
      try {
        return await this.#write(key, input, ref, existing, "insert");
      } catch (error) {
        // Another instance stored the same externalId between our lookup and our insert: replace that one.
        if (!(error instanceof UniqueExternalRefError) || !ref) throw error;
        const winner = await this.deps.storage.documents.findByExternalRef(key.teamId, ref);
        if (!winner) throw error;
        return this.#write(key, input, ref, winner, "insert");
      }
    };
    return ref ? this.#writing.run(`${key.teamId}/ref/${toHex(ref)}`, store) : store();
  }

  async replace(key: TeamKey, id: string, input: DocumentInput): Promise<DocumentView> {
    refuseNotText(input);
    const ref = input.externalId === null ? null : await blindIndex(key, input.externalId);
    return this.#writing.run(`${key.teamId}/id/${id}`, async () => {
      const existing = await this.deps.storage.documents.get(key.teamId, id);
      if (!existing) throw new DomainError("not_found", `No document ${id}.`);
      try {
        return (await this.#write(key, input, ref, existing, "not_found")).document;
      } catch (error) {
        if (error instanceof UniqueExternalRefError) {
          throw new DomainError("conflict", "Another document of this team already holds that externalId.");
        }
        throw error;
      }
    });
  }

  async get(key: TeamKey, id: string): Promise<DocumentView & { content: string }> {
    const stored = await this.deps.storage.documents.getWithContent(key.teamId, id);
    if (!stored) throw new DomainError("not_found", `No document ${id}.`);
    const [view, content] = await Promise.all([
      this.#view(key, stored.row),
      openContent(key, id, stored.content),
    ]);
    return { ...view, content };
  }

  /**
   * A page, newest first. A row that does not open is left out and counted in `unreadable`, so one bad row
   * does not hide the rest, and the answer says it is there; the cursor still moves past it.
   */
  async list(
    key: TeamKey,
    limit: number,
    after: DocumentCursor | null,
  ): Promise<{ documents: DocumentView[]; unreadable: number; next: DocumentCursor | null }> {
    const { page, next } = pageOf(
      await this.deps.storage.documents.list(key.teamId, limit + 1, after),
      limit,
    );
    const { values, unreadable } = await openReadable(page, (row) => this.#view(key, row));
    return { documents: values, unreadable, next };
  }

  /**
   * Deletes the document holding `externalId`, found by its blind index, in the same queue as writes of that
   * externalId, so a delete and an upsert of one note source document never interleave. False when no
   * document holds it (or another delete got there first).
   */
  async deleteByExternalId(key: TeamKey, externalId: string): Promise<boolean> {
    const ref = await blindIndex(key, externalId);
    return this.#writing.run(`${key.teamId}/ref/${toHex(ref)}`, async () => {
      const row = await this.deps.storage.documents.findByExternalRef(key.teamId, ref);
      if (!row) return false;
      try {
        await this.delete(key, row.id);
        return true;
      } catch (error) {
        if (isDomainError(error, "not_found")) return false;
        throw error;
      }
    });
  }

  async delete(key: TeamKey, id: string): Promise<void> {
    const seq = await this.deps.storage.documents.delete(key.teamId, id, this.deps.clock.now().toISOString());
    if (seq === null) throw new DomainError("not_found", `No document ${id}.`);
    await this.deps.indexes.committed(key);
  }

  /**
   * Seals and stores a document: a new one when `existing` is null, else a replacement of `existing` at the
   * version read. A replacement that loses a race (another write or a delete committed since the read) is
   * retried on the current row, so concurrent writes apply one after another and versions only go up; when
   * the document is gone, `whenGone` says whether to store it anew (a POST) or answer 404 (a PUT).
   */
  async #write(
    key: TeamKey,
    input: DocumentInput,
    ref: Uint8Array | null,
    existing: DocumentRow | null,
    whenGone: "insert" | "not_found",
  ): Promise<{ document: DocumentView; created: boolean }> {
    const { storage, indexes, maxDocumentBytes } = this.deps;
    const contentBytes = utf8Length(input.content);
    if (contentBytes > maxDocumentBytes) {
      throw new DomainError(
        "payload_too_large",
        `Document content is ${contentBytes} bytes; the limit is ${maxDocumentBytes}.`,
      );
    }
    const chunker = this.deps.chunker ?? inlineChunker;
    const passages = await chunker({ title: input.title, content: input.content, format: input.format });
    const meta: DocumentMeta = {
      title: input.title,
      path: input.path,
      format: input.format,
      externalId: input.externalId,
      contentHash: await contentHashOf(input.content),
    };
    let base = existing;
    for (let attempt = 1; ; attempt++) {
      const sealed = await this.#seal(key, input, meta, ref, base, passages, contentBytes);
      const seq = await storage.documents.write(sealed, base?.version ?? null);
      if (seq !== null) {
        await indexes.committed(key);
        return { document: this.#viewOf(sealed.row, meta), created: base === null };
      }
      if (attempt >= MAX_WRITE_ATTEMPTS) {
        throw new DomainError(
          "conflict",
          "The document kept changing while this write was applied; send it again.",
        );
      }
      const current = base ? await storage.documents.get(key.teamId, base.id) : null;
      if (!current && whenGone === "not_found")
        throw new DomainError("not_found", `No document ${base?.id ?? ""}.`);
      base = current;
    }
  }

  async #seal(
    key: TeamKey,
    input: DocumentInput,
    meta: DocumentMeta,
    ref: Uint8Array | null,
    base: DocumentRow | null,
    passages: Passage[],
    contentBytes: number,
  ): Promise<DocumentWrite> {
    const id = base?.id ?? newId("d");
    const now = this.deps.clock.now().toISOString();
    const version = (base?.version ?? 0) + 1;
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
      sealed: await sealDocumentMeta(key, id, meta),
      externalRef: ref,
      version,
      chunkCount: passages.length,
      contentBytes,
      createdAt: base?.createdAt ?? now,
      updatedAt: now,
    };
    return { row, content: await sealContent(key, id, input.content), runs };
  }

  async #view(key: TeamKey, row: DocumentRow): Promise<DocumentView> {
    return this.#viewOf(row, await openDocumentMeta(key, row.id, row.sealed));
  }

  #viewOf(row: DocumentRow, meta: DocumentMeta): DocumentView {
    return {
      id: row.id,
      title: meta.title,
      path: meta.path,
      format: meta.format,
      ...(meta.externalId === null ? {} : { externalId: meta.externalId }),
      ...(meta.contentHash === undefined ? {} : { contentHash: meta.contentHash }),
      chunks: row.chunkCount,
      version: row.version,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}
