// The per-team change log: `(team, seq, kind, id)`, appended in the same transaction as the rows it names.
// An index that remembers the last seq it applied can catch up on any writes (another instance's included)
// by replaying what came after, and a drift check is a comparison of two numbers.
//
// Seqs are gap-free: each append takes MAX(seq) + 1 inside its write's transaction, and nothing deletes a
// change but compaction (from the oldest end, never the latest) and a team's deletion (all of them). So an
// index at seq N whose next change on record is past N + 1 knows the log was compacted past it.

import type { Client } from "@libsql/client";
import { num, text } from "./client.js";

export interface Change {
  seq: number;
  kind: string;
  entityId: string;
}

export class ChangeLog {
  constructor(private readonly client: Client) {}

  async latestSeq(teamId: string): Promise<number> {
    const rs = await this.client.execute({
      sql: "SELECT COALESCE(MAX(seq), 0) AS seq FROM changes WHERE team_id = ?",
      args: [teamId],
    });
    return num(rs.rows[0]?.seq ?? 0);
  }

  /** How many changes of the team are on record. */
  async count(teamId: string): Promise<number> {
    const rs = await this.client.execute({
      sql: "SELECT COUNT(*) AS n FROM changes WHERE team_id = ?",
      args: [teamId],
    });
    return num(rs.rows[0]?.n ?? 0);
  }

  /**
   * Deletes the team's changes up to and including `through`, except the latest: the next append takes
   * MAX(seq) + 1, so deleting the latest would hand out its seq again. Returns how many were deleted.
   */
  async compact(teamId: string, through: number): Promise<number> {
    const rs = await this.client.execute({
      sql: `DELETE FROM changes WHERE team_id = ? AND seq <= ?
              AND seq < (SELECT MAX(seq) FROM changes WHERE team_id = ?)`,
      args: [teamId, through, teamId],
    });
    return rs.rowsAffected;
  }

  async after(teamId: string, seq: number, limit: number): Promise<Change[]> {
    const rs = await this.client.execute({
      sql: "SELECT seq, kind, entity_id FROM changes WHERE team_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      args: [teamId, seq, limit],
    });
    return rs.rows.map((row) => ({ seq: num(row.seq), kind: text(row.kind), entityId: text(row.entity_id) }));
  }
}
