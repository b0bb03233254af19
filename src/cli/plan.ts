// The sync plan: which files to send, which are unchanged, which documents to delete. The server is the
// record of what the team has seen — one listing maps each `file:` externalId to its document with its
// title, path, format and contentHash, which is all the comparison needs; only a document written before
// the server kept content hashes is read back to compare. See docs/decisions/0014-import.md.
//
// An import manages one source: its externalIds are `file:<source>/<relative path>`, so two folders with
// the same relative paths never replace or prune each other's documents. Before sources, ids were
// `file:<relative path>`; such a document is adopted (replaced in place, under its new id) by the next run
// that has a file at that relative path, and is otherwise left alone: it cannot be told which folder it
// came from, so no prune deletes it. See docs/decisions/0029-import-sources.md.

import { createHash } from "node:crypto";
import type { DocumentFormat } from "../ingest/formats.js";

export const EXTERNAL_ID_PREFIX = "file:";

/** What an import sends for one file, content aside, and the hash of that content. */
export interface FileDocument {
  externalId: string;
  /** Null for a PDF or DOCX: the server titles it from the file itself. */
  title: string | null;
  path: string[];
  format: DocumentFormat;
  contentHash: string;
}

/** A document as the listing shows it. */
export interface RemoteDocument {
  id: string;
  title: string;
  path: string[];
  format: DocumentFormat;
  externalId?: string;
  /** Absent for a document last written by a server before v1.1. */
  contentHash?: string;
}

/** The externalId prefix of one source's documents: `file:<source>/`. */
export function sourcePrefix(source: string): string {
  return `${EXTERNAL_ID_PREFIX}${source}/`;
}

export function externalIdOf(source: string, relativePath: string): string {
  return `${sourcePrefix(source)}${relativePath}`;
}

/** The id an import before sources gave the file at `relativePath`. */
export function legacyExternalIdOf(relativePath: string): string {
  return `${EXTERNAL_ID_PREFIX}${relativePath}`;
}

/** The relative path a `file:` externalId names, past its source when it is one of `source`'s. */
export function relativePathOf(source: string, externalId: string): string {
  const prefix = sourcePrefix(source);
  return externalId.startsWith(prefix)
    ? externalId.slice(prefix.length)
    : externalId.slice(EXTERNAL_ID_PREFIX.length);
}

/**
 * The document to adopt for the file at `relativePath`: the one an import before sources stored as
 * `file:<relative path>`, when this source holds none of its own for the file and that id is not itself one
 * of this source's (`file:notes/a.md` is notes' own a.md, whichever version wrote it).
 */
export function adoptable(
  remote: ReadonlyMap<string, RemoteDocument>,
  source: string,
  relativePath: string,
): RemoteDocument | undefined {
  if (remote.has(externalIdOf(source, relativePath))) return undefined;
  const legacyId = legacyExternalIdOf(relativePath);
  if (legacyId.startsWith(sourcePrefix(source))) return undefined;
  return remote.get(legacyId);
}

/** The folders between the root and the file. */
export function pathOf(relativePath: string): string[] {
  return relativePath.split("/").slice(0, -1);
}

/** The team's documents that came from a folder import, by externalId. */
export function fileDocuments(listing: readonly RemoteDocument[]): Map<string, RemoteDocument> {
  const byExternalId = new Map<string, RemoteDocument>();
  for (const doc of listing) {
    if (doc.externalId?.startsWith(EXTERNAL_ID_PREFIX)) byExternalId.set(doc.externalId, doc);
  }
  return byExternalId;
}

/**
 * What the listing alone decides: `new` (the team has no such document) and `changed` (its title, path,
 * format or contentHash differ) are sent; `unchanged` is not. `compare` is a document whose listing has no
 * contentHash (written before the server kept one): its content must be read back to know.
 */
export type FirstLook = "new" | "changed" | "unchanged" | "compare";

export function firstLook(local: FileDocument, remote: RemoteDocument | undefined): FirstLook {
  if (!remote) return "new";
  const same =
    (local.title === null || remote.title === local.title) &&
    remote.format === local.format &&
    remote.path.length === local.path.length &&
    remote.path.every((segment, i) => segment === local.path[i]);
  if (!same) return "changed";
  if (remote.contentHash === undefined) return "compare";
  return remote.contentHash === local.contentHash ? "unchanged" : "changed";
}

/** SHA-256 of the UTF-8 text, hex: the server's contentHash of the same text. */
export function contentHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** SHA-256 of a file's bytes, hex: the server's contentHash of a PDF or DOCX sent as it is. */
export function fileHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The source's documents whose files are gone: under `file:<source>/`, not among `present`, and not under
 * a folder the walk could not read (whose files may well still be there). Nothing outside the source —
 * another folder's documents, one an import before sources stored, one not from a folder at all — is ever
 * a candidate.
 */
export function documentsToDelete(
  remote: ReadonlyMap<string, RemoteDocument>,
  source: string,
  present: ReadonlySet<string>,
  unreadableFolders: readonly string[] = [],
): RemoteDocument[] {
  const protectedPrefixes = unreadableFolders.map((folder) => externalIdOf(source, `${folder}/`));
  const gone: RemoteDocument[] = [];
  for (const [externalId, doc] of remote) {
    if (!externalId.startsWith(sourcePrefix(source)) || present.has(externalId)) continue;
    if (protectedPrefixes.some((prefix) => externalId.startsWith(prefix))) continue;
    gone.push(doc);
  }
  return gone.sort((a, b) => ((a.externalId ?? "") < (b.externalId ?? "") ? -1 : 1));
}
