// Rows of page sessions: found by the hash of the session's secret, the team key in them sealed (see
// migration 006). Expiry is the caller's: it passes the times a row must be newer than.

import type { Client } from "@libsql/client";
import { blob, text } from "./client.js";

export interface SessionRow {
  teamId: string;
  sealed: Uint8Array;
  createdAt: string;
  seenAt: string;
}

export class SessionRows {
  constructor(private readonly client: Client) {}

  async insert(idHash: string, row: SessionRow): Promise<void> {
    await this.client.execute({
      sql: "INSERT INTO page_sessions (id_hash, team_id, sealed, created_at, seen_at) VALUES (?, ?, ?, ?, ?)",
      args: [idHash, row.teamId, row.sealed, row.createdAt, row.seenAt],
    });
  }

  async get(idHash: string): Promise<SessionRow | null> {
    const rs = await this.client.execute({
      sql: "SELECT team_id, sealed, created_at, seen_at FROM page_sessions WHERE id_hash = ?",
      args: [idHash],
    });
    const row = rs.rows[0];
    if (!row) return null;
    return {
      teamId: text(row.team_id),
      sealed: blob(row.sealed),
      createdAt: text(row.created_at),
      seenAt: text(row.seen_at),
    };
  }

  async touch(idHash: string, seenAt: string): Promise<void> {
    await this.client.execute({
      sql: "UPDATE page_sessions SET seen_at = ? WHERE id_hash = ?",
      args: [seenAt, idHash],
    });
  }

  async delete(idHash: string): Promise<void> {
    await this.client.execute({ sql: "DELETE FROM page_sessions WHERE id_hash = ?", args: [idHash] });
  }

  /** Forgets sessions idle since before `seenBefore`: they can no longer sign anyone in. */
  async deleteIdle(seenBefore: string): Promise<number> {
    const rs = await this.client.execute({
      sql: "DELETE FROM page_sessions WHERE seen_at < ?",
      args: [seenBefore],
    });
    return rs.rowsAffected;
  }
}
