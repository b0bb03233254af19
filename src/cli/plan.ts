// The sync plan: which files to send, which are unchanged, which documents to delete. The server is the
// record of what the team has seen — one listing maps each `file:` externalId to its document with its
// title, path, format and contentHash, which is all the comparison needs; only a document written before
// the server kept content hashes is read back to compare. See docs/decisions/0014-import.md.

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

export function externalIdOf(relativePath: string): string {
  return `${EXTERNAL_ID_PREFIX}${relativePath}`;
}

export function relativePathOf(externalId: string): string {
  return externalId.slice(EXTERNAL_ID_PREFIX.length);
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
 * The `file:` documents whose files are gone: not among `present`, and not under a folder the walk could
 * not read (whose files may well still be there). Nothing without the `file:` prefix is ever a candidate.
 */
export function documentsToDelete(
  remote: ReadonlyMap<string, RemoteDocument>,
  present: ReadonlySet<string>,
  unreadableFolders: readonly string[] = [],
): RemoteDocument[] {
  const protectedPrefixes = unreadableFolders.map((folder) => externalIdOf(`${folder}/`));
  const gone: RemoteDocument[] = [];
  for (const [externalId, doc] of remote) {
    if (!externalId.startsWith(EXTERNAL_ID_PREFIX) || present.has(externalId)) continue;
    if (protectedPrefixes.some((prefix) => externalId.startsWith(prefix))) continue;
    gone.push(doc);
  }
  return gone.sort((a, b) => ((a.externalId ?? "") < (b.externalId ?? "") ? -1 : 1));
}
