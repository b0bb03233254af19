// Restoring an export into a team: the lines are taken as they arrive and applied in batches, each batch in
// one storage transaction through the same write paths (and change log, and live index) as every write.
// Ids, externalIds and times are kept, so a second run of the same export finds everything unchanged. A
// line that is not valid stops the import after the complete lines before it were applied; so does a
// stream that ends without its end line (truncated).

import { KeyedSerialQueue } from "../async/serial-queue.js";
import { DomainError } from "../errors.js";
import { idOfBytes } from "../ids.js";
import { contentHashOf, describeNotText, notTextReason } from "../ingest/text.js";
import { toHex } from "../seal/bytes.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import { openContent, openDocumentMeta } from "../sealed-rows/documents.js";
import { type DocumentRow, UniqueExternalRefError } from "../store/documents.js";
import type { Storage } from "../store/storage.js";
import { utf8Length } from "../text/length.js";
import type { DocumentInput, DocumentService, RestoredDocument } from "./documents.js";
import type { EntryService } from "./entries.js";
import type { ExportEnd, ExportedDocument, ExportedEntry, ExportHeader } from "./export.js";

/** One line of an import, as the route parsed it, with its 1-based number in the stream. */
export type ImportLine =
  | { line: number; header: ExportHeader }
  | { line: number; document: ExportedDocument }
  | { line: number; entry: ExportedEntry }
  | { line: number; end: ExportEnd };

export interface ImportCounts {
  documents: { created: number; updated: number; unchanged: number; renamed: number };
  entries: { created: number; unchanged: number; renamed: number };
}

/**
 * Documents applied per storage transaction: the batch route's group (services/document-batch.ts, 500),
 * and at most its 8 MiB of content, so an import costs what sending the same documents in batches costs.
 */
const DOCUMENT_BATCH = 500;
const DOCUMENT_BATCH_BYTES = 8 * 1024 * 1024;
/** Entries applied per transaction: 500 rows of at most a few KB each. */
const ENTRY_BATCH = 500;

export interface ImportDeps {
  storage: Storage;
  documents: DocumentService;
  entries: EntryService;
  maxDocumentBytes: number;
}

/** A line that is not valid where it stands: 400, with its number. */
export function badLine(line: number, why: string): DomainError {
  return new DomainError("invalid_request", `Invalid import: line ${line}: ${why}`);
}

/**
 * The id a row gets when another team of the instance holds its exported id: derived from the exported id
 * under this team's key, so every run of the same import gives the same one (and a second run finds it).
 */
async function renamedId(key: TeamKey, prefix: string, id: string): Promise<string> {
  return idOfBytes(prefix, await blindIndex(key, `import-id:${id}`));
}

/** How far an import got, for its caller: whether it sent storage a write. */
export interface ImportProgress {
  wrote: boolean;
}

function emptyCounts(): ImportCounts {
  return {
    documents: { created: 0, updated: 0, unchanged: 0, renamed: 0 },
    entries: { created: 0, unchanged: 0, renamed: 0 },
  };
}

const sameArray = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

export class ImportService {
  /** One import per team at a time: two of the same export would race each other's inserts. */
  readonly #importing = new KeyedSerialQueue();

  constructor(private readonly deps: ImportDeps) {}

  /**
   * Applies the lines in order. Refuses (400, after applying every complete line before) a first line that
   * is not the header, a line after the end line, an end line whose counts are not the stream's, and a
   * stream that stops without its end line. Whatever the route's parsing throws for a line is thrown on
   * after the lines before it were applied. `progress` says, also when the import is refused part way, whether
   * it sent storage a write (the team may have changed then, though a write refused as a whole changes nothing).
   */
  async import(
    key: TeamKey,
    lines: AsyncIterable<ImportLine>,
    progress: ImportProgress = { wrote: false },
  ): Promise<ImportCounts> {
    return this.#importing.run(key.teamId, () => this.#import(key, lines, progress));
  }

  async #import(
    key: TeamKey,
    lines: AsyncIterable<ImportLine>,
    progress: ImportProgress,
  ): Promise<ImportCounts> {
    const counts = emptyCounts();
    let documents: { line: number; document: ExportedDocument }[] = [];
    let documentBytes = 0;
    let documentKeys = new Set<string>();
    let entries: { line: number; entry: ExportedEntry }[] = [];
    let entryIds = new Set<string>();
    const flushDocuments = async () => {
      const batch = documents;
      documents = [];
      documentBytes = 0;
      documentKeys = new Set();
      await this.#applyDocuments(key, batch, counts, progress);
    };
    const flushEntries = async () => {
      const batch = entries;
      entries = [];
      entryIds = new Set();
      await this.#applyEntries(key, batch, counts, progress);
    };

    let header = false;
    let end: { line: number; end: ExportEnd } | null = null;
    let last = 0;
    let seen = { documents: 0, entries: 0 };
    try {
      for await (const item of lines) {
        last = item.line;
        if (end) throw badLine(item.line, `comes after the end line (line ${end.line}).`);
        if ("header" in item) {
          if (header) throw badLine(item.line, "is a second header.");
          header = true;
          continue;
        }
        if (!header) throw badLine(item.line, 'must be the export\'s header, {"memoria": "export", …}.');
        if ("document" in item) {
          this.#checkDocument(item.line, item.document);
          const { id, externalId } = item.document;
          // A second line for the same document waits for the first to be stored, as in a batch.
          const keys = [`id:${id}`, ...(externalId === null ? [] : [`ref:${externalId}`])];
          if (keys.some((k) => documentKeys.has(k))) await flushDocuments();
          for (const k of keys) documentKeys.add(k);
          documents.push(item);
          documentBytes += utf8Length(item.document.content);
          seen = { ...seen, documents: seen.documents + 1 };
          if (documents.length >= DOCUMENT_BATCH || documentBytes >= DOCUMENT_BATCH_BYTES)
            await flushDocuments();
        } else if ("entry" in item) {
          if (entryIds.has(item.entry.id)) await flushEntries();
          entryIds.add(item.entry.id);
          entries.push(item);
          seen = { ...seen, entries: seen.entries + 1 };
          if (entries.length >= ENTRY_BATCH) await flushEntries();
        } else {
          end = item;
          if (item.end.documents !== seen.documents || item.end.entries !== seen.entries) {
            throw badLine(
              item.line,
              `the end line counts ${item.end.documents} documents and ${item.end.entries} entries; ` +
                `the stream held ${seen.documents} and ${seen.entries}.`,
            );
          }
        }
      }
    } catch (error) {
      // The complete lines before a refused one are applied, as they would be before a truncation; a failure
      // of storage itself is not retried here.
      if (error instanceof DomainError && error.code !== "unavailable" && error.code !== "internal") {
        await flushDocuments();
        await flushEntries();
      }
      throw error;
    }
    await flushDocuments();
    await flushEntries();
    if (!end) {
      throw new DomainError(
        "invalid_request",
        `Invalid import: the stream is truncated: it ended after line ${last} without its end line. ` +
          `The ${seen.documents} documents and ${seen.entries} entries of its complete lines were applied; ` +
          "send the whole export again (what is already stored counts as unchanged).",
      );
    }
    return counts;
  }

  /** What the route's schema cannot see: the content limit and content that is not text, by line. */
  #checkDocument(line: number, document: ExportedDocument): void {
    const bytes = utf8Length(document.content);
    if (bytes > this.deps.maxDocumentBytes) {
      throw new DomainError(
        "payload_too_large",
        `Invalid import: line ${line}: document content is ${bytes} bytes; the limit is ${this.deps.maxDocumentBytes}.`,
      );
    }
    const reason = notTextReason(document.content);
    if (reason) throw badLine(line, `document content: ${describeNotText(reason)}.`);
  }

  /**
   * The exported ids, each the team's own or, when another team of the instance holds it and this team
   * does not, the derived one; with how many were renamed.
   */
  async #resolveIds(
    key: TeamKey,
    ids: readonly string[],
    prefix: string,
    rows: {
      getMany(teamId: string, ids: readonly string[]): Promise<{ id: string }[]>;
      heldByOtherTeams(teamId: string, ids: readonly string[]): Promise<Set<string>>;
    },
  ): Promise<{ ids: string[]; renamed: number }> {
    const own = new Set((await rows.getMany(key.teamId, ids)).map((row) => row.id));
    const held = await rows.heldByOtherTeams(
      key.teamId,
      ids.filter((id) => !own.has(id)),
    );
    const resolved = await Promise.all(ids.map((id) => (held.has(id) ? renamedId(key, prefix, id) : id)));
    return { ids: resolved, renamed: ids.filter((id) => held.has(id)).length };
  }

  async #applyDocuments(
    key: TeamKey,
    batch: readonly { line: number; document: ExportedDocument }[],
    counts: ImportCounts,
    progress: ImportProgress,
  ): Promise<void> {
    if (batch.length === 0) return;
    const { storage } = this.deps;
    const { ids, renamed } = await this.#resolveIds(
      key,
      batch.map((b) => b.document.id),
      "d",
      storage.documents,
    );
    counts.documents.renamed += renamed;
    const byId = new Map((await storage.documents.getMany(key.teamId, ids)).map((row) => [row.id, row]));
    const refs = await Promise.all(
      batch.map((b) => (b.document.externalId === null ? null : blindIndex(key, b.document.externalId))),
    );
    const byRef = new Map<string, DocumentRow>();
    const givenRefs = refs.filter((ref): ref is Uint8Array => ref !== null);
    for (const row of await storage.documents.findByExternalRefs(key.teamId, givenRefs)) {
      if (row.externalRef) byRef.set(toHex(row.externalRef), row);
    }

    const writes: RestoredDocument[] = [];
    let unchanged = 0;
    for (const [i, { line, document }] of batch.entries()) {
      const id = ids[i] as string;
      const ref = refs[i] ?? null;
      const holder = ref ? byRef.get(toHex(ref)) : undefined;
      const own = byId.get(id);
      // The team's document of the same externalId is the same document under another id (made again by a
      // source since the export): it is replaced, keeping its id. One held by a document other than the one
      // this line names is a conflict the line cannot settle.
      if (own && holder && holder.id !== own.id) {
        throw new DomainError(
          "conflict",
          `Invalid import: line ${line}: document ${document.id}'s externalId is held by another document ` +
            `of this team (${holder.id}).`,
        );
      }
      const target = own ?? holder ?? null;
      if (target && (await this.#sameDocument(key, target, document))) {
        unchanged++;
        continue;
      }
      const input: DocumentInput = {
        title: document.title,
        content: document.content,
        format: document.format,
        path: document.path,
        externalId: document.externalId,
      };
      const identity = { id: target?.id ?? id, createdAt: document.createdAt, updatedAt: document.updatedAt };
      writes.push({ input, identity, replacing: target });
    }
    if (writes.length > 0) progress.wrote = true;
    try {
      await this.deps.documents.restoreMany(key, writes);
    } catch (error) {
      if (!(error instanceof UniqueExternalRefError)) throw error;
      throw new DomainError(
        "conflict",
        "An externalId of this import was taken by another document while it ran; run the import again.",
      );
    }
    counts.documents.unchanged += unchanged;
    for (const write of writes) {
      if (write.replacing) counts.documents.updated++;
      else counts.documents.created++;
    }
  }

  /** Whether the stored document already is the exported one: metadata, times and content. */
  async #sameDocument(key: TeamKey, row: DocumentRow, document: ExportedDocument): Promise<boolean> {
    if (row.createdAt !== document.createdAt || row.updatedAt !== document.updatedAt) return false;
    const meta = await openDocumentMeta(key, row.id, row.sealed);
    const sameMeta =
      meta.title === document.title &&
      meta.format === document.format &&
      meta.externalId === document.externalId &&
      sameArray(meta.path, document.path);
    if (!sameMeta) return false;
    if (meta.contentHash !== undefined) return meta.contentHash === (await contentHashOf(document.content));
    // Written before content hashes were kept: the content itself is compared.
    const stored = await this.deps.storage.documents.getWithContent(key.teamId, row.id);
    return stored !== null && (await openContent(key, row.id, stored.content)) === document.content;
  }

  async #applyEntries(
    key: TeamKey,
    batch: readonly { line: number; entry: ExportedEntry }[],
    counts: ImportCounts,
    progress: ImportProgress,
  ): Promise<void> {
    if (batch.length === 0) return;
    const { storage } = this.deps;
    const { ids, renamed } = await this.#resolveIds(
      key,
      batch.map((b) => b.entry.id),
      "e",
      storage.entries,
    );
    counts.entries.renamed += renamed;
    // Entries are never edited: one the team holds under that id is the same entry.
    const held = new Set((await storage.entries.getMany(key.teamId, ids)).map((row) => row.id));
    const fresh = batch.flatMap(({ entry }, i) =>
      held.has(ids[i] as string) ? [] : [{ ...entry, id: ids[i] as string }],
    );
    if (fresh.length > 0) progress.wrote = true;
    await this.deps.entries.restoreMany(key, fresh);
    counts.entries.unchanged += batch.length - fresh.length;
    counts.entries.created += fresh.length;
  }
}
