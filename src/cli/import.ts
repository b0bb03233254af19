// `memoria import`: list the team's documents once (which proves the URL and key before any work, and
// carries each document's contentHash, so an unchanged folder costs that listing alone), walk the folder,
// then send the files the team has not seen with this content in batches (POST /v1/documents/batch; one
// request a file against a server without it) and, with --prune, delete the `file:` documents whose files
// are gone, with progress on stderr and the summary on stdout. Sends come before deletes, so a renamed file
// is briefly in the corpus twice rather than missing.

import { basename, resolve } from "node:path";
import { mapLimit } from "../async/pool.js";
import { titleOf } from "../ingest/document-title.js";
import type { ImportOptions } from "./args.js";
import { ApiError, type BatchItemResult, type DocumentUpload, MemoriaClient } from "./client.js";
import {
  contentHash,
  documentsToDelete,
  externalIdOf,
  type FileDocument,
  fileDocuments,
  firstLook,
  pathOf,
  type RemoteDocument,
  relativePathOf,
} from "./plan.js";
import { createProgress, type ProgressStream, type Step } from "./progress.js";
import { type Counts, exitCodeOf, summaryLine } from "./summary.js";
import { type FoundFile, readFound, type SkippedLink, walkFolder } from "./walk.js";

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
interface Upload {
  what: string;
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
  remote: RemoteDocument | undefined,
  client: MemoriaClient,
  dryRun: boolean,
  folderName: string,
): Promise<Step | Upload> {
  const what = file.relativePath;
  let content: string;
  try {
    content = await readFound(file);
  } catch (error) {
    return { outcome: "failed", what, detail: `cannot read the file: ${describeError(error)}` };
  }
  const doc: FileDocument = {
    externalId: externalIdOf(what),
    // A generic title ("Changelog") is joined with the file's folder, or the folder the import runs on.
    title: titleOf(content, file.format, what.slice(what.lastIndexOf("/") + 1), {
      path: pathOf(what),
      folder: folderName,
    }),
    path: pathOf(what),
    format: file.format,
    contentHash: contentHash(content),
  };
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
  const { externalId, title, path, format } = doc;
  return { what, doc: { externalId, title, path, format, content } };
}

async function sendOne(upload: Upload, client: MemoriaClient): Promise<Step> {
  try {
    const result = await client.upsert(upload.doc);
    return { outcome: "sent", what: upload.what, detail: result === "created" ? "new" : "replaced" };
  } catch (error) {
    return { outcome: "failed", what: upload.what, detail: describeError(error) };
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
  #pending: Upload[] = [];
  #bytes = 0;
  #oneByOne = false;

  constructor(
    private readonly client: MemoriaClient,
    private readonly record: (step: Step) => void,
  ) {}

  async add(upload: Upload): Promise<void> {
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

  async #send(batch: Upload[]): Promise<void> {
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

async function deleteDocument(doc: RemoteDocument, client: MemoriaClient, dryRun: boolean): Promise<Step> {
  const what = relativePathOf(doc.externalId ?? "");
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

  const present = new Set(walked.files.map((file) => externalIdOf(file.relativePath)));
  const unreadable = walked.unreadable.map((folder) => folder.relativePath);
  const deletes = options.prune ? documentsToDelete(remote, present, unreadable) : [];

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
      remote.get(externalIdOf(file.relativePath)),
      client,
      options.dryRun,
      basename(resolve(options.folder)),
    );
    if ("outcome" in planned) record(planned);
    else await sender.add(planned);
  });
  await sender.finish();
  await mapLimit(deletes, CONCURRENCY, async (doc) => {
    record(await deleteDocument(doc, client, options.dryRun));
  });
  progress.finish();

  io.stdout.write(`${summaryLine(counts, options.dryRun)}\n`);
  return exitCodeOf(counts);
}
