// Rows of members (migration 010): who a team's people are, their role, and their sealed name, address and
// password hash. A member is found by the keyed hash of their address (sign-in) or by id (a session); removing
// one keeps the row, marked, so the audit trail still names who acted.

import type { Client, InStatement } from "@libsql/client";
import { type AuditRow, insertEventIf } from "./audit.js";
import { blob, text } from "./client.js";
import { inviteMaker, WITHDRAW_INVITES } from "./invites.js";
import { insertPasskeyIf, type PasskeyRow } from "./passkeys.js";

export interface MemberRow {
  id: string;
  teamId: string;
  /** src/role.ts; checked by the caller, stored as written. */
  role: string;
  signInHash: string;
  sealed: Uint8Array;
  createdAt: string;
  lastSeenAt: string | null;
  removedAt: string | null;
}

export interface MemberMatch extends MemberRow {
  wrappedKey: Uint8Array;
}

/** What joining a team through an invite came to. */
export type JoinOutcome = "joined" | "invite_spent" | "address_taken";

/** What a change of a member's role or a removal came to. */
export type MemberChange = "changed" | "unchanged" | "last_owner" | null;

function memberRow(row: Record<string, unknown>): MemberRow {
  return {
    id: text(row.id),
    teamId: text(row.team_id),
    role: text(row.role),
    signInHash: text(row.sign_in_hash),
    sealed: blob(row.sealed),
    createdAt: text(row.created_at),
    lastSeenAt: row.last_seen_at == null ? null : text(row.last_seen_at),
    removedAt: row.removed_at == null ? null : text(row.removed_at),
  };
}

const LIVE_ADDRESS = "SELECT 1 FROM members WHERE sign_in_hash = ? AND removed_at IS NULL";
/** Whether the member `?` (team, id) is not the team's last live owner; bound as [teamId, teamId, id]. */
const NOT_LAST_OWNER = `(SELECT COUNT(*) FROM members
    WHERE team_id = ? AND role = 'owner' AND removed_at IS NULL AND id != ?) > 0`;

export class MemberRows {
  constructor(private readonly client: Client) {}

  /**
   * Spends invite `inviteId` on a new member, with its event, in one transaction: the invite must still be
   * unused and unexpired at `at`, and no live member may sign in with the same address. Of two people
   * opening one invite at once, one joins.
   */
  async join(
    inviteId: string,
    member: MemberRow,
    event: AuditRow,
    /** A passkey the member joins with, and its event: stored with them, or neither is. */
    passkey?: { row: PasskeyRow; event: AuditRow },
  ): Promise<JoinOutcome> {
    const joined = "EXISTS (SELECT 1 FROM members WHERE id = ?)";
    const [spent, inserted] = await this.client.batch(
      [
        {
          sql: `UPDATE invites SET used_at = ?, member_id = ?
                WHERE id = ? AND used_at IS NULL AND expires_at > ? AND NOT EXISTS (${LIVE_ADDRESS})`,
          args: [member.createdAt, member.id, inviteId, member.createdAt, member.signInHash],
        },
        {
          sql: `INSERT INTO members (id, team_id, role, sign_in_hash, sealed, created_at, last_seen_at)
                SELECT ?, team_id, role, ?, ?, ?, ? FROM invites WHERE id = ? AND changes() > 0`,
          args: [member.id, member.signInHash, member.sealed, member.createdAt, member.createdAt, inviteId],
        },
        insertEventIf(event, joined, [member.id]),
        ...(passkey
          ? [
              insertPasskeyIf(passkey.row, joined, [member.id]),
              insertEventIf(passkey.event, joined, [member.id]),
            ]
          : []),
      ],
      "write",
    );
    if ((inserted?.rowsAffected ?? 0) > 0) return "joined";
    return (spent?.rowsAffected ?? 0) === 0 && (await this.#addressTaken(member.signInHash))
      ? "address_taken"
      : "invite_spent";
  }

  async #addressTaken(signInHash: string): Promise<boolean> {
    const rs = await this.client.execute({ sql: LIVE_ADDRESS, args: [signInHash] });
    return rs.rows.length > 0;
  }

  /** The live members whose address hashes to one of `hashes`, with their team's wrapped key. */
  async findBySignIn(hashes: readonly string[]): Promise<MemberMatch[]> {
    const rs = await this.client.execute({
      sql: `SELECT m.*, t.wrapped_key FROM members m JOIN teams t ON t.id = m.team_id
            WHERE m.sign_in_hash IN (${hashes.map(() => "?").join(", ")}) AND m.removed_at IS NULL`,
      args: [...hashes],
    });
    return rs.rows.map((row) => ({ ...memberRow(row), wrappedKey: blob(row.wrapped_key) }));
  }

  /** Moves a member found under a master key rotated away from to the current key's hash of the address. */
  async rehash(memberId: string, from: string, to: string): Promise<void> {
    await this.client.execute({
      sql: "UPDATE members SET sign_in_hash = ? WHERE id = ? AND sign_in_hash = ?",
      args: [to, memberId, from],
    });
  }

  /** A member of the team, live or removed; null for none. */
  async get(teamId: string, memberId: string): Promise<MemberRow | null> {
    const rs = await this.client.execute({
      sql: "SELECT * FROM members WHERE team_id = ? AND id = ?",
      args: [teamId, memberId],
    });
    const row = rs.rows[0];
    return row ? memberRow(row) : null;
  }

  /** Every member the team has had, oldest first, removed ones included (the trail names them). */
  async list(teamId: string): Promise<MemberRow[]> {
    const rs = await this.client.execute({
      sql: "SELECT * FROM members WHERE team_id = ? ORDER BY created_at, id",
      args: [teamId],
    });
    return rs.rows.map(memberRow);
  }

  /**
   * Gives a live member a role, with its event; never leaves the team without a live owner. Keys the member
   * made of a scope in `revokeScopes` (above what the new role may make) are revoked with it.
   */
  async setRole(
    teamId: string,
    memberId: string,
    role: string,
    event: AuditRow,
    revokeScopes: readonly string[],
  ): Promise<MemberChange> {
    return this.#change(
      teamId,
      memberId,
      {
        sql: `UPDATE members SET role = ?
              WHERE team_id = ? AND id = ? AND removed_at IS NULL AND role != ?
                AND (role != 'owner' OR ${NOT_LAST_OWNER})`,
        args: [role, teamId, memberId, role, teamId, memberId],
      },
      event,
      role,
      revokeScopes,
    );
  }

  /** Removes a live member at `at`, with its event and every key they made; never the team's last live owner. */
  async remove(teamId: string, memberId: string, at: string, event: AuditRow): Promise<MemberChange> {
    return this.#change(
      teamId,
      memberId,
      {
        sql: `UPDATE members SET removed_at = ?
              WHERE team_id = ? AND id = ? AND removed_at IS NULL AND (role != 'owner' OR ${NOT_LAST_OWNER})`,
        args: [at, teamId, memberId, teamId, memberId],
      },
      event,
      null,
      null,
    );
  }

  /**
   * One change and its event in a transaction (the event only if the change applied, and with it the
   * member's unspent invites withdrawn: an invite is worth no more than its maker's power now), then why not
   * when it did not: no such live member (null), already so (`unchanged`), or the last owner.
   */
  async #change(
    teamId: string,
    memberId: string,
    update: InStatement,
    event: AuditRow,
    role: string | null,
    /** The scopes of the member's keys to revoke with the change; null for every key. */
    revokeScopes: readonly string[] | null,
  ): Promise<MemberChange> {
    // The change applied exactly when its event was appended.
    const applied = "EXISTS (SELECT 1 FROM audit_events WHERE team_id = ? AND id = ?)";
    const scoped =
      revokeScopes === null ? "" : ` AND scope IN (${revokeScopes.map(() => "?").join(", ") || "NULL"})`;
    const [changed, , , , , found] = await this.client.batch(
      [
        update,
        insertEventIf(event, "changes() > 0"),
        {
          sql: `${WITHDRAW_INVITES} AND ${applied}`,
          args: [event.at, teamId, inviteMaker({ kind: "member", id: memberId }), teamId, event.id],
        },
        // And those made with their keys: a key's power is its owner's.
        {
          sql: `UPDATE invites SET used_at = ? WHERE team_id = ? AND used_at IS NULL
                AND created_by IN (SELECT 'key:' || id FROM api_keys WHERE team_id = ? AND owner = ?) AND ${applied}`,
          args: [event.at, teamId, teamId, memberId, teamId, event.id],
        },
        {
          sql: `UPDATE api_keys SET revoked_at = ?
                WHERE team_id = ? AND owner = ? AND revoked_at IS NULL${scoped} AND ${applied}`,
          args: [event.at, teamId, memberId, ...(revokeScopes ?? []), teamId, event.id],
        },
        {
          sql: "SELECT role FROM members WHERE team_id = ? AND id = ? AND removed_at IS NULL",
          args: [teamId, memberId],
        },
      ],
      "write",
    );
    if ((changed?.rowsAffected ?? 0) > 0) return "changed";
    const live = found?.rows[0];
    if (!live) return null;
    return role !== null && text(live.role) === role ? "unchanged" : "last_owner";
  }

  /** Records a member's sign-in or page use; a later time already there is kept. */
  async touch(memberId: string, at: string): Promise<void> {
    await this.client.execute({
      sql: "UPDATE members SET last_seen_at = ? WHERE id = ? AND (last_seen_at IS NULL OR last_seen_at < ?)",
      args: [at, memberId, at],
    });
  }
}
