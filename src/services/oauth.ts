// memoria as the OAuth 2.1 authorization server of its own /mcp (the MCP authorization specification): a
// member approves a client at most their role's scope; the client exchanges a code with PKCE (S256 only) for a
// one-hour access token and a refresh token that rotates on every use; a spent code or refresh token presented
// again ends its whole family. Every token is bound to memoria's /mcp URL (RFC 8707) and checked against the
// approval and the member (that check held for MEMORIA_CATCHUP_MS, as a key's is, and forgotten at once on this
// instance by a revocation, a removal or a smaller role). Decision 0105 says why this narrow profile is written
// here rather than taken from a library.

import { type Actor, events } from "../audit.js";
import type { Clock } from "../clock.js";
import { isDomainError } from "../errors.js";
import { newId } from "../ids.js";
import { OAuthError } from "../oauth-error.js";
import type { OAuthScope } from "../oauth-scope.js";
import { formatOAuthToken, teamIdOfOAuthToken } from "../oauth-token.js";
import { isRole, type Role, roles, scopeOfRole } from "../role.js";
import { allows, type Scope } from "../scope.js";
import { toBase64Url, utf8 } from "../seal/bytes.js";
import type { Keyring } from "../seal/keyring.js";
import { generateSecret } from "../seal/secret.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import { sealAuditEvents } from "../sealed-rows/audit.js";
import { openCode, openGrant, sealCode, sealGrant } from "../sealed-rows/oauth.js";
import { openOrNull } from "../sealed-rows/readable.js";
import type { TokenRow } from "../store/oauth.js";
import type { Storage } from "../store/storage.js";
import type { ClientMetadataFetcher } from "./client-metadata.js";
import type { SignedInMember } from "./members.js";
import { type ClientCredentials, type OAuthClient, OAuthClients } from "./oauth-clients.js";
import { redirectUriMatches, whereBack } from "./redirect-uri.js";
import { type CachedCredential, TeamKeyCache } from "./team-key-cache.js";
import type { TeamService } from "./teams.js";

/** The MCP authorization specification's limit for an access token's life, and API.md's: at most an hour. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/**
 * A refresh token unused for 30 days lapses and the person approves again: long enough that a client used weekly
 * never asks, short enough that a token left on a forgotten machine dies on its own.
 */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * A code lives one minute: a client exchanges it the moment its redirect arrives (RFC 6749 §4.1.2 allows at most
 * ten), and a short life narrows what a code leaked through a log or a referrer could do.
 */
export const CODE_TTL_MS = 60 * 1000;
/**
 * Expired codes and tokens are cleared at most this often, as tokens are issued: one indexed DELETE; a few
 * minutes' expired rows cost nothing (every lookup checks expiry), so a rarer sweep only saves statements.
 */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** A client that names no scope memoria knows is offered `write`, the most a connector can hold. */
const DEFAULT_SCOPE: OAuthScope = "write";

/**
 * A client's `state` at most: it rides back to the client, and with the rest of the request in the return cookie
 * (under a browser's 4 KiB with a registered client id); clients send a random value of 32 to 64 characters.
 */
const MAX_STATE_CHARS = 512;

/** A PKCE verifier (RFC 7636 §4.1): 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** A challenge is the base64url of a SHA-256: 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** What a client asks of the authorization endpoint, once checked. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  /** The scope asked for (the highest memoria knows among those named). */
  scope: OAuthScope;
}

/** The query of a request to the authorization endpoint, as sent. */
export interface AuthorizationParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  resource?: string;
  scope?: string;
}

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: OAuthScope;
}

/** What an access token lets its bearer do now. */
export interface OAuthAccess {
  team: TeamKey;
  /** The approval's scope, capped by the member's role now. */
  scope: Scope;
  grantId: string;
  memberId: string;
}

/** An approval as the team's lists show it. */
export interface Approval {
  id: string;
  clientId: string | null;
  name: string | null;
  redirectHost: string | null;
  memberId: string;
  scope: string;
  approvedAt: string;
  lastUsedAt: string | null;
}

export interface OAuthDeps {
  storage: Storage;
  clock: Clock;
  keyring: Keyring;
  teams: Pick<TeamService, "openTeamKey" | "whenTeamKeysForgotten">;
  clientMetadata: ClientMetadataFetcher;
  /** How long a checked access token is taken as live without asking storage (MEMORIA_CATCHUP_MS); 0: never. */
  accessCacheMs: number;
}

/** The highest scope memoria knows among those a space-separated `scope` names, or the default. */
export function askedScope(scope: string | undefined): OAuthScope {
  const named = new Set((scope ?? "").split(" "));
  if (named.has("write")) return "write";
  if (named.has("read")) return "read";
  return DEFAULT_SCOPE;
}

/** The most of `asked` a member's role lets them approve: a reader asking for `write` approves `read`. */
export function grantableScope(asked: OAuthScope, role: Role): OAuthScope {
  return allows(scopeOfRole(role), asked) ? asked : "read";
}

/** The base64url SHA-256 of a PKCE verifier: its S256 challenge. */
async function challengeOf(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(verifier))));
}

const grantRef = (team: TeamKey, clientId: string) => blindIndex(team, `oauth-client:${clientId}`);

/** An approval's scope as its member's role caps it now: a member made a reader holds `read`. */
function cappedScope(approved: string, role: Role): OAuthScope {
  return approved === "write" && allows(scopeOfRole(role), "write") ? "write" : "read";
}

function rolesAllowing(scope: Scope): Role[] {
  return roles.filter((role) => allows(scopeOfRole(role), scope));
}

/** An access token as checked: its approval (`keyId`, so revoking the approval forgets it), and what it may do. */
interface CachedAccess extends CachedCredential {
  scope: OAuthScope;
  memberId: string;
  /** The /mcp URL it is bound to. */
  resource: string;
}

function accessOf(entry: CachedAccess, teamId: string, resource: string, now: number): OAuthAccess | null {
  if (entry.team.teamId !== teamId || entry.resource !== resource) return null;
  if (entry.expiresAt !== null && entry.expiresAt <= now) return null;
  return { team: entry.team, scope: entry.scope, grantId: entry.keyId, memberId: entry.memberId };
}

export class OAuthService {
  /** Who the clients are, and whether one presenting itself is that client. */
  readonly clients: OAuthClients;
  #lastSweep = 0;
  /**
   * Access tokens checked lately, by hash, so /mcp does not pay a storage round trip on every call (measured
   * in `--suites oauth`, decision 0105). A revocation, a family ended, or a member removed or given a smaller
   * role on this instance forgets them at once; another instance holds one at most MEMORIA_CATCHUP_MS.
   */
  readonly #access: TeamKeyCache<CachedAccess>;

  constructor(private readonly deps: OAuthDeps) {
    this.clients = new OAuthClients(deps);
    this.#access = new TeamKeyCache<CachedAccess>(deps.accessCacheMs);
    deps.teams.whenTeamKeysForgotten((teamId) => this.#access.forgetTeam(teamId));
  }

  /**
   * The client and redirect URI of an authorization request: what must hold before anything may be sent back
   * to the client. Throws OAuthError, to be shown to the person, never sent to an unchecked redirect URI.
   */
  async authorizationTarget(
    params: AuthorizationParams,
  ): Promise<{ client: OAuthClient; redirectUri: string }> {
    if (!params.client_id) throw new OAuthError("invalid_request", "client_id is missing.");
    const client = await this.clients.client(params.client_id);
    const redirectUri = params.redirect_uri;
    if (!redirectUri) throw new OAuthError("invalid_request", "redirect_uri is missing.");
    if (!redirectUriMatches(client.redirectUris, redirectUri))
      throw new OAuthError("invalid_request", "redirect_uri is not one this client registered.");
    return { client, redirectUri };
  }

  /**
   * The rest of an authorization request, once its target holds; an OAuthError here is shown to the person
   * (page/oauth-routes.tsx says why it is not sent to the client).
   */
  checkAuthorization(
    target: { client: OAuthClient; redirectUri: string },
    params: AuthorizationParams,
    resource: string,
  ): AuthorizationRequest {
    if (params.response_type !== "code")
      throw new OAuthError("unsupported_response_type", "response_type must be code.");
    if (!params.code_challenge || !CHALLENGE.test(params.code_challenge))
      throw new OAuthError("invalid_request", "code_challenge (PKCE, S256) is missing or malformed.");
    if (params.code_challenge_method !== "S256")
      throw new OAuthError("invalid_request", "code_challenge_method must be S256.");
    if (params.resource === undefined)
      throw new OAuthError("invalid_target", "resource is missing: name this server's /mcp URL.");
    // One trailing slash forgiven, as at the token endpoint: some clients add it to the URL they were given.
    if (params.resource !== resource && params.resource !== `${resource}/`)
      throw new OAuthError("invalid_target", "resource is not this server's /mcp URL.");
    if (params.state !== undefined && params.state.length > MAX_STATE_CHARS)
      throw new OAuthError("invalid_request", "state is too long.");
    return {
      client: target.client,
      redirectUri: target.redirectUri,
      state: params.state ?? null,
      codeChallenge: params.code_challenge,
      scope: askedScope(params.scope),
    };
  }

  /**
   * A member approves a request at `scope` (at most what their role holds): the approval is stored (or their
   * approval of the same client renewed) with a code on it; the URL to send the person back to the client.
   */
  async approve(
    member: SignedInMember,
    request: AuthorizationRequest,
    scope: OAuthScope,
    resource: string,
    issuer: string,
  ): Promise<string> {
    const granted = grantableScope(scope, member.role);
    const team = member.team;
    const clientRef = await grantRef(team, request.client.clientId);
    // Twice at most: a second approval of the same client by the same member, stored between this one's read
    // and its write, takes the one live approval the schema allows, and this one then renews it.
    for (let attempt = 0; attempt < 2; attempt++) {
      const existing = await this.deps.storage.oauth.grantOf(team.teamId, member.memberId, clientRef);
      const code = await this.#approveOnce(
        member,
        request,
        granted,
        resource,
        clientRef,
        existing?.id ?? null,
      );
      if (code !== null)
        return this.redirect(request.redirectUri, { code, state: request.state, iss: issuer });
      if (existing !== null) break;
    }
    throw new OAuthError("access_denied", "Your membership changed while approving; sign in again.");
  }

  /** One try at storing the approval (new, or renewing `renewing`) with a code on it: the code, or null. */
  async #approveOnce(
    member: SignedInMember,
    request: AuthorizationRequest,
    granted: OAuthScope,
    resource: string,
    clientRef: Uint8Array,
    renewing: string | null,
  ): Promise<string | null> {
    const team = member.team;
    const now = this.deps.clock.now();
    const grantId = renewing ?? newId("g");
    const code = formatOAuthToken("code", team.teamId, generateSecret());
    const codeHash = hashSecretNow(code);
    const codeRow: TokenRow = {
      hash: codeHash,
      kind: "code",
      teamId: team.teamId,
      grantId,
      familyId: newId("f"),
      resource,
      sealed: await sealCode(team, codeHash, {
        clientId: request.client.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
      }),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
      usedAt: null,
    };
    const sealed = await sealGrant(team, grantId, {
      clientId: request.client.clientId,
      clientName: request.client.name,
      redirectHost: whereBack(request.redirectUri),
    });
    const [event] = await sealAuditEvents(
      team,
      { kind: "member", id: member.memberId },
      [events.clientApproved(grantId)],
      now.toISOString(),
    );
    if (!event) return null;
    const stored = await this.deps.storage.oauth.approve(
      {
        id: grantId,
        teamId: team.teamId,
        memberId: member.memberId,
        clientRef,
        scope: granted,
        sealed,
        createdAt: now.toISOString(),
        lastUsedAt: null,
      },
      renewing !== null,
      codeRow,
      rolesAllowing(granted),
      event,
    );
    return stored ? code : null;
  }

  /** The redirect URI with an answer's parameters added to its query. */
  redirect(redirectUri: string, params: Record<string, string | null>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
    return url.href;
  }

  /**
   * A code or refresh token of `kind`, with its team's opened key and its approval (null when not live), in one
   * read; invalid_grant when it names no team or is not there.
   */
  async #tokenWithGrant(kind: "code" | "refresh", token: string) {
    const invalid = () =>
      new OAuthError("invalid_grant", `The ${kind === "code" ? "code" : "refresh token"} is not valid.`);
    const teamId = teamIdOfOAuthToken(kind, token);
    if (!teamId) throw invalid();
    const hash = hashSecretNow(token);
    const found = await this.deps.storage.oauth.tokenWithGrant(teamId, hash);
    if (found?.token.kind !== kind) throw invalid();
    const team = await this.deps.teams.openTeamKey(teamId, found.wrappedKey);
    // What the pair may do now: the approval's scope capped by its member's role (null: either is gone).
    const scope =
      found.grant && found.role !== null && isRole(found.role)
        ? cappedScope(found.grant.scope, found.role)
        : null;
    return { team, token: found.token, grant: found.grant, scope, hash, invalid };
  }

  /** A new access and refresh token of a family. */
  #pair(team: TeamKey, grantId: string, familyId: string, resource: string) {
    const now = this.deps.clock.now();
    const token = (kind: "access" | "refresh", ttl: number) => {
      const value = formatOAuthToken(kind, team.teamId, generateSecret());
      const row: TokenRow = {
        hash: hashSecretNow(value),
        kind,
        teamId: team.teamId,
        grantId,
        familyId,
        resource,
        sealed: null,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + ttl).toISOString(),
        usedAt: null,
      };
      return { value, row };
    };
    return { access: token("access", ACCESS_TOKEN_TTL_MS), refresh: token("refresh", REFRESH_TOKEN_TTL_MS) };
  }

  /** Housekeeping, not waited for: a storage fault here must not fail the token request that set it off. */
  #sweep(): void {
    const now = this.deps.clock.now();
    if (now.getTime() - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now.getTime();
    void this.deps.storage.oauth.sweep(now.toISOString()).catch(() => undefined);
  }

  /** The authorization code grant: a code, its PKCE verifier and the client that asked for it. */
  async exchangeCode(
    input: { code: string; codeVerifier: string; redirectUri: string | null; resource: string | null },
    credentials: ClientCredentials,
    resource: string,
  ): Promise<TokenAnswer> {
    const client = await this.clients.authenticate(credentials);
    if (!VERIFIER.test(input.codeVerifier))
      throw new OAuthError("invalid_request", "code_verifier is missing or malformed.");
    if (input.resource !== null && input.resource !== resource)
      throw new OAuthError("invalid_target", "resource is not this server's /mcp URL.");
    const { team, token, scope, hash, invalid } = await this.#tokenWithGrant("code", input.code);
    if (token.sealed === null || token.resource !== resource) throw invalid();
    const content = await openOrNull(openCode(team, hash, token.sealed));
    if (!content || content.clientId !== client.clientId) throw invalid();
    if (input.redirectUri !== null && input.redirectUri !== content.redirectUri)
      throw new OAuthError("invalid_grant", "redirect_uri is not the one the code was issued for.");
    if ((await challengeOf(input.codeVerifier)) !== content.codeChallenge)
      throw new OAuthError("invalid_grant", "code_verifier does not match the code's challenge.");
    return this.#spend(team, token, scope, resource, "code");
  }

  /** The refresh token grant: the token is spent on a new pair of the same family. */
  async refresh(
    input: { refreshToken: string; resource: string | null; scope: string | null },
    credentials: ClientCredentials,
    resource: string,
  ): Promise<TokenAnswer> {
    const client = await this.clients.authenticate(credentials);
    if (input.resource !== null && input.resource !== resource)
      throw new OAuthError("invalid_target", "resource is not this server's /mcp URL.");
    const { team, token, grant, scope, invalid } = await this.#tokenWithGrant("refresh", input.refreshToken);
    if (token.resource !== resource || !grant) throw invalid();
    const content = await openOrNull(openGrant(team, grant.id, grant.sealed));
    if (content?.clientId !== client.clientId) throw invalid();
    // Other names (`offline_access`, none) ask nothing of memoria's scopes; only `write` over a read approval widens.
    if (input.scope?.split(" ").includes("write") && grant.scope === "read")
      throw new OAuthError("invalid_scope", "A refresh cannot widen the approved scope.");
    return this.#spend(team, token, scope, resource, "refresh");
  }

  /**
   * Spends a code or refresh token on a new pair, in one transaction; a spent one presented again ends its
   * family. `scope` is the approval's as read with the token (null when it is no longer live: the spend then
   * finds it so too, and refuses).
   */
  async #spend(
    team: TeamKey,
    row: TokenRow,
    scope: string | null,
    resource: string,
    kind: "code" | "refresh",
  ): Promise<TokenAnswer> {
    this.#sweep();
    const pair = this.#pair(team, row.grantId, row.familyId, resource);
    const now = this.deps.clock.now().toISOString();
    const actor: Actor = { kind: "oauth", id: row.grantId };
    const [event] =
      kind === "refresh"
        ? await sealAuditEvents(team, actor, [events.clientRefreshed(row.grantId)], now)
        : [];
    const outcome = await this.deps.storage.oauth.exchange(
      { hash: row.hash, teamId: team.teamId, kind },
      { access: pair.access.row, refresh: pair.refresh.row },
      now,
      event ?? null,
    );
    if (outcome.kind === "replayed") {
      this.#access.forgetKey(outcome.grantId);
      const [replayed] = await sealAuditEvents(team, actor, [events.clientReplayed(outcome.grantId)], now);
      if (replayed) await this.deps.storage.audit.append([replayed]);
    }
    if (outcome.kind !== "issued")
      throw new OAuthError(
        "invalid_grant",
        `The ${kind === "code" ? "code" : "refresh token"} is not valid.`,
      );
    return {
      access_token: pair.access.value,
      token_type: "Bearer",
      expires_in: Math.floor(ACCESS_TOKEN_TTL_MS / 1000),
      refresh_token: pair.refresh.value,
      scope: scope === "write" ? "write" : "read",
    };
  }

  /**
   * Revocation (RFC 7009): an access or refresh token of this client ends its family. Unknown tokens are
   * answered the same as known ones, as the RFC says, so the endpoint tells nothing.
   */
  async revoke(token: string, credentials: ClientCredentials): Promise<void> {
    const client = await this.clients.authenticate(credentials);
    const kind = teamIdOfOAuthToken("refresh", token) ? "refresh" : "access";
    const teamId = teamIdOfOAuthToken(kind, token);
    const found = teamId ? await this.deps.storage.oauth.tokenWithGrant(teamId, hashSecretNow(token)) : null;
    if (!teamId || !found?.grant || found.token.kind === "code") return;
    const team = await this.deps.teams.openTeamKey(teamId, found.wrappedKey);
    const content = await openOrNull(openGrant(team, found.grant.id, found.grant.sealed));
    if (content?.clientId !== client.clientId) return;
    await this.deps.storage.oauth.endFamily(found.token.familyId);
    this.#access.forgetKey(found.grant.id);
    const now = this.deps.clock.now().toISOString();
    const [event] = await sealAuditEvents(
      team,
      { kind: "oauth", id: found.grant.id },
      [events.clientSignedOut(found.grant.id)],
      now,
    );
    if (event) await this.deps.storage.audit.append([event]);
  }

  /**
   * What a bearer access token may do now, or null: unknown, expired, for another resource, its approval revoked
   * or its member removed. Its scope is the approval's, capped by the member's role now.
   */
  async authenticateAccess(token: string, resource: string): Promise<OAuthAccess | null> {
    const teamId = teamIdOfOAuthToken("access", token);
    if (!teamId) return null;
    const hash = hashSecretNow(token);
    const now = this.deps.clock.now().getTime();
    const cached = this.#access.get(hash, now);
    if (cached) return accessOf(cached, teamId, resource, now);
    const generation = this.#access.generation;
    let live: Awaited<ReturnType<Storage["oauth"]["liveAccess"]>>;
    try {
      live = await this.deps.storage.oauth.liveAccess(teamId, hash, new Date(now).toISOString());
    } catch (error) {
      // Storage away: a token this instance checked keeps answering searches of a loaded team, as keys do.
      const known = isDomainError(error, "unavailable") ? this.#access.lastKnown(hash) : null;
      if (!known) throw error;
      return accessOf(known, teamId, resource, now);
    }
    if (!live) return null;
    if (!isRole(live.role)) return null;
    const scope = cappedScope(live.scope, live.role);
    const team = await this.deps.teams.openTeamKey(teamId, live.wrappedKey);
    const entry: CachedAccess = {
      keyId: live.grantId,
      team,
      scope,
      expiresAt: Date.parse(live.expiresAt),
      resource: live.resource,
      memberId: live.memberId,
    };
    this.#access.set(hash, entry, now, generation);
    return accessOf(entry, teamId, resource, now);
  }

  /** The team's live approvals, with each client's name and where it is sent back. */
  async approvals(team: TeamKey): Promise<Approval[]> {
    const rows = await this.deps.storage.oauth.grants(team.teamId);
    return Promise.all(
      rows.map(async (row) => {
        const content = await openOrNull(openGrant(team, row.id, row.sealed));
        return {
          id: row.id,
          clientId: content?.clientId ?? null,
          name: content?.clientName ?? null,
          redirectHost: content?.redirectHost ?? null,
          memberId: row.memberId,
          scope: row.scope,
          approvedAt: row.createdAt,
          lastUsedAt: row.lastUsedAt,
        };
      }),
    );
  }

  /** The names of the team's clients by approval id, revoked ones too, for the audit trail. */
  async names(team: TeamKey): Promise<Map<string, string | null>> {
    const rows = await this.deps.storage.oauth.everyGrant(team.teamId);
    const named = await Promise.all(
      rows.map(async (row) => {
        const content = await openOrNull(openGrant(team, row.id, row.sealed));
        return [row.id, content?.clientName ?? null] as const;
      }),
    );
    return new Map(named);
  }

  /**
   * Revokes an approval: its tokens are deleted in the same transaction, so the client is refused at its next
   * request. `onlyOf` limits it to one member's own (a member revoking on the page). False when not live.
   */
  async revokeApproval(team: TeamKey, grantId: string, by: Actor, onlyOf?: string): Promise<boolean> {
    if (onlyOf !== undefined) {
      const grant = await this.deps.storage.oauth.grant(team.teamId, grantId);
      if (!grant || grant.memberId !== onlyOf) return false;
    }
    const now = this.deps.clock.now().toISOString();
    const [event] = await sealAuditEvents(team, by, [events.clientRevoked(grantId)], now);
    const revoked = await this.deps.storage.oauth.revokeGrant(team.teamId, grantId, now, event ?? null);
    this.#access.forgetKey(grantId);
    return revoked;
  }
}
