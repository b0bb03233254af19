// Rows of memoria's authorization server (migration 012): approvals, and the codes and tokens they issue, each
// token under its hash alone. Every change that must not half-happen is one batch whose later statements hold
// only if the first applied: a code is exchanged, or a refresh token rotated, exactly once however many
// requests race for it, and only while its approval and its member are live.

import type { Client, InStatement } from "@libsql/client";
import type { OAuthTokenKind } from "../oauth-token.js";
import type { AuditRow } from "./audit.js";
import { insertEventIf } from "./audit.js";
import { blob, text } from "./client.js";

export interface GrantRow {
  id: string;
  teamId: string;
  memberId: string;
  /** The team's blind index of the client id: a member's approvals of one client are found as one. */
  clientRef: Uint8Array;
  scope: string;
  sealed: Uint8Array;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface TokenRow {
  hash: string;
  kind: OAuthTokenKind;
  teamId: string;
  grantId: string;
  familyId: string;
  resource: string;
  /** A code's sealed challenge and redirect URI; null for tokens. */
  sealed: Uint8Array | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** An access token that still holds, with what it may do: its approval's scope and its member's role now. */
export interface LiveAccess {
  teamId: string;
  /** The team's wrapped key, read in the same statement, so checking a token is one round trip. */
  wrappedKey: Uint8Array;
  grantId: string;
  memberId: string;
  scope: string;
  role: string;
  resource: string;
  expiresAt: string;
}

/** A pair a code or a refresh token is exchanged for. */
export interface IssuedPair {
  access: TokenRow;
  refresh: TokenRow;
}

export type Exchange =
  | { kind: "issued" }
  /** Used before: the family it belongs to was ended by this call. */
  | { kind: "replayed"; grantId: string }
  /** Unknown, expired, of a revoked approval or a removed member. */
  | { kind: "refused" };

function tokenRow(row: Record<string, unknown>): TokenRow {
  return {
    hash: text(row.hash),
    kind: text(row.kind) as OAuthTokenKind,
    teamId: text(row.team_id),
    grantId: text(row.grant_id),
    familyId: text(row.family_id),
    resource: text(row.resource),
    sealed: row.sealed == null ? null : blob(row.sealed),
    createdAt: text(row.created_at),
    expiresAt: text(row.expires_at),
    usedAt: row.used_at == null ? null : text(row.used_at),
  };
}

function grantRow(row: Record<string, unknown>): GrantRow {
  return {
    id: text(row.id),
    teamId: text(row.team_id),
    memberId: text(row.member_id),
    clientRef: blob(row.client_ref),
    scope: text(row.scope),
    sealed: blob(row.sealed),
    createdAt: text(row.created_at),
    lastUsedAt: row.last_used_at == null ? null : text(row.last_used_at),
  };
}

/** The approval of a token's row is live, and so is its member. */
const GRANT_LIVE = `EXISTS (SELECT 1 FROM oauth_grants g JOIN members m ON m.id = g.member_id AND m.team_id = g.team_id
  WHERE g.id = oauth_tokens.grant_id AND g.revoked_at IS NULL AND m.removed_at IS NULL)`;

function insertToken(row: TokenRow, condition: string, args: unknown[]): InStatement {
  return {
    sql: `INSERT INTO oauth_tokens (hash, kind, team_id, grant_id, family_id, resource, sealed, created_at, expires_at)
          SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ${condition}`,
    args: [
      row.hash,
      row.kind,
      row.teamId,
      row.grantId,
      row.familyId,
      row.resource,
      row.sealed,
      row.createdAt,
      row.expiresAt,
      ...(args as never[]),
    ],
  };
}

export class OAuthRows {
  constructor(private readonly client: Client) {}

  /** The member's live approval of a client (by the team's blind index of its id), if any. */
  async grantOf(teamId: string, memberId: string, clientRef: Uint8Array): Promise<GrantRow | null> {
    const rs = await this.client.execute({
      sql: `SELECT * FROM oauth_grants WHERE team_id = ? AND member_id = ? AND client_ref = ? AND revoked_at IS NULL
            ORDER BY created_at LIMIT 1`,
      args: [teamId, memberId, clientRef],
    });
    const row = rs.rows[0];
    return row ? grantRow(row) : null;
  }

  /**
   * Stores an approval (or, `renew`, updates the live one of that id to the scope and client approved now) and
   * a code on it, with its event, in one transaction; only while the member is live with one of `roles`, so a
   * removal or a smaller role committed meanwhile stores nothing. False when nothing was stored.
   */
  async approve(
    grant: GrantRow,
    renew: boolean,
    code: TokenRow,
    roles: readonly string[],
    event: AuditRow,
  ): Promise<boolean> {
    const roleList = roles.map(() => "?").join(", ");
    const memberLive = `EXISTS (SELECT 1 FROM members WHERE id = ? AND team_id = ? AND removed_at IS NULL AND role IN (${roleList}))`;
    const memberArgs = [grant.memberId, grant.teamId, ...roles];
    const write: InStatement = renew
      ? {
          sql: `UPDATE oauth_grants SET scope = ?, sealed = ?
                WHERE id = ? AND team_id = ? AND revoked_at IS NULL AND ${memberLive}`,
          args: [grant.scope, grant.sealed, grant.id, grant.teamId, ...memberArgs],
        }
      : {
          // Ignored when the member already has a live approval of the client (the unique index): then no
          // code is stored either, and the caller renews that one instead.
          sql: `INSERT OR IGNORE INTO oauth_grants (id, team_id, member_id, client_ref, scope, sealed, created_at)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE ${memberLive}`,
          args: [
            grant.id,
            grant.teamId,
            grant.memberId,
            grant.clientRef,
            grant.scope,
            grant.sealed,
            grant.createdAt,
            ...memberArgs,
          ],
        };
    const results = await this.client.batch(
      [
        write,
        insertToken(code, "changes() = 1", []),
        insertEventIf(event, "EXISTS (SELECT 1 FROM oauth_tokens WHERE hash = ?)", [code.hash]),
      ],
      "write",
    );
    return (results[1]?.rowsAffected ?? 0) === 1;
  }

  /**
   * A code or refresh token of the team by its hash, whatever its state, with its approval if that is live and
   * the team's wrapped key: what a token request needs, in one round trip.
   */
  async tokenWithGrant(
    teamId: string,
    hash: string,
  ): Promise<{
    token: TokenRow;
    grant: GrantRow | null;
    role: string | null;
    wrappedKey: Uint8Array;
  } | null> {
    const rs = await this.client.execute({
      sql: `SELECT t.*, tm.wrapped_key AS team_wrapped_key,
              g.id AS g_id, g.member_id AS g_member_id, g.client_ref AS g_client_ref, g.scope AS g_scope,
              g.sealed AS g_sealed, g.created_at AS g_created_at, g.last_used_at AS g_last_used_at, m.role AS m_role
            FROM oauth_tokens t
            JOIN teams tm ON tm.id = t.team_id
            LEFT JOIN oauth_grants g ON g.id = t.grant_id AND g.team_id = t.team_id AND g.revoked_at IS NULL
            LEFT JOIN members m ON m.id = g.member_id AND m.team_id = g.team_id AND m.removed_at IS NULL
            WHERE t.hash = ? AND t.team_id = ?`,
      args: [hash, teamId],
    });
    const row = rs.rows[0];
    if (!row) return null;
    const grant =
      row.g_id == null
        ? null
        : grantRow({
            id: row.g_id,
            team_id: row.team_id,
            member_id: row.g_member_id,
            client_ref: row.g_client_ref,
            scope: row.g_scope,
            sealed: row.g_sealed,
            created_at: row.g_created_at,
            last_used_at: row.g_last_used_at,
          });
    return {
      token: tokenRow(row),
      grant,
      role: row.m_role == null ? null : text(row.m_role),
      wrappedKey: blob(row.team_wrapped_key),
    };
  }

  /** A code or token of the team by its hash, whatever its state. */
  async token(teamId: string, hash: string): Promise<TokenRow | null> {
    const rs = await this.client.execute({
      sql: "SELECT * FROM oauth_tokens WHERE hash = ? AND team_id = ?",
      args: [hash, teamId],
    });
    const row = rs.rows[0];
    return row ? tokenRow(row) : null;
  }

  /**
   * Spends a code or a refresh token (`used`, of `kind`) on a new pair, once: the first request to reach it
   * marks it used and stores the pair in the same transaction; any other finds it used. A spent one presented
   * again ends its family (every token it or its successors issued), as it means two parties hold it.
   */
  async exchange(
    used: { hash: string; teamId: string; kind: "code" | "refresh" },
    pair: IssuedPair,
    at: string,
    event: AuditRow | null,
  ): Promise<Exchange> {
    const statements: InStatement[] = [
      // Spent, and kept as long as the family it joins may live: a spent code or refresh token that comes back
      // any time before then is known as spent (and ends the family), not swept away as expired.
      {
        sql: `UPDATE oauth_tokens SET used_at = ?, expires_at = ?
              WHERE hash = ? AND team_id = ? AND kind = ? AND used_at IS NULL AND expires_at > ? AND ${GRANT_LIVE}`,
        args: [at, pair.refresh.expiresAt, used.hash, used.teamId, used.kind, at],
      },
      insertToken(pair.access, "changes() = 1", []),
      insertToken(pair.refresh, "EXISTS (SELECT 1 FROM oauth_tokens WHERE hash = ?)", [pair.access.hash]),
      {
        sql: `UPDATE oauth_grants SET last_used_at = ? WHERE id = ?
              AND EXISTS (SELECT 1 FROM oauth_tokens WHERE hash = ?)`,
        args: [at, pair.access.grantId, pair.access.hash],
      },
    ];
    if (event)
      statements.push(
        insertEventIf(event, "EXISTS (SELECT 1 FROM oauth_tokens WHERE hash = ?)", [pair.access.hash]),
      );
    const results = await this.client.batch(statements, "write");
    const applied = (i: number) => (results[i]?.rowsAffected ?? 0) === 1;
    if (applied(0) && applied(1) && applied(2)) return { kind: "issued" };
    const found = await this.token(used.teamId, used.hash);
    if (!found || found.kind !== used.kind || found.usedAt === null) return { kind: "refused" };
    await this.endFamily(found.familyId);
    return { kind: "replayed", grantId: found.grantId };
  }

  /** Ends a family: its code, and every access and refresh token issued from it. */
  async endFamily(familyId: string): Promise<void> {
    await this.client.execute({ sql: "DELETE FROM oauth_tokens WHERE family_id = ?", args: [familyId] });
  }

  /** An access token that holds now, of a live approval and a live member; null otherwise. */
  async liveAccess(teamId: string, hash: string, now: string): Promise<LiveAccess | null> {
    const rs = await this.client.execute({
      sql: `SELECT t.team_id, t.grant_id, t.resource, t.expires_at, g.member_id, g.scope, m.role, tm.wrapped_key
            FROM oauth_tokens t
            JOIN teams tm ON tm.id = t.team_id
            JOIN oauth_grants g ON g.id = t.grant_id AND g.team_id = t.team_id AND g.revoked_at IS NULL
            JOIN members m ON m.id = g.member_id AND m.team_id = g.team_id AND m.removed_at IS NULL
            WHERE t.hash = ? AND t.team_id = ? AND t.kind = 'access' AND t.expires_at > ?`,
      args: [hash, teamId, now],
    });
    const row = rs.rows[0];
    if (!row) return null;
    return {
      teamId: text(row.team_id),
      wrappedKey: blob(row.wrapped_key),
      grantId: text(row.grant_id),
      memberId: text(row.member_id),
      scope: text(row.scope),
      role: text(row.role),
      resource: text(row.resource),
      expiresAt: text(row.expires_at),
    };
  }

  /** Live approvals of the team whose member is live, oldest first. */
  async grants(teamId: string): Promise<GrantRow[]> {
    const rs = await this.client.execute({
      sql: `SELECT g.* FROM oauth_grants g
            JOIN members m ON m.id = g.member_id AND m.team_id = g.team_id AND m.removed_at IS NULL
            WHERE g.team_id = ? AND g.revoked_at IS NULL ORDER BY g.created_at, g.id`,
      args: [teamId],
    });
    return rs.rows.map(grantRow);
  }

  /** Every approval the team has had, revoked ones too (the audit trail names clients that acted). */
  async everyGrant(teamId: string): Promise<GrantRow[]> {
    const rs = await this.client.execute({
      sql: "SELECT * FROM oauth_grants WHERE team_id = ? ORDER BY created_at, id",
      args: [teamId],
    });
    return rs.rows.map(grantRow);
  }

  /** A live approval of the team by id. */
  async grant(teamId: string, grantId: string): Promise<GrantRow | null> {
    const rs = await this.client.execute({
      sql: "SELECT * FROM oauth_grants WHERE id = ? AND team_id = ? AND revoked_at IS NULL",
      args: [grantId, teamId],
    });
    const row = rs.rows[0];
    return row ? grantRow(row) : null;
  }

  /**
   * Revokes an approval and deletes every code and token it issued, with its event, in one transaction; false
   * when it was not live (revoked already, or not the team's).
   */
  async revokeGrant(teamId: string, grantId: string, at: string, event: AuditRow | null): Promise<boolean> {
    const statements: InStatement[] = [
      {
        sql: "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND team_id = ? AND revoked_at IS NULL",
        args: [at, grantId, teamId],
      },
    ];
    if (event) statements.push(insertEventIf(event, "changes() = 1"));
    statements.push({
      sql: "DELETE FROM oauth_tokens WHERE grant_id = ? AND team_id = ?",
      args: [grantId, teamId],
    });
    const [revoked] = await this.client.batch(statements, "write");
    return (revoked?.rowsAffected ?? 0) > 0;
  }

  /** Deletes codes and tokens past their expiry: a refresh token kept after use is kept only until then. */
  async sweep(now: string): Promise<void> {
    await this.client.execute({ sql: "DELETE FROM oauth_tokens WHERE expires_at <= ?", args: [now] });
  }
}
