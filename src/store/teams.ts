// Rows of teams and their API keys. A team row holds its sealed name and its wrapped data key; deleting the
// team removes the wrapped key first, so its sealed rows are unreadable before they are deleted.

import type { Client } from "@libsql/client";
import { blob, text } from "./client.js";
import { inviteMaker, WITHDRAW_INVITES } from "./invites.js";

export interface TeamRow {
  id: string;
  sealed: Uint8Array;
  wrappedKey: Uint8Array;
  createdAt: string;
}

export interface ApiKeyRow {
  id: string;
  teamId: string;
  /** What the key may do (src/scope.ts); checked by the caller, stored as written. */
  scope: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The key's name, sealed under the team's key (sealed-rows/keys.ts); null for a key made without one. */
  sealed: Uint8Array | null;
  /** The member who made it; null for a key made by a key or the admin token. */
  owner: string | null;
}

/** A key as a new row holds it: its hash, never the key. */
export interface NewApiKey {
  id: string;
  teamId: string;
  secretHash: string;
  scope: string;
  createdAt: string;
  expiresAt: string | null;
  sealed: Uint8Array | null;
  owner?: string | null;
}

export interface ApiKeyMatch extends ApiKeyRow {
  wrappedKey: Uint8Array;
}

function teamRow(row: Record<string, unknown>): TeamRow {
  return {
    id: text(row.id),
    sealed: blob(row.sealed),
    wrappedKey: blob(row.wrapped_key),
    createdAt: text(row.created_at),
  };
}

const KEY_COLUMNS = "id, team_id, scope, created_at, expires_at, last_used_at, revoked_at, sealed, owner";

function keyRow(row: Record<string, unknown>): ApiKeyRow {
  return {
    id: text(row.id),
    teamId: text(row.team_id),
    scope: text(row.scope),
    createdAt: text(row.created_at),
    expiresAt: row.expires_at == null ? null : text(row.expires_at),
    lastUsedAt: row.last_used_at == null ? null : text(row.last_used_at),
    revokedAt: row.revoked_at == null ? null : text(row.revoked_at),
    sealed: row.sealed == null ? null : blob(row.sealed),
    owner: row.owner == null ? null : text(row.owner),
  };
}

const INSERT_KEY =
  "INSERT INTO api_keys (id, team_id, secret_hash, scope, created_at, expires_at, sealed, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

function insertKeyArgs(key: NewApiKey) {
  return [
    key.id,
    key.teamId,
    key.secretHash,
    key.scope,
    key.createdAt,
    key.expiresAt,
    key.sealed,
    key.owner ?? null,
  ];
}

export class TeamRows {
  constructor(private readonly client: Client) {}

  async insert(team: TeamRow, key: NewApiKey): Promise<void> {
    await this.client.batch(
      [
        {
          sql: "INSERT INTO teams (id, sealed, wrapped_key, created_at) VALUES (?, ?, ?, ?)",
          args: [team.id, team.sealed, team.wrappedKey, team.createdAt],
        },
        { sql: INSERT_KEY, args: insertKeyArgs(key) },
      ],
      "write",
    );
  }

  async get(id: string): Promise<TeamRow | null> {
    const rs = await this.client.execute({ sql: "SELECT * FROM teams WHERE id = ?", args: [id] });
    const row = rs.rows[0];
    return row ? teamRow(row) : null;
  }

  async list(): Promise<TeamRow[]> {
    const rs = await this.client.execute("SELECT * FROM teams ORDER BY created_at, id");
    return rs.rows.map(teamRow);
  }

  async replaceWrappedKey(id: string, wrappedKey: Uint8Array): Promise<void> {
    await this.client.execute({
      sql: "UPDATE teams SET wrapped_key = ? WHERE id = ?",
      args: [wrappedKey, id],
    });
  }

  /**
   * Destroys a team's key material: its row (holding the wrapped data key), its API keys, its members and
   * their invites, passkeys and OAuth approvals and tokens, in one transaction. From that commit on nothing can open the team's rows or authenticate as
   * the team, and its members' addresses are free to join another.
   */
  async deleteKeyMaterial(id: string): Promise<boolean> {
    const [team] = await this.client.batch(
      [
        { sql: "DELETE FROM teams WHERE id = ?", args: [id] },
        { sql: "DELETE FROM api_keys WHERE team_id = ?", args: [id] },
        { sql: "DELETE FROM members WHERE team_id = ?", args: [id] },
        { sql: "DELETE FROM invites WHERE team_id = ?", args: [id] },
        { sql: "DELETE FROM passkeys WHERE team_id = ?", args: [id] },
        { sql: "DELETE FROM passkey_challenges WHERE team_id = ?", args: [id] },
        { sql: "DELETE FROM oauth_grants WHERE team_id = ?", args: [id] },
        { sql: "DELETE FROM oauth_tokens WHERE team_id = ?", args: [id] },
      ],
      "write",
    );
    return (team?.rowsAffected ?? 0) > 0;
  }

  /** Deletes a team's (by now unreadable) rows. */
  async deleteRows(id: string): Promise<void> {
    await this.client.batch(
      [
        "chunks",
        "documents",
        "entries",
        "changes",
        "sources",
        "source_pages",
        "webhook_deliveries",
        "idempotency_keys",
        "page_sessions",
        "index_snapshots",
        "index_snapshot_parts",
        "audit_events",
      ].map((table) => ({
        sql: `DELETE FROM ${table} WHERE team_id = ?`,
        args: [id],
      })),
      "write",
    );
  }

  /**
   * Stores a new key. A key a member owns is stored only while the member is live with one of `ownerRoles`
   * (the roles that may make a key of its scope), in the same statement: a removal or a smaller role
   * committed while the key was being made leaves no key behind. False when it was not stored.
   */
  async insertKey(
    key: NewApiKey,
    ownerRoles: readonly string[] = [],
    /** The key that made it, if a key did: it must not have been revoked meanwhile. */
    madeBy: string | null = null,
  ): Promise<boolean> {
    if (!key.owner && madeBy === null) {
      await this.client.execute({ sql: INSERT_KEY, args: insertKeyArgs(key) });
      return true;
    }
    const conditions: string[] = [];
    const args: (string | null)[] = [];
    if (key.owner) {
      conditions.push(`EXISTS (SELECT 1 FROM members WHERE team_id = ? AND id = ? AND removed_at IS NULL
                AND role IN (${ownerRoles.map(() => "?").join(", ") || "NULL"}))`);
      args.push(key.teamId, key.owner, ...ownerRoles);
    }
    if (madeBy !== null) {
      // A key revoked (on another instance, still held as live here for a moment) makes nothing lasting.
      conditions.push("NOT EXISTS (SELECT 1 FROM api_keys WHERE id = ? AND revoked_at IS NOT NULL)");
      args.push(madeBy);
    }
    const rs = await this.client.execute({
      sql: `INSERT INTO api_keys (id, team_id, secret_hash, scope, created_at, expires_at, sealed, owner)
            SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE ${conditions.join(" AND ")}`,
      args: [...insertKeyArgs(key), ...args],
    });
    return rs.rowsAffected > 0;
  }

  async listKeys(teamId: string): Promise<ApiKeyRow[]> {
    const rs = await this.client.execute({
      sql: `SELECT ${KEY_COLUMNS} FROM api_keys WHERE team_id = ? ORDER BY created_at, id`,
      args: [teamId],
    });
    return rs.rows.map(keyRow);
  }

  /** Records a key's use; a time already later is kept, so two instances never move it back. */
  async touchKey(keyId: string, at: string): Promise<void> {
    await this.client.execute({
      sql: "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
      args: [at, keyId, at],
    });
  }

  /**
   * Revokes a key at `at`, keeping the time of an earlier revocation: "revoked" when this call revoked it,
   * "already" when it was revoked before, null when the team has no such key.
   */
  async revokeKey(teamId: string, keyId: string, at: string): Promise<"revoked" | "already" | null> {
    // One transaction: of two revokes at once (here or on another instance), exactly one finds it live.
    const [revoked, , found] = await this.client.batch(
      [
        {
          sql: "UPDATE api_keys SET revoked_at = ? WHERE team_id = ? AND id = ? AND revoked_at IS NULL",
          args: [at, teamId, keyId],
        },
        // The invites the key made and nobody spent go with it.
        { sql: WITHDRAW_INVITES, args: [at, teamId, inviteMaker({ kind: "key", id: keyId })] },
        { sql: "SELECT 1 FROM api_keys WHERE team_id = ? AND id = ?", args: [teamId, keyId] },
      ],
      "write",
    );
    if ((revoked?.rowsAffected ?? 0) > 0) return "revoked";
    return (found?.rows.length ?? 0) > 0 ? "already" : null;
  }

  /** The live key with this secret hash, with its team's wrapped key; revoked keys do not match. */
  async findKey(secretHash: string): Promise<ApiKeyMatch | null> {
    const rs = await this.client.execute({
      sql: `SELECT k.id, k.team_id, k.scope, k.created_at, k.expires_at, k.last_used_at, k.revoked_at, k.sealed,
              k.owner, t.wrapped_key
            FROM api_keys k JOIN teams t ON t.id = k.team_id
            WHERE k.secret_hash = ? AND k.revoked_at IS NULL`,
      args: [secretHash],
    });
    const row = rs.rows[0];
    return row ? { ...keyRow(row), wrappedKey: blob(row.wrapped_key) } : null;
  }
}
