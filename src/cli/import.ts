// `memoria import`: list the team's documents once (which proves the URL and key before any work, and
// carries each document's contentHash, so an unchanged folder costs that listing alone), walk the folder,
// then send the files the team has not seen with this content in batches (POST /v1/documents/batch; one
// request a file against a server without it) and, with --prune, delete the source's documents whose files
// are gone, with progress on stderr and the summary on stdout. A document an import before sources stored
// (`file:<relative path>`) is adopted with a PUT to its id, so it keeps its id and is not duplicated. Sends come before deletes, so a renamed file
// is briefly in the corpus twice rather than missing.

import { basename, resolve } from "node:path";
import { mapLimit } from "../async/pool.js";
import { titleOf } from "../ingest/document-title.js";
import { loadFrontMatterParsers } from "../ingest/front-matter-parsers.js";
import type { ImportOptions } from "./args.js";
import {
  ApiError,
  type BatchItemResult,
  type DocumentUpload,
  type FileUpload,
  MemoriaClient,
} from "./client.js";
import {
  adoptable,
  contentHash,
  documentsToDelete,
  externalIdOf,
  type FileDocument,
  fileDocuments,
  fileHash,
  firstLook,
  pathOf,
  type RemoteDocument,
  relativePathOf,
} from "./plan.js";
import { createProgress, type ProgressStream, type Step } from "./progress.js";
import { type Counts, exitCodeOf, summaryLine } from "./summary.js";
import { type FoundFile, readFound, readFoundBytes, type SkippedLink, walkFolder } from "./walk.js";

export interface ImportIO {
  stdout: { write(text: string): unknown };
  stderr: ProgressStream;
  fetch?: typeof fetch;
}

/** Files handled at once: enough to hide round trips, few enough to keep memory and the server calm. */
const CONCURRENCY = 4;

/**
 * Documents one batch request carries at most: 300 files take 3 requests, and a batch stays well under the
 * server's 500, so one refused or slow request costs little.
 */
const BATCH_DOCUMENTS = 100;
/** JSON one batch request carries at most, so a folder of large files is not one huge request in memory. */
const BATCH_BYTES = 8 * 1024 * 1024;

/** A file to send, after its first look found it new or changed. */
/** A text file's document, sent in a batch. */
interface DocumentSend {
  what: string;
  doc: DocumentUpload;
}
/** A PDF or DOCX, sent alone as a file. */
interface FileSend {
  what: string;
  file: FileUpload;
}
type Upload = DocumentSend | FileSend;

/** A file whose document an import before sources stored: replaced in place (PUT), under its new id. */
interface Adoption {
  what: string;
  id: string;
  doc: DocumentUpload;
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    return error.status === 0 ? error.message : `${error.status} ${error.code}: ${error.message}`;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}

function skipNote(skip: SkippedLink): string {
  switch (skip.reason) {
    case "outside":
      return `skipped ${skip.relativePath} (a link to outside the folder; not followed)`;
    case "broken":
      return `skipped ${skip.relativePath} (a link to nothing)`;
    case "duplicate":
      return `skipped ${skip.relativePath} (the same ${skip.sameAs === "" ? "folder as the folder itself" : `as ${skip.sameAs}`})`;
  }
}

/** What to do with a file: its step when it needs no send (unchanged, unreadable, a dry run), else its upload. */
async function planFile(
  file: FoundFile,
  source: string,
  remote: RemoteDocument | undefined,
  legacy: RemoteDocument | undefined,
  client: MemoriaClient,
  dryRun: boolean,
  folderName: string,
): Promise<Step | Upload | Adoption> {
  const what = file.relativePath;
  if (file.format === "pdf" || file.format === "docx") return planBinaryFile(file, source, remote, dryRun);
  let content: string;
  try {
    content = await readFound(file);
  } catch (error) {
    return { outcome: "failed", what, detail: `cannot read the file: ${describeError(error)}` };
  }
  // A generic title ("Changelog") is joined with the file's folder, or the folder the import runs on.
  const title = titleOf(
    content,
    file.format,
    what.slice(what.lastIndexOf("/") + 1),
    await loadFrontMatterParsers(),
    {
      path: pathOf(what),
      folder: folderName,
    },
  );
  const doc: FileDocument = {
    externalId: externalIdOf(source, what),
    title,
    path: pathOf(what),
    format: file.format,
    contentHash: contentHash(content),
  };
  if (legacy) {
    // Its id must change whatever its content, so it is sent even when unchanged.
    if (dryRun) return { outcome: "would send", what, detail: `adopt ${legacy.externalId}` };
    const { externalId, path, format } = doc;
    return { what, id: legacy.id, doc: { externalId, title, path, format, content } };
  }
  let why: string = firstLook(doc, remote);
  if (why === "unchanged") return { outcome: "unchanged", what };
  if (why === "compare" && remote) {
    // Only a document the server stored before it kept content hashes: read it back to compare.
    try {
      if (contentHash(await client.getContent(remote.id)) === doc.contentHash) {
        return { outcome: "unchanged", what };
      }
      why = "changed";
    } catch (error) {
      // Unproven to be unchanged, so it is sent: an upsert is safe to repeat, and replacing a stored copy
      // that no longer opens heals it.
      why = `not compared: ${describeError(error)}`;
    }
  }
  if (dryRun) return { outcome: "would send", what, detail: why };
  const { externalId, path, format } = doc;
  return { what, doc: { externalId, title, path, format, content } };
}

/**
 * A PDF or DOCX: sent as it is, one request a file (the server extracts its text and title), and unchanged
 * when the team holds it with the same file hash, path and format.
 */
async function planBinaryFile(
  file: FoundFile,
  source: string,
  remote: RemoteDocument | undefined,
  dryRun: boolean,
): Promise<Step | Upload> {
  const what = file.relativePath;
  let bytes: Uint8Array;
  try {
    bytes = await readFoundBytes(file);
  } catch (error) {
    return { outcome: "failed", what, detail: `cannot read the file: ${describeError(error)}` };
  }
  const doc: FileDocument = {
    // No legacy id to adopt: PDF and DOCX files came with source-scoped ids.
    externalId: externalIdOf(source, what),
    title: null,
    path: pathOf(what),
    format: file.format,
    contentHash: fileHash(bytes),
  };
  const why = firstLook(doc, remote);
  if (why === "unchanged") return { outcome: "unchanged", what };
  if (dryRun) return { outcome: "would send", what, detail: why === "compare" ? "changed" : why };
  const name = what.slice(what.lastIndexOf("/") + 1);
  return { what, file: { name, bytes, path: doc.path, externalId: doc.externalId } };
}

async function sendOne(upload: Upload, client: MemoriaClient): Promise<Step> {
  try {
    const result = "file" in upload ? await client.uploadFile(upload.file) : await client.upsert(upload.doc);
    return { outcome: "sent", what: upload.what, detail: result === "created" ? "new" : "replaced" };
  } catch (error) {
    return { outcome: "failed", what: upload.what, detail: describeError(error) };
  }
}

async function adoptOne(adoption: Adoption, client: MemoriaClient): Promise<Step> {
  try {
    await client.replace(adoption.id, adoption.doc);
    return { outcome: "sent", what: adoption.what, detail: "adopted from an import before sources" };
  } catch (error) {
    return { outcome: "failed", what: adoption.what, detail: `adopt: ${describeError(error)}` };
  }
}

function stepOf(upload: Upload, result: BatchItemResult): Step {
  if ("stored" in result) {
    return { outcome: "sent", what: upload.what, detail: result.stored === "created" ? "new" : "replaced" };
  }
  return { outcome: "failed", what: upload.what, detail: `${result.code}: ${result.message}` };
}

/**
 * Collects uploads into batches of BATCH_DOCUMENTS or BATCH_BYTES of JSON, whichever comes first, and sends
 * each when full (the callers keep planning files meanwhile), recording a step per file from the batch's
 * results. A server without the batch route gets one request a file from then on; a batch it refuses as too
 * large is sent one file a request, so only the files too large alone fail.
 */
class BatchSender {
  #pending: DocumentSend[] = [];
  #bytes = 0;
  #oneByOne = false;

  constructor(
    private readonly client: MemoriaClient,
    private readonly record: (step: Step) => void,
  ) {}

  async add(upload: Upload): Promise<void> {
    // A file goes alone: its request is the file as it is, not a JSON document a batch could carry.
    if ("file" in upload) {
      this.record(await sendOne(upload, this.client));
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(upload.doc), "utf8");
    if (this.#pending.length > 0 && this.#bytes + bytes > BATCH_BYTES) await this.#flush();
    this.#pending.push(upload);
    this.#bytes += bytes;
    if (this.#pending.length >= BATCH_DOCUMENTS) await this.#flush();
  }

  finish(): Promise<void> {
    return this.#flush();
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    this.#bytes = 0;
    if (batch.length > 0) await this.#send(batch);
  }

  async #send(batch: DocumentSend[]): Promise<void> {
    if (!this.#oneByOne) {
      try {
        const results = await this.client.upsertMany(batch.map((upload) => upload.doc));
        if (results) {
          for (const [i, upload] of batch.entries())
            this.record(stepOf(upload, results[i] as BatchItemResult));
          return;
        }
        this.#oneByOne = true;
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 413)) {
          for (const { what } of batch)
            this.record({ outcome: "failed", what, detail: describeError(error) });
          return;
        }
      }
    }
    await mapLimit(batch, CONCURRENCY, async (upload) => {
      this.record(await sendOne(upload, this.client));
    });
  }
}

async function deleteDocument(
  doc: RemoteDocument,
  source: string,
  client: MemoriaClient,
  dryRun: boolean,
): Promise<Step> {
  const what = relativePathOf(source, doc.externalId ?? "");
  if (dryRun) return { outcome: "would delete", what, detail: "file gone" };
  try {
    await client.delete(doc.id);
  } catch (error) {
    // Deleted by someone else since the listing: gone is what was wanted.
    if (!(error instanceof ApiError && error.status === 404)) {
      return { outcome: "failed", what, detail: `delete: ${describeError(error)}` };
    }
  }
  return { outcome: "deleted", what, detail: "file gone" };
}

export async function runImport(options: ImportOptions, io: ImportIO): Promise<0 | 1> {
  const client = new MemoriaClient({
    baseUrl: options.url,
    key: options.key,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  let remote: Map<string, RemoteDocument>;
  try {
    remote = fileDocuments(await client.listDocuments());
  } catch (error) {
    io.stderr.write(`memoria import: could not list the team's documents: ${describeError(error)}\n`);
    return 1;
  }

  const progress = createProgress(io.stderr);
  const walked = await walkFolder(options.folder);
  for (const skip of walked.skipped) progress.note(skipNote(skip));
  for (const folder of walked.unreadable) {
    progress.note(
      `failed ${folder.relativePath}/ (cannot list the folder: ${folder.error}; its documents are kept)`,
    );
  }

  const { source } = options;
  const present = new Set(walked.files.map((file) => externalIdOf(source, file.relativePath)));
  const unreadable = walked.unreadable.map((folder) => folder.relativePath);
  const deletes = options.prune ? documentsToDelete(remote, source, present, unreadable) : [];

  const counts: Counts = { sent: 0, unchanged: 0, deleted: 0, failed: walked.unreadable.length };
  const record = (step: Step) => {
    if (step.outcome === "sent" || step.outcome === "would send") counts.sent++;
    else if (step.outcome === "deleted" || step.outcome === "would delete") counts.deleted++;
    else if (step.outcome === "unchanged") counts.unchanged++;
    else counts.failed++;
    progress.step(step);
  };

  progress.start(walked.files.length + deletes.length);
  // Every file is tried whatever happens to the others: planFile, the sender and deleteDocument answer a
  // failure as a "failed" step instead of throwing, so mapLimit's stop-at-first-failure never comes into play.
  const sender = new BatchSender(client, record);
  await mapLimit(walked.files, CONCURRENCY, async (file) => {
    const planned = await planFile(
      file,
      source,
      remote.get(externalIdOf(source, file.relativePath)),
      adoptable(remote, source, file.relativePath),
      client,
      options.dryRun,
      basename(resolve(options.folder)),
    );
    if ("outcome" in planned) record(planned);
    else if ("id" in planned) record(await adoptOne(planned, client));
    else await sender.add(planned);
  });
  await sender.finish();
  await mapLimit(deletes, CONCURRENCY, async (doc) => {
    record(await deleteDocument(doc, source, client, options.dryRun));
  });
  progress.finish();

  io.stdout.write(`${summaryLine(counts, options.dryRun)}\n`);
  return exitCodeOf(counts);
}
