// Rows of idempotency keys. A key and its request arrive here as keyed hashes, the answer sealed; a row is
// claimed (pending, no answer) before its request is handled, so two requests with one key cannot both run.

import type { Client } from "@libsql/client";
import { blob, text } from "./client.js";

export interface IdempotencyRow {
  requestRef: Uint8Array;
  /** When the key was claimed (ISO-8601); also the claim's token for completing or releasing it. */
  createdAt: string;
  /** The sealed answer; null while the claiming request is being answered. */
  sealed: Uint8Array | null;
}

export class IdempotencyRows {
  constructor(private readonly client: Client) {}

  /**
   * Claims the key for a request: inserts a pending row, or takes over one that is past its window
   * (`expiredBefore`) or a pending one abandoned before `staleBefore` (its process died mid-request). True
   * when this call holds the claim; false when a live row is there (read it with get).
   */
  async claim(
    teamId: string,
    keyRef: Uint8Array,
    requestRef: Uint8Array,
    at: string,
    reclaim: { expiredBefore: string; staleBefore: string },
  ): Promise<boolean> {
    const rs = await this.client.execute({
      sql: `INSERT INTO idempotency_keys (team_id, key_ref, request_ref, created_at, sealed) VALUES (?, ?, ?, ?, NULL)
            ON CONFLICT (team_id, key_ref) DO UPDATE
              SET request_ref = excluded.request_ref, created_at = excluded.created_at, sealed = NULL
              WHERE idempotency_keys.created_at < ?
                 OR (idempotency_keys.sealed IS NULL AND idempotency_keys.created_at < ?)`,
      args: [teamId, keyRef, requestRef, at, reclaim.expiredBefore, reclaim.staleBefore],
    });
    return rs.rowsAffected > 0;
  }

  async get(teamId: string, keyRef: Uint8Array): Promise<IdempotencyRow | null> {
    const rs = await this.client.execute({
      sql: "SELECT request_ref, created_at, sealed FROM idempotency_keys WHERE team_id = ? AND key_ref = ?",
      args: [teamId, keyRef],
    });
    const row = rs.rows[0];
    if (!row) return null;
    return {
      requestRef: blob(row.request_ref),
      createdAt: text(row.created_at),
      sealed: row.sealed == null ? null : blob(row.sealed),
    };
  }

  /** Stores the answer of the claim made at `claimedAt`; false when that claim was taken over meanwhile. */
  async complete(
    teamId: string,
    keyRef: Uint8Array,
    claimedAt: string,
    sealed: Uint8Array,
  ): Promise<boolean> {
    const rs = await this.client.execute({
      sql: `UPDATE idempotency_keys SET sealed = ?
            WHERE team_id = ? AND key_ref = ? AND created_at = ? AND sealed IS NULL`,
      args: [sealed, teamId, keyRef, claimedAt],
    });
    return rs.rowsAffected > 0;
  }

  /** Gives up the pending claim made at `claimedAt`, so the key's next request is handled afresh. */
  async release(teamId: string, keyRef: Uint8Array, claimedAt: string): Promise<void> {
    await this.client.execute({
      sql: `DELETE FROM idempotency_keys
            WHERE team_id = ? AND key_ref = ? AND created_at = ? AND sealed IS NULL`,
      args: [teamId, keyRef, claimedAt],
    });
  }

  /** Deletes keys claimed before `before` (ISO-8601), for every team. */
  async prune(before: string): Promise<void> {
    await this.client.execute({
      sql: "DELETE FROM idempotency_keys WHERE created_at < ?",
      args: [before],
    });
  }
}
