// Rows of invites (migration 010): a one-time code, stored as its SHA-256, that makes whoever opens it first
// a member of a team with a role, until it expires. Spending one is the members' join (store/members.ts).

import type { Client } from "@libsql/client";
import { type AuditRow, insertEventIf } from "./audit.js";
import { text } from "./client.js";

export interface InviteRow {
  id: string;
  teamId: string;
  codeHash: string;
  /** src/role.ts; checked by the caller. */
  role: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  /** Who made it, as `<actor kind>:<actor id>`: their unspent invites are withdrawn with their power. */
  createdBy: string;
}

/** An invite's maker as its row names them. */
export const inviteMaker = (actor: { kind: string; id: string }) => `${actor.kind}:${actor.id}`;

/**
 * Withdraws, at `at`, the unspent invites made by `maker` (a member removed or given another role, a key
 * revoked), in the transaction of that change; bound as [at, teamId, maker].
 */
export const WITHDRAW_INVITES =
  "UPDATE invites SET used_at = ? WHERE team_id = ? AND created_by = ? AND used_at IS NULL";

function inviteRow(row: Record<string, unknown>): InviteRow {
  return {
    id: text(row.id),
    teamId: text(row.team_id),
    codeHash: text(row.code_hash),
    role: text(row.role),
    createdAt: text(row.created_at),
    expiresAt: text(row.expires_at),
    usedAt: row.used_at == null ? null : text(row.used_at),
    createdBy: text(row.created_by),
  };
}

export class InviteRows {
  constructor(private readonly client: Client) {}

  /**
   * Stores an invite with its event, both or neither, and only while its maker still holds the power to make it:
   * a member still a live owner, a key not revoked whose owner (if any) is still a live owner; the admin token
   * always. A maker removed, demoted or revoked while the invite was being made leaves none (false).
   */
  async insert(invite: InviteRow, event: AuditRow): Promise<boolean> {
    const [kind, ...rest] = invite.createdBy.split(":");
    const makerId = rest.join(":");
    const liveOwner = (column: string) =>
      `${column} IN (SELECT id FROM members WHERE team_id = ? AND role = 'owner' AND removed_at IS NULL)`;
    const holds =
      kind === "member"
        ? { sql: liveOwner("?"), args: [makerId, invite.teamId] }
        : kind === "key"
          ? {
              sql: `EXISTS (SELECT 1 FROM api_keys WHERE team_id = ? AND id = ? AND revoked_at IS NULL
                      AND (owner IS NULL OR ${liveOwner("owner")}))`,
              args: [invite.teamId, makerId, invite.teamId],
            }
          : kind === "admin"
            ? { sql: "1", args: [] }
            : null;
    if (!holds) throw new Error(`an invite's maker of an unknown kind: ${kind}`);
    const [inserted] = await this.client.batch(
      [
        {
          sql: `INSERT INTO invites (id, team_id, code_hash, role, created_at, expires_at, created_by)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE ${holds.sql}`,
          args: [
            invite.id,
            invite.teamId,
            invite.codeHash,
            invite.role,
            invite.createdAt,
            invite.expiresAt,
            invite.createdBy,
            ...holds.args,
          ],
        },
        insertEventIf(event, "changes() > 0"),
      ],
      "write",
    );
    return (inserted?.rowsAffected ?? 0) > 0;
  }

  /** The invite with this code's hash, used or not; null for none (a team deleted takes its invites). */
  async find(codeHash: string): Promise<InviteRow | null> {
    const rs = await this.client.execute({
      sql: "SELECT * FROM invites WHERE code_hash = ? AND team_id IN (SELECT id FROM teams)",
      args: [codeHash],
    });
    const row = rs.rows[0];
    return row ? inviteRow(row) : null;
  }
}
