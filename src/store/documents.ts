// Rows of documents and their chunks, and the change-log record each write appends. A document and all of
// its chunks are written in one batch (one transaction) with its change record, so a reader sees the old
// version or the new one, never a mix, and the change log never misses a write.

import type { Client, InStatement, InValue } from "@libsql/client";
import { type AuditRow, insertEventIf, insertEvents } from "./audit.js";
import type { RowReads } from "./binary-reads.js";
import { blob, num, text } from "./client.js";
import {
  type KeyColumns,
  type KeyRange,
  keyRangeStatement,
  type PageCursor,
  pageStartsStatement,
} from "./page.js";

export interface DocumentRow {
  teamId: string;
  id: string;
  /** Sealed metadata: title, path, format, external id. */
  sealed: Uint8Array;
  externalRef: Uint8Array | null;
  version: number;
  chunkCount: number;
  contentBytes: number;
  createdAt: string;
  updatedAt: string;
}

/** A run of consecutive chunks of one document, sealed as one value. */
export interface ChunkRunRow {
  documentId: string;
  firstOrdinal: number;
  count: number;
  /** The document version the run belongs to. */
  version: number;
  /** Sealed headings and texts. */
  sealed: Uint8Array;
}

/** Where a chunk run sits in a team's (document, ordinal) order. */
export interface ChunkRunKey {
  documentId: string;
  firstOrdinal: number;
}

/** What writeMany did: which writes it applied, and the team's latest seq around them (null: no writes). */
export interface WrittenMany {
  applied: boolean[];
  before: number | null;
  after: number | null;
}

export interface DocumentWrite {
  row: DocumentRow;
  content: Uint8Array;
  runs: ChunkRunRow[];
  /** Who wrote it (the audit trail), stored in the write's own transaction when the write applies. */
  event?: AuditRow;
}

/** Where a page of documents starts (see page.ts). */
export type DocumentCursor = PageCursor;

const documentColumns =
  "team_id, id, sealed, external_ref, version, chunk_count, content_bytes, created_at, updated_at";

function documentRow(row: Record<string, unknown>): DocumentRow {
  return {
    teamId: text(row.team_id),
    id: text(row.id),
    sealed: blob(row.sealed),
    externalRef: row.external_ref == null ? null : blob(row.external_ref),
    version: num(row.version),
    chunkCount: num(row.chunk_count),
    contentBytes: num(row.content_bytes),
    createdAt: text(row.created_at),
    updatedAt: text(row.updated_at),
  };
}

const runColumns = "document_id, first_ordinal, chunk_count, version, sealed";
/** Chunk runs in order: by document, then by the run's first ordinal (the chunks table's key). */
const chunkRunKey: KeyColumns<ChunkRunKey> = {
  names: ["document_id", "first_ordinal"],
  values: (key) => [key.documentId, key.firstOrdinal],
};

function runRow(row: Record<string, unknown>): ChunkRunRow {
  return {
    documentId: text(row.document_id),
    firstOrdinal: num(row.first_ordinal),
    count: num(row.chunk_count),
    version: num(row.version),
    sealed: blob(row.sealed),
  };
}

/**
 * Appends a change record with the team's next seq. `guard` makes it conditional: the SELECT has no FROM and
 * no aggregate of its own, so a false guard yields no row (an aggregate without GROUP BY yields one even when
 * its WHERE matches nothing, and sqld, so Turso, refuses HAVING without GROUP BY). The seq is a scalar
 * subquery that is a bare MAX, which SQLite answers from the end of the (team_id, seq) key; the earlier form,
 * MAX inside COALESCE in a FROM subquery, visited every change of the team, so each append cost O(changes):
 * measured at 20k changes, 540 µs an append against 5 µs now (the 20k-document bench spent most of its
 * storage time there).
 */
export function appendChange(
  teamId: string,
  kind: string,
  entityId: string,
  at: string,
  guard = "1",
): { sql: string; args: InValue[] } {
  return {
    sql: `INSERT INTO changes (team_id, seq, kind, entity_id, at)
          SELECT ?, COALESCE((SELECT MAX(seq) FROM changes WHERE team_id = ?), 0) + 1, ?, ?, ? WHERE ${guard}`,
    args: [teamId, teamId, kind, entityId, at],
  };
}

export class UniqueExternalRefError extends Error {
  override readonly name = "UniqueExternalRefError";
}

function isUniqueViolation(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return /UNIQUE constraint failed: documents\.team_id, documents\.external_ref/.test(message);
}

/**
 * The statements of one document write; the first one's row count says whether it was applied. Every later
 * statement is conditional on this write's own metadata being the row's: its seal has a random IV, so no
 * other write can match it, and a replace that lost a race touches nothing.
 */
function writeStatements(write: DocumentWrite, replacing: number | null): InStatement[] {
  const { row } = write;
  const ours = "EXISTS (SELECT 1 FROM documents WHERE team_id = ? AND id = ? AND sealed = ?)";
  const oursArgs = [row.teamId, row.id, row.sealed];
  const statements: InStatement[] = [];
  if (replacing === null) {
    statements.push(insertDocuments([write]));
  } else {
    statements.push({
      // created_at is written too: a replace keeps the stored one, and an import sets the exported one.
      sql: `UPDATE documents SET sealed = ?, content = ?, external_ref = ?, version = ?, chunk_count = ?,
              content_bytes = ?, created_at = ?, updated_at = ? WHERE team_id = ? AND id = ? AND version = ?`,
      args: [
        row.sealed,
        write.content,
        row.externalRef,
        row.version,
        row.chunkCount,
        row.contentBytes,
        row.createdAt,
        row.updatedAt,
        row.teamId,
        row.id,
        replacing,
      ],
    });
    statements.push({
      sql: `DELETE FROM chunks WHERE team_id = ? AND document_id = ? AND ${ours}`,
      args: [row.teamId, row.id, ...oursArgs],
    });
  }
  for (const run of write.runs) {
    statements.push({
      sql: `INSERT INTO chunks (team_id, ${runColumns}) SELECT ?, ?, ?, ?, ?, ? WHERE ${ours}`,
      args: [row.teamId, row.id, run.firstOrdinal, run.count, run.version, run.sealed, ...oursArgs],
    });
  }
  const change = appendChange(row.teamId, "document.put", row.id, row.updatedAt, ours);
  statements.push({ sql: change.sql, args: [...change.args, ...oursArgs] });
  if (write.event) statements.push(insertEventIf(write.event, ours, oursArgs));
  return statements;
}

/**
 * Rows one multi-row insert carries: 99 × at most 10 parameters (a document row's) stays under 999, the
 * smallest limit of parameters a SQLite build may have (libSQL's is 32,766).
 */
const ROWS_PER_INSERT = 99;

function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function insertDocuments(writes: readonly DocumentWrite[]): InStatement {
  return {
    sql: `INSERT INTO documents (${documentColumns}, content) VALUES ${writes.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
    args: writes.flatMap(({ row, content }) => [
      row.teamId,
      row.id,
      row.sealed,
      row.externalRef,
      row.version,
      row.chunkCount,
      row.contentBytes,
      row.createdAt,
      row.updatedAt,
      content,
    ]),
  };
}

function insertRuns(runs: readonly { teamId: string; run: ChunkRunRow }[]): InStatement {
  return {
    sql: `INSERT INTO chunks (team_id, ${runColumns}) VALUES ${runs.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
    args: runs.flatMap(({ teamId, run }) => [
      teamId,
      run.documentId,
      run.firstOrdinal,
      run.count,
      run.version,
      run.sealed,
    ]),
  };
}

function latestSeq(teamId: string): InStatement {
  return { sql: "SELECT COALESCE(MAX(seq), 0) AS seq FROM changes WHERE team_id = ?", args: [teamId] };
}

/**
 * One `document.put` change for each of `writes`, with the team's next seqs in their order: the MAX is an
 * uncorrelated subquery, so SQLite computes it once, before the statement inserts its first row.
 */
function appendPuts(teamId: string, writes: readonly DocumentWrite[]): InStatement {
  return {
    sql: `INSERT INTO changes (team_id, seq, kind, entity_id, at)
          SELECT ?, COALESCE((SELECT MAX(seq) FROM changes WHERE team_id = ?), 0) + put.column1, 'document.put',
            put.column2, put.column3
          FROM (VALUES ${writes.map(() => "(?, ?, ?)").join(", ")}) AS put`,
    args: [teamId, teamId, ...writes.flatMap(({ row }, i) => [i + 1, row.id, row.updatedAt])],
  };
}

export class DocumentRows {
  /** `reads`: the bulk reads a build or a restore makes (binary-reads.ts); the client's own by default. */
  constructor(
    private readonly client: Client,
    private readonly reads: RowReads = client,
  ) {}

  /**
   * Inserts a new document (`replacing` null) or replaces the stored one if it is still at version
   * `replacing`, with all of its chunks and a `document.put` change, in one transaction. Returns the team's
   * latest seq before and after it (as writeMany does: `after` is this write's change), or null when the
   * replace found the document gone or at another version (nothing is changed then).
   */
  async write(
    write: DocumentWrite,
    replacing: number | null,
  ): Promise<{ before: number; after: number } | null> {
    const statements = [latestSeq(write.row.teamId), ...writeStatements(write, replacing)];
    statements.push(latestSeq(write.row.teamId));
    const results = await this.#batch(statements);
    if ((results[1]?.rowsAffected ?? 0) === 0) return null;
    return { before: num(results[0]?.rows[0]?.seq), after: num(results.at(-1)?.rows[0]?.seq) };
  }

  /**
   * Several documents of one team written as `write` writes one, all in one transaction: each replacement
   * keeps its own condition, so one that lost its race changes nothing of its own and leaves the others be.
   * Says, per write, whether it was applied, and the team's latest seq before and after: every change in
   * (before, after] is one of the applied writes' (the transaction holds the write lock from its first read),
   * so an index level at `before` can take the writes as they are instead of re-reading them. An insert whose
   * externalId another document took since it was read fails the whole transaction (UniqueExternalRefError)
   * and nothing of it is stored.
   */
  async writeMany(
    writes: readonly { write: DocumentWrite; replacing: number | null }[],
  ): Promise<WrittenMany> {
    const teamId = writes[0]?.write.row.teamId;
    if (teamId === undefined) return { applied: [], before: null, after: null };
    const statements: InStatement[] = [latestSeq(teamId)];
    // New documents need no condition (an insert stores its row or fails the transaction), so their rows,
    // chunks and change records go in multi-row inserts: ~4 statements a document become ~3 a hundred
    // (measured on 5,000 documents of 1.5 KB in process: rows and chunks alone took the engine's time in the
    // batches from ~750 ms to ~560 ms, the whole from 3.0 s to 2.3 s).
    const inserts = writes.filter((w) => w.replacing === null).map((w) => w.write);
    for (const part of slices(inserts, ROWS_PER_INSERT)) statements.push(insertDocuments(part));
    const runs = inserts.flatMap((w) => w.runs.map((run) => ({ teamId: w.row.teamId, run })));
    for (const part of slices(runs, ROWS_PER_INSERT)) statements.push(insertRuns(part));
    for (const part of slices(inserts, ROWS_PER_INSERT)) statements.push(appendPuts(teamId, part));
    // An insert's event needs no condition either: it is stored with its document or not at all.
    const events = inserts.flatMap((w) => (w.event ? [w.event] : []));
    for (const part of slices(events, ROWS_PER_INSERT)) statements.push(insertEvents(part));
    const firsts = new Map<DocumentWrite, number>();
    for (const { write, replacing } of writes) {
      if (replacing === null) continue;
      firsts.set(write, statements.length);
      statements.push(...writeStatements(write, replacing));
    }
    statements.push(latestSeq(teamId));
    const results = await this.#batch(statements);
    return {
      applied: writes.map(({ write }) => {
        const first = firsts.get(write);
        return first === undefined || (results[first]?.rowsAffected ?? 0) > 0;
      }),
      before: num(results[0]?.rows[0]?.seq),
      after: num(results.at(-1)?.rows[0]?.seq),
    };
  }

  async #batch(statements: InStatement[]): Promise<Awaited<ReturnType<Client["batch"]>>> {
    try {
      return await this.client.batch(statements, "write");
    } catch (error) {
      if (isUniqueViolation(error)) throw new UniqueExternalRefError("external id already in use");
      throw error;
    }
  }

  /** A document's row and sealed content read together, so they always belong to the same version. */
  async getWithContent(
    teamId: string,
    id: string,
  ): Promise<{ row: DocumentRow; content: Uint8Array } | null> {
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns}, content FROM documents WHERE team_id = ? AND id = ?`,
      args: [teamId, id],
    });
    const row = rs.rows[0];
    return row ? { row: documentRow(row), content: blob(row.content) } : null;
  }

  /**
   * Deletes a document and its chunks and appends `document.delete` (and `event`, who deleted it); null when
   * there was nothing to delete.
   */
  async delete(teamId: string, id: string, at: string, event?: AuditRow): Promise<number | null> {
    const results = await this.client.batch(
      [
        { sql: "DELETE FROM documents WHERE team_id = ? AND id = ?", args: [teamId, id] },
        // changes() is the row count of the statement just before: no record for a delete that found nothing.
        appendChange(teamId, "document.delete", id, at, "changes() > 0"),
        // The same again: the change record was appended, so the delete found its document.
        ...(event ? [insertEventIf(event, "changes() > 0")] : []),
        { sql: "DELETE FROM chunks WHERE team_id = ? AND document_id = ?", args: [teamId, id] },
        { sql: "SELECT COALESCE(MAX(seq), 0) AS seq FROM changes WHERE team_id = ?", args: [teamId] },
      ],
      "write",
    );
    if ((results[0]?.rowsAffected ?? 0) === 0) return null;
    return num(results.at(-1)?.rows[0]?.seq);
  }

  async get(teamId: string, id: string): Promise<DocumentRow | null> {
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns} FROM documents WHERE team_id = ? AND id = ?`,
      args: [teamId, id],
    });
    const row = rs.rows[0];
    return row ? documentRow(row) : null;
  }

  async findByExternalRef(teamId: string, ref: Uint8Array): Promise<DocumentRow | null> {
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns} FROM documents WHERE team_id = ? AND external_ref = ?`,
      args: [teamId, ref],
    });
    const row = rs.rows[0];
    return row ? documentRow(row) : null;
  }

  /** The documents holding any of `refs`, in one query; a ref no document holds is simply absent. */
  async findByExternalRefs(teamId: string, refs: readonly Uint8Array[]): Promise<DocumentRow[]> {
    if (refs.length === 0) return [];
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns} FROM documents
            WHERE team_id = ? AND external_ref IN (${refs.map(() => "?").join(", ")})`,
      args: [teamId, ...refs],
    });
    return rs.rows.map(documentRow);
  }

  /** Newest first: createdAt, then id, descending; `after` is the last row of the previous page. */
  async list(teamId: string, limit: number, after: DocumentCursor | null): Promise<DocumentRow[]> {
    const rs = after
      ? await this.client.execute({
          sql: `SELECT ${documentColumns} FROM documents WHERE team_id = ? AND (created_at, id) < (?, ?)
                ORDER BY created_at DESC, id DESC LIMIT ?`,
          args: [teamId, after.createdAt, after.id, limit],
        })
      : await this.client.execute({
          sql: `SELECT ${documentColumns} FROM documents WHERE team_id = ?
                ORDER BY created_at DESC, id DESC LIMIT ?`,
          args: [teamId, limit],
        });
    return rs.rows.map(documentRow);
  }

  /**
   * The `limit` most recently written documents (updatedAt, then id, descending). No index holds updated_at:
   * SQLite reads the team's rows through documents_newest and keeps the top `limit` as it goes, so this costs
   * a pass over the team's rows; the page asks it only on its start page, for a handful.
   */
  async recentlyChanged(teamId: string, limit: number): Promise<DocumentRow[]> {
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns} FROM documents WHERE team_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?`,
      args: [teamId, limit],
    });
    return rs.rows.map(documentRow);
  }

  async chunkRuns(teamId: string, documentId: string): Promise<ChunkRunRow[]> {
    const rs = await this.client.execute({
      sql: `SELECT ${runColumns} FROM chunks WHERE team_id = ? AND document_id = ? ORDER BY first_ordinal`,
      args: [teamId, documentId],
    });
    return rs.rows.map(runRow);
  }

  /**
   * Where each page of `pageRows` chunk runs begins, in (document, ordinal) order: the key of the 1st run,
   * the (pageRows + 1)th, and so on. One read of the key's index, so a build can ask for every page at once
   * instead of learning where the next page begins from the end of the one before.
   */
  async chunkRunPageStarts(teamId: string, pageRows: number): Promise<ChunkRunKey[]> {
    const rs = await this.client.execute(pageStartsStatement("chunks", chunkRunKey, teamId, pageRows));
    return rs.rows.map((row) => ({
      documentId: text(row.document_id),
      firstOrdinal: num(row.first_ordinal),
    }));
  }

  /**
   * At most `limit` of the team's chunk runs in order, from `range.from` (included, or not) up to
   * `range.before` (excluded; null for the end).
   */
  async chunkRunsBetween(
    teamId: string,
    range: KeyRange<ChunkRunKey>,
    limit: number,
  ): Promise<ChunkRunRow[]> {
    const rs = await this.reads.execute(
      keyRangeStatement(runColumns, "chunks", chunkRunKey, teamId, range, limit),
    );
    return rs.rows.map(runRow);
  }

  /** The documents of the team among `ids`, in one query; an id the team does not hold is simply absent. */
  async getMany(teamId: string, ids: readonly string[]): Promise<DocumentRow[]> {
    if (ids.length === 0) return [];
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns} FROM documents WHERE team_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
      args: [teamId, ...ids],
    });
    return rs.rows.map(documentRow);
  }

  /**
   * Which of `ids` a document of another team holds. Teams are few and the key is (team_id, id), so the
   * lookup goes through the key per other team instead of scanning every team's documents for an id.
   */
  async heldByOtherTeams(teamId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rs = await this.client.execute({
      sql: `SELECT DISTINCT id FROM documents WHERE team_id IN (SELECT id FROM teams WHERE id <> ?)
            AND id IN (${ids.map(() => "?").join(", ")})`,
      args: [teamId, ...ids],
    });
    return new Set(rs.rows.map((row) => text(row.id)));
  }

  /** A page of the team's documents in id order, without content, for an export; `afterId` "" is the start. */
  async pageById(teamId: string, afterId: string, limit: number): Promise<DocumentRow[]> {
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns} FROM documents WHERE team_id = ? AND id > ? ORDER BY id LIMIT ?`,
      args: [teamId, afterId, limit],
    });
    return rs.rows.map(documentRow);
  }

  /**
   * The rows and sealed contents of `ids`, read together so each content belongs to its row's version. A
   * document deleted since its id was listed is absent.
   */
  async getManyWithContent(
    teamId: string,
    ids: readonly string[],
  ): Promise<{ row: DocumentRow; content: Uint8Array }[]> {
    if (ids.length === 0) return [];
    const rs = await this.client.execute({
      sql: `SELECT ${documentColumns}, content FROM documents
            WHERE team_id = ? AND id IN (${ids.map(() => "?").join(", ")}) ORDER BY id`,
      args: [teamId, ...ids],
    });
    return rs.rows.map((row) => ({ row: documentRow(row), content: blob(row.content) }));
  }

  async counts(teamId: string): Promise<{ documents: number; chunks: number }> {
    const rs = await this.client.execute({
      sql: "SELECT COUNT(*) AS documents, COALESCE(SUM(chunk_count), 0) AS chunks FROM documents WHERE team_id = ?",
      args: [teamId],
    });
    const row = rs.rows[0];
    return { documents: num(row?.documents ?? 0), chunks: num(row?.chunks ?? 0) };
  }
}
