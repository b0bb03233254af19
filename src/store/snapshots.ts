// Rows of sealed index snapshots (migration 007): one head per team naming its current snapshot, and that
// snapshot's sealed parts. Writing is parts first, under a fresh snapshot id, then the head in one batch that
// also deletes every other part of the team, so a reader sees the old snapshot whole or the new one whole.

import type { Client } from "@libsql/client";
import type { RowReads } from "./binary-reads.js";
import { blob, num, text } from "./client.js";
import { STORED_VALUE_MAX_BYTES } from "./value-limit.js";

export interface SnapshotHead {
  teamId: string;
  snapshotId: string;
  format: string;
  seq: number;
  parts: number;
  /** Plaintext bytes of all parts: a size, for the log and the decision record. */
  bytes: number;
  createdAt: string;
}

export class SnapshotRows {
  /** `reads`: the bulk reads a build or a restore makes (binary-reads.ts); the client's own by default. */
  constructor(
    private readonly client: Client,
    private readonly reads: RowReads = client,
  ) {}

  async head(teamId: string): Promise<SnapshotHead | null> {
    const rs = await this.client.execute({
      sql: "SELECT snapshot_id, format, seq, parts, bytes, created_at FROM index_snapshots WHERE team_id = ?",
      args: [teamId],
    });
    const row = rs.rows[0];
    if (!row) return null;
    return {
      teamId,
      snapshotId: text(row.snapshot_id),
      format: text(row.format),
      seq: num(row.seq),
      parts: num(row.parts),
      bytes: num(row.bytes),
      createdAt: text(row.created_at),
    };
  }

  async part(teamId: string, snapshotId: string, part: number): Promise<Uint8Array | null> {
    const rs = await this.reads.execute({
      sql: "SELECT sealed FROM index_snapshot_parts WHERE team_id = ? AND snapshot_id = ? AND part = ?",
      args: [teamId, snapshotId, part],
    });
    const row = rs.rows[0];
    return row ? blob(row.sealed) : null;
  }

  async putPart(teamId: string, snapshotId: string, part: number, sealed: Uint8Array): Promise<void> {
    if (sealed.length > STORED_VALUE_MAX_BYTES) {
      throw new RangeError(
        `An index snapshot part of ${sealed.length} bytes is over the ${STORED_VALUE_MAX_BYTES} storage takes in one value.`,
      );
    }
    await this.client.execute({
      sql: "INSERT OR REPLACE INTO index_snapshot_parts (team_id, snapshot_id, part, sealed) VALUES (?, ?, ?, ?)",
      args: [teamId, snapshotId, part, sealed],
    });
  }

  /**
   * Points the team's head at a snapshot whose parts are all written, and deletes every other part of the
   * team. Does nothing but delete this snapshot's parts when the team is gone (deleted while it was written)
   * or the stored head already reflects a later seq (another instance's). Returns whether the head moved.
   */
  async commit(head: SnapshotHead): Promise<boolean> {
    const [moved] = await this.client.batch(
      [
        {
          sql: `INSERT INTO index_snapshots (team_id, snapshot_id, format, seq, parts, bytes, created_at)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM teams WHERE id = ?)
                ON CONFLICT (team_id) DO UPDATE SET snapshot_id = excluded.snapshot_id, format = excluded.format,
                  seq = excluded.seq, parts = excluded.parts, bytes = excluded.bytes, created_at = excluded.created_at
                WHERE excluded.seq >= index_snapshots.seq`,
          args: [
            head.teamId,
            head.snapshotId,
            head.format,
            head.seq,
            head.parts,
            head.bytes,
            head.createdAt,
            head.teamId,
          ],
        },
        {
          sql: `DELETE FROM index_snapshot_parts WHERE team_id = ? AND snapshot_id IS NOT
                  (SELECT snapshot_id FROM index_snapshots WHERE team_id = ?)`,
          args: [head.teamId, head.teamId],
        },
      ],
      "write",
    );
    return (moved?.rowsAffected ?? 0) > 0;
  }

  /** Deletes the parts of a snapshot whose writing failed part way (its head never pointed at it). */
  async discard(teamId: string, snapshotId: string): Promise<void> {
    await this.client.execute({
      sql: `DELETE FROM index_snapshot_parts WHERE team_id = ? AND snapshot_id = ? AND snapshot_id IS NOT
              (SELECT snapshot_id FROM index_snapshots WHERE team_id = ?)`,
      args: [teamId, snapshotId, teamId],
    });
  }

  /** Deletes the team's snapshot, head and parts: one that must not be restored again. */
  async delete(teamId: string): Promise<void> {
    await this.client.batch(
      [
        { sql: "DELETE FROM index_snapshots WHERE team_id = ?", args: [teamId] },
        { sql: "DELETE FROM index_snapshot_parts WHERE team_id = ?", args: [teamId] },
      ],
      "write",
    );
  }
}
