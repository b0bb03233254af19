// A team's export: its documents as they were written and its entries, one line each, between a header and
// an end line that counts them. Rows are read a page at a time and each line is handed over before the next
// page is read, so memory stays flat however large the team is. Nothing but what the team wrote, and its
// name, is in it: no key, no source credential, no webhook secret.

import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import type { DocumentFormat } from "../ingest/formats.js";
import type { TeamKey } from "../seal/team-key.js";
import { type DocumentMeta, openContent, openDocumentMeta } from "../sealed-rows/documents.js";
import { openEntry } from "../sealed-rows/entries.js";
import { openTeam } from "../sealed-rows/teams.js";
import type { DocumentRow } from "../store/documents.js";
import type { Storage } from "../store/storage.js";

/** The export format's version, in its header; an import refuses any other. */
export const EXPORT_VERSION = 1;

export interface ExportHeader {
  memoria: "export";
  version: typeof EXPORT_VERSION;
  exportedAt: string;
  team: { name: string };
}

export interface ExportedDocument {
  id: string;
  externalId: string | null;
  title: string;
  path: string[];
  format: DocumentFormat;
  tags: string[];
  content: string;
  createdAt: string;
  updatedAt: string;
}

export interface ExportedEntry {
  id: string;
  title: string;
  impact: string | null;
  project: string | null;
  type: string | null;
  body: string | null;
  createdAt: string;
}

export interface ExportEnd {
  documents: number;
  entries: number;
}

export type ExportLine =
  | ExportHeader
  | { document: ExportedDocument }
  | { entry: ExportedEntry }
  | { end: ExportEnd };

/**
 * The tags an exported document carries: those its front matter gave it, as the document answers them (a
 * row written before tags were read has none). An import reads them again from the content's front matter,
 * so the line's list is what a reader of the export sees, not a second source of truth.
 */
export function exportedTags(meta: DocumentMeta): string[] {
  return meta.tags ?? [];
}

/**
 * Document rows listed per page (metadata only: ids, sizes, seals of a few hundred bytes). Their contents
 * are then read in groups of at most CONTENT_GROUP_BYTES, so a page of documents at the 5 MiB limit is never
 * in memory at once; a single larger document is read alone.
 */
const DOCUMENT_PAGE = 200;
const CONTENT_GROUP_BYTES = 4 * 1024 * 1024;
/** Entries are small (a title, a line of impact, a body of at most a few KB): a page is a few hundred KB. */
const ENTRY_PAGE = 500;

export interface ExportDeps {
  storage: Storage;
  clock: Clock;
}

export class ExportService {
  constructor(private readonly deps: ExportDeps) {}

  /**
   * The team's export, line by line. A row that does not open stops it with `unreadable` before its line:
   * an export never leaves a row out silently, and one that stops has no end line, so a restore refuses it.
   */
  async *lines(key: TeamKey): AsyncGenerator<ExportLine> {
    const { storage, clock } = this.deps;
    const team = await storage.teams.get(key.teamId);
    if (!team) throw new DomainError("not_found", `No team ${key.teamId}.`);
    const { name } = await openTeam(key, team.id, team.sealed);
    yield {
      memoria: "export",
      version: EXPORT_VERSION,
      exportedAt: clock.now().toISOString(),
      team: { name },
    };

    let documents = 0;
    for (let after = ""; ; ) {
      const page = await storage.documents.pageById(key.teamId, after, DOCUMENT_PAGE);
      for (const group of contentGroups(page)) {
        const stored = await storage.documents.getManyWithContent(
          key.teamId,
          group.map((row) => row.id),
        );
        const lines = await Promise.all(
          stored.map(async ({ row, content }) => {
            const [meta, text] = await Promise.all([
              openDocumentMeta(key, row.id, row.sealed),
              openContent(key, row.id, content),
            ]);
            return { document: documentLine(row, meta, text) };
          }),
        );
        for (const line of lines) yield line;
        documents += lines.length;
      }
      const last = page.at(-1);
      if (!last || page.length < DOCUMENT_PAGE) break;
      after = last.id;
    }

    let entries = 0;
    for (let after: { createdAt: string; id: string } | null = null; ; ) {
      const page = await storage.entries.page(key.teamId, after, ENTRY_PAGE);
      const lines = await Promise.all(
        page.map(async (row) => {
          const entry = await openEntry(key, row.id, row.sealed);
          const line: ExportedEntry = {
            id: row.id,
            title: entry.title,
            impact: entry.impact,
            project: entry.project,
            type: entry.type,
            body: entry.body,
            createdAt: row.createdAt,
          };
          return { entry: line };
        }),
      );
      for (const line of lines) yield line;
      entries += lines.length;
      const last = page.at(-1);
      if (!last || page.length < ENTRY_PAGE) break;
      after = { createdAt: last.createdAt, id: last.id };
    }

    yield { end: { documents, entries } };
  }
}

function documentLine(row: DocumentRow, meta: DocumentMeta, content: string): ExportedDocument {
  return {
    id: row.id,
    externalId: meta.externalId,
    title: meta.title,
    path: meta.path,
    format: meta.format,
    tags: exportedTags(meta),
    content,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** A page's rows in runs whose stored content adds up to at most CONTENT_GROUP_BYTES (one row at least). */
function contentGroups(rows: readonly DocumentRow[]): DocumentRow[][] {
  const groups: DocumentRow[][] = [];
  let group: DocumentRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (group.length > 0 && bytes + row.contentBytes > CONTENT_GROUP_BYTES) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(row);
    bytes += row.contentBytes;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
