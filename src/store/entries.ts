// Rows of memory entries, each written or deleted in one batch with its change-log record.

import type { Client } from "@libsql/client";
import { type AuditRow, insertEventIf, insertEvents } from "./audit.js";
import type { RowReads } from "./binary-reads.js";
import { blob, num, text } from "./client.js";
import { appendChange } from "./documents.js";
import {
  type KeyColumns,
  type KeyRange,
  keyRangeStatement,
  type PageCursor,
  pageStartsStatement,
} from "./page.js";
import { DuplicateDeliveryError, isDuplicateDelivery, recordDelivery } from "./sources.js";

export interface EntryRow {
  teamId: string;
  id: string;
  createdAt: string;
  /** Blind index of the project, null when the entry has none. */
  projectRef: Uint8Array | null;
  /** Sealed project, type, title, impact and body. */
  sealed: Uint8Array;
}

/** Where a page of entries starts (see page.ts). */
export type EntryCursor = PageCursor;

const columns = "team_id, id, created_at, project_ref, sealed";
/** Entries in order: oldest first, ties by id (the (team, created_at, id) index). */
const entryKey: KeyColumns<EntryCursor> = {
  names: ["created_at", "id"],
  values: (key) => [key.createdAt, key.id],
};

function entryRow(row: Record<string, unknown>): EntryRow {
  return {
    teamId: text(row.team_id),
    id: text(row.id),
    createdAt: text(row.created_at),
    projectRef: row.project_ref == null ? null : blob(row.project_ref),
    sealed: blob(row.sealed),
  };
}

export class EntryRows {
  /** `reads`: the bulk reads a build or a restore makes (binary-reads.ts); the client's own by default. */
  constructor(
    private readonly client: Client,
    private readonly reads: RowReads = client,
  ) {}

  /**
   * Stores a new entry with its `entry.create` change. With `delivery`, the webhook
   * delivery id that brought it is recorded in the same transaction, so the entry and the record of its
   * delivery exist together or not at all (DuplicateDeliveryError when the id was recorded already).
   */
  async insert(row: EntryRow, delivery?: { ref: Uint8Array; at: string }, event?: AuditRow): Promise<void> {
    const statements = [
      ...(delivery ? [recordDelivery(row.teamId, delivery.ref, delivery.at)] : []),
      {
        sql: `INSERT INTO entries (${columns}) VALUES (?, ?, ?, ?, ?)`,
        args: [row.teamId, row.id, row.createdAt, row.projectRef, row.sealed],
      },
      appendChange(row.teamId, "entry.create", row.id, row.createdAt),
      ...(event ? [insertEvents([event])] : []),
    ];
    try {
      await this.client.batch(statements, "write");
    } catch (error) {
      if (isDuplicateDelivery(error)) throw new DuplicateDeliveryError("delivery already recorded");
      throw error;
    }
  }

  /**
   * Stores entries as they were exported (ids and times kept), each with its `entry.create` change, all in
   * one transaction. An id the team already holds fails the whole write (the caller leaves those out).
   */
  async insertMany(rows: readonly EntryRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.batch(
      rows.flatMap((row) => [
        {
          sql: `INSERT INTO entries (${columns}) VALUES (?, ?, ?, ?, ?)`,
          args: [row.teamId, row.id, row.createdAt, row.projectRef, row.sealed],
        },
        appendChange(row.teamId, "entry.create", row.id, row.createdAt),
      ]),
      "write",
    );
  }

  /** The entries of the team among `ids`; an id the team does not hold is absent. */
  async getMany(teamId: string, ids: readonly string[]): Promise<EntryRow[]> {
    if (ids.length === 0) return [];
    const rs = await this.client.execute({
      sql: `SELECT ${columns} FROM entries WHERE team_id = ? AND id IN (${ids.map(() => "?").join(", ")})`,
      args: [teamId, ...ids],
    });
    return rs.rows.map(entryRow);
  }

  /** Which of `ids` an entry of another team holds (through the key, per other team: see DocumentRows). */
  async heldByOtherTeams(teamId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rs = await this.client.execute({
      sql: `SELECT DISTINCT id FROM entries WHERE team_id IN (SELECT id FROM teams WHERE id <> ?)
            AND id IN (${ids.map(() => "?").join(", ")})`,
      args: [teamId, ...ids],
    });
    return new Set(rs.rows.map((row) => text(row.id)));
  }

  /** Deletes an entry and appends `entry.delete` (and `event`); false when there was nothing to delete. */
  async delete(teamId: string, id: string, at: string, event?: AuditRow): Promise<boolean> {
    const results = await this.client.batch(
      [
        { sql: "DELETE FROM entries WHERE team_id = ? AND id = ?", args: [teamId, id] },
        // changes() counts the delete just before: no record for a delete that found nothing.
        appendChange(teamId, "entry.delete", id, at, "changes() > 0"),
        // Likewise: the change record was appended, so the delete found its entry.
        ...(event ? [insertEventIf(event, "changes() > 0")] : []),
      ],
      "write",
    );
    return (results[0]?.rowsAffected ?? 0) > 0;
  }

  async get(teamId: string, id: string): Promise<EntryRow | null> {
    const rs = await this.client.execute({
      sql: `SELECT ${columns} FROM entries WHERE team_id = ? AND id = ?`,
      args: [teamId, id],
    });
    const row = rs.rows[0];
    return row ? entryRow(row) : null;
  }

  /**
   * Newest first: createdAt, then id, descending; `after` is the last row of the previous page. With
   * `projectRef`, only that project's entries.
   */
  async list(
    teamId: string,
    limit: number,
    after: EntryCursor | null,
    projectRef: Uint8Array | null,
  ): Promise<EntryRow[]> {
    const where = ["team_id = ?"];
    const args: (string | number | Uint8Array)[] = [teamId];
    if (projectRef) {
      where.push("project_ref = ?");
      args.push(projectRef);
    }
    if (after) {
      where.push("(created_at, id) < (?, ?)");
      args.push(after.createdAt, after.id);
    }
    const rs = await this.client.execute({
      sql: `SELECT ${columns} FROM entries WHERE ${where.join(" AND ")}
            ORDER BY created_at DESC, id DESC LIMIT ?`,
      args: [...args, limit],
    });
    return rs.rows.map(entryRow);
  }

  /**
   * Where each page of `pageRows` entries begins, oldest first (createdAt, then id: the entry index orders
   * ties cheaply when it is filled in that order): the cursor of the 1st entry, the (pageRows + 1)th, and so
   * on; one read of the (team, created_at, id) index, so a build asks for every page at once (as
   * DocumentRows.chunkRunPageStarts does for chunk runs).
   */
  async pageStarts(teamId: string, pageRows: number): Promise<EntryCursor[]> {
    const rs = await this.client.execute(pageStartsStatement("entries", entryKey, teamId, pageRows));
    return rs.rows.map((row) => ({ createdAt: text(row.created_at), id: text(row.id) }));
  }

  /**
   * At most `limit` of the team's entries, oldest first, from `range.from` (included, or not) up to
   * `range.before` (excluded; null for the end).
   */
  async between(teamId: string, range: KeyRange<EntryCursor>, limit: number): Promise<EntryRow[]> {
    const rs = await this.reads.execute(
      keyRangeStatement(columns, "entries", entryKey, teamId, range, limit),
    );
    return rs.rows.map(entryRow);
  }

  /** A page of the team's entries, oldest first, after `after` (an export walks them so). */
  async page(teamId: string, after: EntryCursor | null, limit: number): Promise<EntryRow[]> {
    const rs = await this.client.execute({
      sql: `SELECT ${columns} FROM entries WHERE team_id = ? AND (created_at, id) > (?, ?)
            ORDER BY created_at, id LIMIT ?`,
      args: [teamId, after?.createdAt ?? "", after?.id ?? "", limit],
    });
    return rs.rows.map(entryRow);
  }

  async count(teamId: string): Promise<number> {
    const rs = await this.client.execute({
      sql: "SELECT COUNT(*) AS n FROM entries WHERE team_id = ?",
      args: [teamId],
    });
    return num(rs.rows[0]?.n ?? 0);
  }
}
