// Rows of the audit trail (migration 009): appended, read newest first a page at a time, never changed.

import type { Client, InStatement, InValue } from "@libsql/client";
import { blob, text } from "./client.js";

export interface AuditRow {
  teamId: string;
  id: string;
  at: string;
  sealed: Uint8Array;
}

/** Where a page of the trail resumes: the last event of the page before, by time then id. */
export interface AuditPosition {
  at: string;
  id: string;
}

/**
 * Events a statement inserts at most: 4 values each keeps a statement far below SQLite's 32,766 bound on
 * values, and a batch route's 1,000 documents stay a handful of statements in one transaction.
 */
const EVENTS_PER_INSERT = 500;

/**
 * Appends events in a statement of their own, or of a change's transaction. An event sent again with the same
 * id (a retry whose first answer was lost) is ignored, so no retry doubles an event; so is an event of a team
 * deleted since (one held while storage was away), which no key could open.
 */
export function insertEvents(rows: readonly AuditRow[]): InStatement {
  return {
    sql: `INSERT OR IGNORE INTO audit_events (team_id, id, at, sealed)
          SELECT e.column1, e.column2, e.column3, e.column4
          FROM (VALUES ${rows.map(() => "(?, ?, ?, ?)").join(", ")}) AS e
          WHERE e.column1 IN (SELECT id FROM teams)`,
    args: rows.flatMap((row) => [row.teamId, row.id, row.at, row.sealed]),
  };
}

/**
 * An event in its change's transaction, appended only where `condition` holds when it runs (the change
 * applied: its row is the one written, or the statement before changed a row), so a write that lost its
 * race records nothing.
 */
export function insertEventIf(row: AuditRow, condition: string, args: readonly InValue[] = []): InStatement {
  return {
    sql: `INSERT OR IGNORE INTO audit_events (team_id, id, at, sealed) SELECT ?, ?, ?, ? WHERE ${condition}`,
    args: [row.teamId, row.id, row.at, row.sealed, ...args],
  };
}

export class AuditRows {
  constructor(private readonly client: Client) {}

  /**
   * Appends events, all or none: one statement when they fit in one (over remote storage a transaction costs
   * round trips a lone statement does not), else one transaction.
   */
  async append(rows: readonly AuditRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (rows.length <= EVENTS_PER_INSERT) {
      await this.client.execute(insertEvents(rows));
      return;
    }
    const statements: InStatement[] = [];
    for (let i = 0; i < rows.length; i += EVENTS_PER_INSERT) {
      statements.push(insertEvents(rows.slice(i, i + EVENTS_PER_INSERT)));
    }
    await this.client.batch(statements, "write");
  }

  /** Up to `limit` events of a team, newest first, after `from` when given (exclusive). */
  async newestFirst(teamId: string, limit: number, from: AuditPosition | null): Promise<AuditRow[]> {
    const rs = await this.client.execute(
      from
        ? {
            sql: `SELECT id, at, sealed FROM audit_events WHERE team_id = ? AND (at, id) < (?, ?)
                  ORDER BY at DESC, id DESC LIMIT ?`,
            args: [teamId, from.at, from.id, limit],
          }
        : {
            sql: "SELECT id, at, sealed FROM audit_events WHERE team_id = ? ORDER BY at DESC, id DESC LIMIT ?",
            args: [teamId, limit],
          },
    );
    return rs.rows.map((row) => ({ teamId, id: text(row.id), at: text(row.at), sealed: blob(row.sealed) }));
  }
}
