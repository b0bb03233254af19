// The per-team change log: `(team, seq, kind, id)`, appended in the same transaction as the rows it names.
// An index that remembers the last seq it applied can catch up on any writes (another instance's included)
// by replaying what came after, and a drift check is a comparison of two numbers.

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

  async after(teamId: string, seq: number, limit: number): Promise<Change[]> {
    const rs = await this.client.execute({
      sql: "SELECT seq, kind, entity_id FROM changes WHERE team_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      args: [teamId, seq, limit],
    });
    return rs.rows.map((row) => ({ seq: num(row.seq), kind: text(row.kind), entityId: text(row.entity_id) }));
  }
}
