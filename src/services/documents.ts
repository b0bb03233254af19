// The documents write pipeline and reads: chunk, seal, store in one transaction with the change record,
// then bring the team's live index level before the write is acknowledged.

import { mapLimit } from "../async/pool.js";
import { KeyedSerialQueue } from "../async/serial-queue.js";
import { type Actor, events } from "../audit.js";
import type { Clock } from "../clock.js";
import { DomainError, isDomainError } from "../errors.js";
import { inlineExtractor } from "../extract/extract.js";
import type { Extracted, Extractor, FileFormat } from "../extract/extracted.js";
import { ExtractionError } from "../extract/extraction-error.js";
import { newId } from "../ids.js";
import type { IndexedDocument } from "../index/passages/passage-index.js";
import type { Passage } from "../ingest/chunk.js";
import { type Chunker, inlineChunker } from "../ingest/chunker.js";
import { fileNameTitle, headingTitleIn } from "../ingest/document-title.js";
import type { DocumentFormat } from "../ingest/formats.js";
import { readFrontMatter } from "../ingest/front-matter.js";
import { loadFrontMatterParsers } from "../ingest/front-matter-parsers.js";
import { contentHashOf, describeNotText, notTextReason } from "../ingest/text.js";
import type { LiveIndexes, WrittenDocuments } from "../live/indexes.js";
import { toHex } from "../seal/bytes.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import { type EventStamp, eventStamp, sealAuditEvents, sealStampedEvent } from "../sealed-rows/audit.js";
import {
  chunkId,
  chunkRuns,
  type DocumentMeta,
  openContent,
  openDocumentMeta,
  sealChunkRun,
  sealContent,
  sealDocumentMeta,
} from "../sealed-rows/documents.js";
import { openReadable } from "../sealed-rows/readable.js";
import {
  type DocumentCursor,
  type DocumentRow,
  type DocumentWrite,
  UniqueExternalRefError,
} from "../store/documents.js";
import { pageOf } from "../store/page.js";
import type { Storage } from "../store/storage.js";
import { utf8Length } from "../text/length.js";
import { type BatchOutcome, DocumentBatchWriter, PREPARE_CONCURRENCY } from "./document-batch.js";

export interface DocumentInput {
  /** The title the request names; null: the content's own (front matter, first heading), else the file's. */
  title: string | null;
  /** The uploaded file's name, when the document came as a file: its title of last resort. */
  fileName?: string;
  content: string;
  format: DocumentFormat;
  path: string[];
  externalId: string | null;
  /**
   * The SHA-256 to keep as the document's contentHash, when it is not that of `content`: a PDF's or DOCX's is
   * the file's as sent, so `memoria import` can tell an unchanged file without extracting it.
   */
  contentHash?: string;
}

export interface DocumentView {
  id: string;
  title: string;
  path: string[];
  format: DocumentFormat;
  /** Its front matter's tags, aliases, keywords and categories; [] for none (and for rows written before). */
  tags: string[];
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

/** A document ready to store: its passages and metadata, which no retry has to compute again. */
export interface Prepared {
  passages: Passage[];
  meta: DocumentMeta;
  contentBytes: number;
}

/** A document sealed for storage, and the same document as the index holds it (plaintext, memory only). */
export interface Sealed {
  write: DocumentWrite;
  indexed: IndexedDocument;
}

/** A document stored by one transaction, and what that transaction wrote, for the live index. */
export interface Stored {
  document: DocumentView;
  created: boolean;
  written: WrittenDocuments;
}

/**
 * The document's title in the documented order (docs/ingest/markdown.md): the request's, its front matter's, its first real heading (a
 * generic one joined with its folder), the file name; a request that names none and whose content gives
 * none is refused before anything is stored.
 */
function documentTitle(input: DocumentInput, frontTitle: string | null): string {
  if (input.title !== null) return input.title;
  if (frontTitle !== null) return frontTitle;
  const context = { path: input.path, ...(input.fileName === undefined ? {} : { fileName: input.fileName }) };
  const title =
    headingTitleIn(input.content, input.format, context) ||
    (input.fileName === undefined ? "" : fileNameTitle(input.fileName, context));
  if (title === "") {
    throw new DomainError(
      "invalid_request",
      "Invalid request: title: send one (`title`, or ?title= for a raw body), or give the content a front " +
        "matter title or a heading.",
    );
  }
  return title;
}

/** Who a restored document is: its exported id and times, kept instead of made anew. */
export interface DocumentIdentity {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** A document to restore: as written, who it was, and the stored row it replaces (null: a new one). */
export interface RestoredDocument {
  input: DocumentInput;
  identity: DocumentIdentity;
  replacing: DocumentRow | null;
}

export interface DocumentsDeps {
  storage: Storage;
  indexes: LiveIndexes;
  clock: Clock;
  maxDocumentBytes: number;
  /** Turns a document into passages; inline unless the runtime gives a worker pool. */
  chunker?: Chunker;
  /** Reads a PDF's or DOCX's text; inline unless the runtime gives a worker (runtime/extract-pool.ts). */
  extractor?: Extractor;
}

/** A PDF or DOCX as uploaded: its bytes, and the titles to fall back on. */
export interface FileInput {
  format: FileFormat;
  bytes: Uint8Array;
  /** The request's own title (`?title=`); before the file's metadata. */
  title: string | null;
  /** The file's name without its extension: the title of last resort, when there is one. */
  fileName: string | null;
  path: string[];
  externalId: string | null;
}

export class DocumentService {
  /**
   * Writes of one document (by id or by external id) in this instance run one at a time, so they never race
   * each other's version check; writes from other instances still can, and are retried (see #store).
   */
  readonly #writing = new KeyedSerialQueue();

  readonly #batch: DocumentBatchWriter;

  constructor(private readonly deps: DocumentsDeps) {
    this.#batch = new DocumentBatchWriter({
      storage: deps.storage,
      indexes: deps.indexes,
      clock: deps.clock,
      writing: this.#writing,
      refKey: (key, ref) => this.#refKey(key, ref),
      refuse: (input) => {
        refuseNotText(input);
        this.#refuseTooLarge(utf8Length(input.content));
      },
      prepare: (input) => this.#prepare(input),
      seal: (key, input, prepared, ref, base, stamp) =>
        this.#seal(key, input, prepared, ref, base, undefined, stamp),
      upsert: (key, input, prepared, ref, existing, stamp) =>
        this.#upsert(key, input, prepared, ref, existing, stamp),
      viewOf: (row, meta) => this.#viewOf(row, meta),
    });
  }

  /**
   * Stores a new document, or replaces the one holding the same externalId (then `created` is false).
   */
  async create(
    key: TeamKey,
    input: DocumentInput,
    by?: Actor,
  ): Promise<{ document: DocumentView; created: boolean }> {
    refuseNotText(input);
    const ref = input.externalId === null ? null : await blindIndex(key, input.externalId);
    const store = async () => {
      const prepared = await this.#prepare(input);
      const existing = ref ? await this.deps.storage.documents.findByExternalRef(key.teamId, ref) : null;
      const stamp = by ? eventStamp(by, this.deps.clock.now().toISOString()) : undefined;
      const { written, ...stored } = await this.#upsert(key, input, prepared, ref, existing, stamp);
      await this.deps.indexes.committedDocuments(key, written);
      return stored;
    };
    return ref ? this.#writing.run(this.#refKey(key, ref), store) : store();
  }

  /**
   * Stores many documents as `create` stores each, in request order, and answers an outcome per item: an
   * item that is not a valid document (given here as its error) or whose content is refused fails alone.
   * The others are chunked and sealed, then written in as few transactions as GROUP_DOCUMENTS and
   * GROUP_CONTENT_BYTES allow (a document with its chunks and change record always in one), and the index
   * takes each transaction's documents as they are once it commits (see document-batch.ts). Two items
   * with the same externalId are applied one after the other: the later replaces what the earlier stored
   * (it goes to the next transaction), as if sent one by one. A failure of storage itself fails the call.
   */
  async createMany(
    key: TeamKey,
    items: readonly (DocumentInput | DomainError)[],
    by?: Actor,
  ): Promise<BatchOutcome[]> {
    return this.#batch.write(key, items, by);
  }

  /**
   * Stores a PDF or DOCX as its extracted text (markdown), titled by the request, else the file's title
   * metadata or first heading, else its name. The file itself is not kept: only the text is sealed and
   * stored, like any document's. Bytes that are not the format are 415; a file that gives no text is 422.
   */
  async createFromFile(
    key: TeamKey,
    file: FileInput,
    by?: Actor,
  ): Promise<{ document: DocumentView; created: boolean }> {
    const extracted = await this.#extract(file);
    const title = file.title ?? extracted.title ?? file.fileName;
    if (title === null) {
      throw new DomainError(
        "invalid_request",
        "Invalid request: title: the file has no title of its own; send ?title= (or upload it as a named file).",
      );
    }
    return this.create(
      key,
      {
        // Titles are at most 512 characters, as a request's are (routes/schemas.ts nameText).
        title: [...title].slice(0, 512).join(""),
        content: extracted.content,
        format: file.format,
        path: file.path,
        externalId: file.externalId,
        contentHash: toHex(
          new Uint8Array(await crypto.subtle.digest("SHA-256", file.bytes as Uint8Array<ArrayBuffer>)),
        ),
      },
      by,
    );
  }

  async #extract(file: FileInput): Promise<Extracted> {
    const extractor = this.deps.extractor ?? inlineExtractor;
    try {
      return await extractor({ format: file.format, bytes: file.bytes });
    } catch (error) {
      if (!(error instanceof ExtractionError)) throw error;
      throw new DomainError(
        error.problem === "not_format" ? "unsupported_media_type" : "unprocessable",
        error.message,
      );
    }
  }

  /**
   * Stores restored documents (an import) with the ids and times they were exported with, in one storage
   * transaction, and gives them to the live index as a batch gives its own. The caller has read the rows
   * they replace; a replacement that lost a race to another write since then is a conflict (nothing of the
   * call is kept out of the index, and the import, idempotent, can be run again).
   */
  async restoreMany(key: TeamKey, items: readonly RestoredDocument[]): Promise<void> {
    if (items.length === 0) return;
    const sealed = await mapLimit(items, PREPARE_CONCURRENCY, async (item) => {
      refuseNotText(item.input);
      const prepared = await this.#prepare(item.input);
      const ref = item.input.externalId === null ? null : await blindIndex(key, item.input.externalId);
      return this.#seal(key, item.input, prepared, ref, item.replacing, item.identity);
    });
    const written = await this.deps.storage.documents.writeMany(
      sealed.map((s, i) => ({ write: s.write, replacing: items[i]?.replacing?.version ?? null })),
    );
    if (written.before !== null && written.after !== null) {
      await this.deps.indexes.committedDocuments(key, {
        before: written.before,
        after: written.after,
        documents: sealed.filter((_, i) => written.applied[i]).map((s) => s.indexed),
      });
    }
    if (written.applied.some((applied) => !applied)) {
      throw new DomainError("conflict", "A document changed while it was imported; run the import again.");
    }
  }

  async replace(key: TeamKey, id: string, input: DocumentInput, by?: Actor): Promise<DocumentView> {
    refuseNotText(input);
    const ref = input.externalId === null ? null : await blindIndex(key, input.externalId);
    return this.#writing.run(`${key.teamId}/id/${id}`, async () => {
      const existing = await this.deps.storage.documents.get(key.teamId, id);
      if (!existing) throw new DomainError("not_found", `No document ${id}.`);
      try {
        const prepared = await this.#prepare(input);
        const { document, written } = await this.#store(
          key,
          input,
          prepared,
          ref,
          existing,
          "not_found",
          by ? eventStamp(by, this.deps.clock.now().toISOString()) : undefined,
        );
        await this.deps.indexes.committedDocuments(key, written);
        return document;
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

  /** The `limit` most recently written documents, newest first; rows that do not open are counted, not shown. */
  async recentlyChanged(
    key: TeamKey,
    limit: number,
  ): Promise<{ documents: DocumentView[]; unreadable: number }> {
    const rows = await this.deps.storage.documents.recentlyChanged(key.teamId, limit);
    return openReadable(rows, (row) => this.#view(key, row)).then(({ values, unreadable }) => ({
      documents: values,
      unreadable,
    }));
  }

  /**
   * Deletes the document holding `externalId`, found by its blind index, in the same queue as writes of that
   * externalId, so a delete and an upsert of one note source document never interleave. False when no
   * document holds it (or another delete got there first).
   */
  async deleteByExternalId(key: TeamKey, externalId: string): Promise<boolean> {
    const ref = await blindIndex(key, externalId);
    return this.#writing.run(this.#refKey(key, ref), async () => {
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

  /** Deletes a document; `by`, who deleted it, is recorded in the delete's own transaction. */
  async delete(key: TeamKey, id: string, by?: Actor): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    const event = by ? (await sealAuditEvents(key, by, [events.documentDeleted(id)], at))[0] : undefined;
    const seq = await this.deps.storage.documents.delete(key.teamId, id, at, event);
    if (seq === null) throw new DomainError("not_found", `No document ${id}.`);
    await this.deps.indexes.committed(key);
  }

  /** The queue key of writes of one externalId. */
  #refKey(key: TeamKey, ref: Uint8Array): string {
    return `${key.teamId}/ref/${toHex(ref)}`;
  }

  #refuseTooLarge(contentBytes: number): void {
    const { maxDocumentBytes } = this.deps;
    if (contentBytes > maxDocumentBytes) {
      throw new DomainError(
        "payload_too_large",
        `Document content is ${contentBytes} bytes; the limit is ${maxDocumentBytes}.`,
      );
    }
  }

  /** Refuses content over the limit, then chunks the document and builds its metadata. */
  async #prepare(input: DocumentInput): Promise<Prepared> {
    const contentBytes = utf8Length(input.content);
    this.#refuseTooLarge(contentBytes);
    const chunker = this.deps.chunker ?? inlineChunker;
    // The hash is a WebCrypto call on the thread pool: it runs while the document is chunked.
    // Front matter is parsed here only, once, for the title and tags (bounded: front-matter.ts); the chunker
    // only finds where it ends.
    const front =
      input.format === "markdown" ? readFrontMatter(input.content, await loadFrontMatterParsers()) : null;
    const title = documentTitle(input, front?.title ?? null);
    const [passages, contentHash] = await Promise.all([
      chunker({ title, content: input.content, format: input.format }),
      input.contentHash ?? contentHashOf(input.content),
    ]);
    const meta: DocumentMeta = {
      title,
      path: input.path,
      format: input.format,
      externalId: input.externalId,
      contentHash,
      tags: front?.tags ?? [],
    };
    return { passages, meta, contentBytes };
  }

  /**
   * Stores a new document or replaces `existing`; when another instance stored the same externalId between
   * the read and the insert, replaces that one.
   */
  async #upsert(
    key: TeamKey,
    input: DocumentInput,
    prepared: Prepared,
    ref: Uint8Array | null,
    existing: DocumentRow | null,
    stamp: EventStamp | undefined,
  ): Promise<Stored> {
    try {
      return await this.#store(key, input, prepared, ref, existing, "insert", stamp);
    } catch (error) {
      if (!(error instanceof UniqueExternalRefError) || !ref) throw error;
      const winner = await this.deps.storage.documents.findByExternalRef(key.teamId, ref);
      if (!winner) throw error;
      return this.#store(key, input, prepared, ref, winner, "insert", stamp);
    }
  }

  /**
   * Seals and stores a document: a new one when `existing` is null, else a replacement of `existing` at the
   * version read. A replacement that loses a race (another write or a delete committed since the read) is
   * retried on the current row, so concurrent writes apply one after another and versions only go up; when
   * the document is gone, `whenGone` says whether to store it anew (a POST) or answer 404 (a PUT). The
   * caller brings the index level once its writes are done, with what the write says it wrote.
   */
  async #store(
    key: TeamKey,
    input: DocumentInput,
    prepared: Prepared,
    ref: Uint8Array | null,
    existing: DocumentRow | null,
    whenGone: "insert" | "not_found",
    stamp: EventStamp | undefined,
  ): Promise<Stored> {
    const { storage } = this.deps;
    let base = existing;
    for (let attempt = 1; ; attempt++) {
      const { write, indexed } = await this.#seal(key, input, prepared, ref, base, undefined, stamp);
      const seqs = await storage.documents.write(write, base?.version ?? null);
      if (seqs !== null) {
        return {
          document: this.#viewOf(write.row, prepared.meta),
          created: base === null,
          written: { ...seqs, documents: [indexed] },
        };
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
    { passages, meta, contentBytes }: Prepared,
    ref: Uint8Array | null,
    base: DocumentRow | null,
    identity?: DocumentIdentity,
    stamp?: EventStamp,
  ): Promise<Sealed> {
    const id = identity?.id ?? base?.id ?? newId("d");
    const now = this.deps.clock.now().toISOString();
    // Who wrote it, stored in the write's transaction; sealed while the document's seals run.
    const event = stamp
      ? sealStampedEvent(key, stamp, events.documentStored(id, base === null))
      : Promise.resolve(undefined);
    const version = (base?.version ?? 0) + 1;
    const tags = meta.tags ?? [];
    const indexed: IndexedDocument = { id, title: meta.title, path: input.path, tags, passages: [] };
    // The seals are independent WebCrypto calls, each a round trip to the thread pool: made at once, a
    // document costs one round trip, not three, and the request thread has other work while they run.
    const [runs, sealedMeta, content] = await Promise.all([
      Promise.all(
        chunkRuns(passages).map(async (run) => {
          const firstOrdinal = run[0]?.ordinal ?? 0;
          const bodies = run.map((p) => ({ heading: p.heading, text: p.text }));
          // As a re-read of this run gives its chunks to the index (src/live/load-passages.ts readDocument).
          for (const [j, body] of bodies.entries()) {
            const ordinal = firstOrdinal + j;
            indexed.passages.push({ chunkId: chunkId(id, version, ordinal), ordinal, ...body });
          }
          return {
            documentId: id,
            firstOrdinal,
            count: run.length,
            version,
            sealed: await sealChunkRun(
              key,
              { documentId: id, version, firstOrdinal },
              { title: meta.title, path: input.path, ...(tags.length > 0 ? { tags } : {}), chunks: bodies },
            ),
          };
        }),
      ),
      sealDocumentMeta(key, id, meta),
      sealContent(key, id, input.content),
    ]);
    const row: DocumentRow = {
      teamId: key.teamId,
      id,
      sealed: sealedMeta,
      externalRef: ref,
      version,
      chunkCount: passages.length,
      contentBytes,
      createdAt: identity?.createdAt ?? base?.createdAt ?? now,
      updatedAt: identity?.updatedAt ?? now,
    };
    const recorded = await event;
    return { write: { row, content, runs, ...(recorded ? { event: recorded } : {}) }, indexed };
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
      tags: meta.tags ?? [],
      ...(meta.externalId === null ? {} : { externalId: meta.externalId }),
      ...(meta.contentHash === undefined ? {} : { contentHash: meta.contentHash }),
      chunks: row.chunkCount,
      version: row.version,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}
