// Rows of passkeys and of the challenges of ceremonies under way (migration 011). A passkey is found by the
// hash of its credential id, with its member's team's wrapped key, only while the member is live.

import type { Client, InStatement, InValue } from "@libsql/client";
import { blob, text } from "./client.js";

export interface PasskeyRow {
  idHash: string;
  teamId: string;
  memberId: string;
  sealed: Uint8Array;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface PasskeyMatch extends PasskeyRow {
  wrappedKey: Uint8Array;
}

export interface ChallengeRow {
  challengeHash: string;
  /** `register` (a member adding a passkey) or `sign-in`. */
  purpose: string;
  teamId: string | null;
  memberId: string | null;
  expiresAt: string;
}

function passkeyRow(row: Record<string, unknown>): PasskeyRow {
  return {
    idHash: text(row.id_hash),
    teamId: text(row.team_id),
    memberId: text(row.member_id),
    sealed: blob(row.sealed),
    createdAt: text(row.created_at),
    lastUsedAt: row.last_used_at == null ? null : text(row.last_used_at),
  };
}

/** A passkey's insert as a statement of another change's transaction (a member joining with it). */
export function insertPasskeyIf(row: PasskeyRow, condition: string, args: readonly InValue[]): InStatement {
  return {
    sql: `INSERT INTO passkeys (id_hash, team_id, member_id, sealed, created_at)
          SELECT ?, ?, ?, ?, ? WHERE ${condition}`,
    args: [row.idHash, row.teamId, row.memberId, row.sealed, row.createdAt, ...args],
  };
}

export class PasskeyRows {
  constructor(private readonly client: Client) {}

  /** Stores a new passkey; false when one with the same credential id is already stored. */
  async insert(row: PasskeyRow): Promise<boolean> {
    const rs = await this.client.execute({
      sql: `INSERT OR IGNORE INTO passkeys (id_hash, team_id, member_id, sealed, created_at) VALUES (?, ?, ?, ?, ?)`,
      args: [row.idHash, row.teamId, row.memberId, row.sealed, row.createdAt],
    });
    return rs.rowsAffected > 0;
  }

  /** The passkey with this credential id hash, if its member is live, with its team's wrapped key. */
  async find(idHash: string): Promise<PasskeyMatch | null> {
    const rs = await this.client.execute({
      sql: `SELECT p.*, t.wrapped_key FROM passkeys p
            JOIN members m ON m.id = p.member_id AND m.team_id = p.team_id AND m.removed_at IS NULL
            JOIN teams t ON t.id = p.team_id
            WHERE p.id_hash = ?`,
      args: [idHash],
    });
    const row = rs.rows[0];
    return row ? { ...passkeyRow(row), wrappedKey: blob(row.wrapped_key) } : null;
  }

  /** Whether a passkey with this credential id hash is stored, whoever's it is. */
  async exists(idHash: string): Promise<boolean> {
    const rs = await this.client.execute({ sql: "SELECT 1 FROM passkeys WHERE id_hash = ?", args: [idHash] });
    return rs.rows.length > 0;
  }

  /**
   * Its counter moved on, resealed, and its use, after a sign-in: only if the row is still the one the sign-in
   * read (`was`), so of two sign-ins with one answer's counter at once, one moves it. False for the other.
   */
  async used(idHash: string, was: Uint8Array, sealed: Uint8Array, at: string): Promise<boolean> {
    const rs = await this.client.execute({
      sql: "UPDATE passkeys SET sealed = ?, last_used_at = ? WHERE id_hash = ? AND sealed = ?",
      args: [sealed, at, idHash, was],
    });
    return rs.rowsAffected > 0;
  }

  async listOf(teamId: string, memberId: string): Promise<PasskeyRow[]> {
    const rs = await this.client.execute({
      sql: "SELECT * FROM passkeys WHERE team_id = ? AND member_id = ? ORDER BY created_at, id_hash",
      args: [teamId, memberId],
    });
    return rs.rows.map(passkeyRow);
  }

  /** Removes one of a member's passkeys; false when they have none by that hash. */
  async remove(teamId: string, memberId: string, idHash: string): Promise<boolean> {
    const rs = await this.client.execute({
      sql: "DELETE FROM passkeys WHERE team_id = ? AND member_id = ? AND id_hash = ?",
      args: [teamId, memberId, idHash],
    });
    return rs.rowsAffected > 0;
  }

  /**
   * Keeps a ceremony's challenge (its hash) until it is taken or expires; expired ones are cleared first. False
   * when `max` challenges are already waiting (a flood of sign-in starts), and this one is not kept.
   */
  async putChallenge(row: ChallengeRow, now: string, max: number): Promise<boolean> {
    const [, kept] = await this.client.batch(
      [
        { sql: "DELETE FROM passkey_challenges WHERE expires_at <= ?", args: [now] },
        {
          sql: `INSERT INTO passkey_challenges (challenge_hash, purpose, team_id, member_id, expires_at)
                SELECT ?, ?, ?, ?, ? WHERE (SELECT COUNT(*) FROM passkey_challenges) < ?`,
          args: [row.challengeHash, row.purpose, row.teamId, row.memberId, row.expiresAt, max],
        },
      ],
      "write",
    );
    return (kept?.rowsAffected ?? 0) > 0;
  }

  /** Takes a challenge: its row, deleted in the same transaction, so a challenge answers one ceremony. */
  async takeChallenge(challengeHash: string): Promise<ChallengeRow | null> {
    const [found, deleted] = await this.client.batch(
      [
        { sql: "SELECT * FROM passkey_challenges WHERE challenge_hash = ?", args: [challengeHash] },
        { sql: "DELETE FROM passkey_challenges WHERE challenge_hash = ?", args: [challengeHash] },
      ],
      "write",
    );
    const row = found?.rows[0];
    if (!row || (deleted?.rowsAffected ?? 0) === 0) return null;
    return {
      challengeHash: text(row.challenge_hash),
      purpose: text(row.purpose),
      teamId: row.team_id == null ? null : text(row.team_id),
      memberId: row.member_id == null ? null : text(row.member_id),
      expiresAt: text(row.expires_at),
    };
  }
}
