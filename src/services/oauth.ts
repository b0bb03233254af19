// memoria as the OAuth 2.1 authorization server of its own /mcp (the MCP authorization specification): a
// member approves a client at most their role's scope; the client exchanges a code with PKCE (S256 only) for a
// one-hour access token and a refresh token that rotates on every use; a spent code or refresh token presented
// again ends its whole family. Every token is bound to memoria's /mcp URL (RFC 8707) and checked against the
// approval and the member on every request, so a removal or a revocation ends access at once. Decision 0105
// says why this narrow profile is written here rather than taken from a library.

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
import { generateSecret, tokensEqual } from "../seal/secret.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import { sealAuditEvents } from "../sealed/audit.js";
import {
  openCode,
  openGrant,
  openRegisteredClient,
  type RegisteredClient,
  sealCode,
  sealGrant,
  sealRegisteredClient,
} from "../sealed/oauth.js";
import { openOrNull } from "../sealed/readable.js";
import type { TokenRow } from "../store/oauth.js";
import type { Storage } from "../store/storage.js";
import {
  type ClientMetadataDocument,
  type ClientMetadataFetcher,
  isClientMetadataUrl,
} from "./client-metadata.js";
import type { MemberService, SignedInMember } from "./members.js";
import { type CachedKey, TeamKeyCache } from "./team-key-cache.js";
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
/** Expired codes and tokens are cleared at most this often, as tokens are issued. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** A client that names no scope memoria knows is offered `write`, the most a connector can hold. */
const DEFAULT_SCOPE: OAuthScope = "write";

/** A PKCE verifier (RFC 7636 §4.1): 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** A challenge is the base64url of a SHA-256: 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** A client as memoria knows it: from its metadata document, or carried in the id it registered for. */
export interface OAuthClient {
  clientId: string;
  /**
   * `document`: its id is an https URL whose host vouches for it; `registered`: it registered itself here, and its
   * name is only its own claim.
   */
  kind: "document" | "registered";
  name: string;
  redirectUris: string[];
  auth: RegisteredClient["auth"];
}

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

/** A client's credentials at the token and revocation endpoints: its id, and its secret if it has one. */
export interface ClientCredentials {
  clientId: string | null;
  clientSecret: string | null;
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

/** A client asking to register (RFC 7591 §2), as sent. */
export interface RegistrationRequest {
  redirect_uris: string[];
  client_name?: string;
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  response_types?: string[];
}

export interface OAuthDeps {
  storage: Storage;
  clock: Clock;
  keyring: Keyring;
  teams: Pick<TeamService, "openTeamKey" | "whenTeamKeysForgotten">;
  members: Pick<MemberService, "names">;
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

/** Loopback hosts, where a native client listens on a port of its own choosing (RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Whether `given` is one of a client's registered redirect URIs: compared exactly, except that a loopback URI's
 * port may differ (OAuth 2.1 §8.4.2: a native app's port is picked when it starts).
 */
export function redirectUriMatches(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  if (!URL.canParse(given)) return false;
  const url = new URL(given);
  if (url.protocol !== "http:" || !LOOPBACK_HOSTS.has(url.hostname)) return false;
  return registered.some((entry) => {
    if (!URL.canParse(entry)) return false;
    const candidate = new URL(entry);
    if (candidate.protocol !== "http:" || candidate.hostname !== url.hostname) return false;
    candidate.port = url.port;
    return candidate.href === url.href;
  });
}

/**
 * A redirect URI a client may register: https anywhere; http only to a loopback host; or a private scheme of a
 * native app (`cursor://…`, RFC 8252 §7.1). Never a fragment, never a script or data URL.
 */
export function acceptableRedirectUri(uri: string): boolean {
  if (uri.length > 2000 || !URL.canParse(uri)) return false;
  const url = new URL(uri);
  if (url.hash !== "") return false;
  if (url.protocol === "https:") return true;
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname);
  // An app's own scheme (RFC 8252 §7.1 asks for a reverse domain name, but Cursor's is `cursor:`); the ones a
  // browser runs itself are refused.
  const scheme = url.protocol.slice(0, -1);
  return !["javascript", "data", "file", "blob", "about", "vbscript", "ftp", "ws", "wss"].includes(scheme);
}

/**
 * Where a redirect URI sends a person, as the consent page and the app list say it: a web address's host; for an
 * app's own scheme, only that it is an app on their device (what follows `scheme://` is whatever the app wrote,
 * and names no site).
 */
export function whereBack(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.protocol === "https:" || url.protocol === "http:") return url.host;
  return `an app on this device (${url.protocol})`;
}

/**
 * The record a registration seals into its client id, at most: a client id travels in every authorization URL
 * and the return cookie, so it must stay well under a URL's and a cookie's 4 KiB. Ten long redirect URIs would
 * not; real clients register one to three.
 */
const MAX_REGISTRATION_BYTES = 2048;

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

/**
 * An access token as checked: its approval (as `keyId`), the scope it had then, its expiry, the resource it is
 * bound to (as `name`) and its member (as `owner`), held for MEMORIA_CATCHUP_MS as keys are (team-key-cache.ts).
 */
function accessOf(entry: CachedKey, teamId: string, resource: string, now: number): OAuthAccess | null {
  if (entry.team.teamId !== teamId || entry.name !== resource) return null;
  if (entry.expiresAt !== null && entry.expiresAt <= now) return null;
  return { team: entry.team, scope: entry.scope, grantId: entry.keyId, memberId: entry.owner ?? "" };
}

export class OAuthService {
  #lastSweep = 0;
  /**
   * Access tokens checked lately, by hash, so /mcp does not pay a storage round trip on every call (measured
   * in `--suites oauth`, decision 0105). A revocation, a family ended, or a member removed or given a smaller
   * role on this instance forgets them at once; another instance holds one at most MEMORIA_CATCHUP_MS.
   */
  readonly #access: TeamKeyCache;

  constructor(private readonly deps: OAuthDeps) {
    this.#access = new TeamKeyCache(deps.accessCacheMs);
    deps.teams.whenTeamKeysForgotten((teamId) => this.#access.forgetTeam(teamId));
  }

  /** Registers a client (RFC 7591): nothing is stored; its record is sealed into the client id it is given. */
  async register(
    request: RegistrationRequest,
  ): Promise<{ client: OAuthClient; clientSecret: string | null; issuedAt: number }> {
    const method = request.token_endpoint_auth_method ?? "client_secret_basic";
    if (!["none", "client_secret_basic", "client_secret_post"].includes(method))
      throw new OAuthError(
        "invalid_client_metadata",
        "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post.",
      );
    for (const grant of request.grant_types ?? ["authorization_code"])
      if (grant !== "authorization_code" && grant !== "refresh_token")
        throw new OAuthError(
          "invalid_client_metadata",
          "grant_types may name authorization_code and refresh_token only.",
        );
    for (const type of request.response_types ?? ["code"])
      if (type !== "code")
        throw new OAuthError("invalid_client_metadata", "response_types may name code only.");
    if (!request.redirect_uris.every(acceptableRedirectUri))
      throw new OAuthError(
        "invalid_redirect_uri",
        "Each redirect URI must be https, http to a loopback host, or an app's own scheme, with no fragment.",
      );
    const issuedAt = Math.floor(this.deps.clock.now().getTime() / 1000);
    const clientSecret = method === "none" ? null : generateSecret();
    const record: RegisteredClient = {
      name: request.client_name?.trim() || "An unnamed client",
      redirectUris: request.redirect_uris,
      auth:
        clientSecret === null
          ? { method: "none" }
          : {
              method: method as "client_secret_basic" | "client_secret_post",
              secretHash: hashSecretNow(clientSecret),
            },
      issuedAt,
    };
    if (new TextEncoder().encode(JSON.stringify(record)).length > MAX_REGISTRATION_BYTES)
      throw new OAuthError(
        "invalid_client_metadata",
        "The registration is too large: register fewer or shorter redirect URIs.",
      );
    const clientId = await sealRegisteredClient(this.deps.keyring, record);
    return {
      client: {
        clientId,
        kind: "registered",
        name: record.name,
        redirectUris: record.redirectUris,
        auth: record.auth,
      },
      clientSecret,
      issuedAt,
    };
  }

  /** A client by its id: a metadata document's URL is fetched (bounded, cached); a registered id is opened. */
  async client(clientId: string): Promise<OAuthClient> {
    if (isClientMetadataUrl(clientId)) {
      let document: ClientMetadataDocument;
      try {
        document = await this.deps.clientMetadata.fetch(clientId);
      } catch (error) {
        // One sentence whatever the reason: anyone may name any URL here, and the reasons (a status, a time
        // out, a refused address) would map hosts and ports that are not theirs to know.
        if (isDomainError(error))
          throw new OAuthError(
            "invalid_client",
            "This client's metadata document could not be fetched, or does not hold.",
          );
        throw error;
      }
      if (!document.redirect_uris.every(acceptableRedirectUri))
        throw new OAuthError(
          "invalid_client",
          "This client's metadata document names a redirect URI not allowed here.",
        );
      return {
        clientId,
        kind: "document",
        name: document.client_name?.trim() || new URL(clientId).host,
        redirectUris: document.redirect_uris,
        auth: { method: "none" },
      };
    }
    const record = await openRegisteredClient(this.deps.keyring, clientId);
    if (!record) throw new OAuthError("invalid_client", "This client is not known here; register it again.");
    return {
      clientId,
      kind: "registered",
      name: record.name,
      redirectUris: record.redirectUris,
      auth: record.auth,
    };
  }

  /**
   * The client and redirect URI of an authorization request: what must hold before anything may be sent back
   * to the client. Throws OAuthError, to be shown to the person, never sent to an unchecked redirect URI.
   */
  async authorizationTarget(
    params: AuthorizationParams,
  ): Promise<{ client: OAuthClient; redirectUri: string }> {
    if (!params.client_id) throw new OAuthError("invalid_request", "client_id is missing.");
    const client = await this.client(params.client_id);
    const redirectUri = params.redirect_uri;
    if (!redirectUri) throw new OAuthError("invalid_request", "redirect_uri is missing.");
    if (!redirectUriMatches(client.redirectUris, redirectUri))
      throw new OAuthError("invalid_request", "redirect_uri is not one this client registered.");
    return { client, redirectUri };
  }

  /**
   * The rest of an authorization request, once its target holds; an OAuthError here goes back to the client's
   * redirect URI.
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
    if (params.state !== undefined && params.state.length > 2000)
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
    const now = this.deps.clock.now();
    const clientRef = await grantRef(team, request.client.clientId);
    const existing = await this.deps.storage.oauth.grantOf(team.teamId, member.memberId, clientRef);
    const grantId = existing?.id ?? newId("g");
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
    const stored =
      event &&
      (await this.deps.storage.oauth.approve(
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
        existing !== null,
        codeRow,
        rolesAllowing(granted),
        event,
      ));
    if (!stored)
      throw new OAuthError("access_denied", "Your membership changed while approving; sign in again.");
    return this.redirect(request.redirectUri, { code, state: request.state, iss: issuer });
  }

  /** The redirect URI with an answer's parameters added to its query. */
  redirect(redirectUri: string, params: Record<string, string | null>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
    return url.href;
  }

  /** Checks a client's credentials against what it registered: none for a public client, else its secret. */
  async #authenticate(credentials: ClientCredentials): Promise<OAuthClient> {
    if (!credentials.clientId) throw new OAuthError("invalid_client", "client_id is missing.");
    let client: OAuthClient;
    try {
      client = await this.client(credentials.clientId);
    } catch (error) {
      if (error instanceof OAuthError) throw new OAuthError("invalid_client", error.description);
      throw error;
    }
    if (client.auth.method === "none") {
      if (credentials.clientSecret !== null)
        throw new OAuthError("invalid_client", "This client registered without a secret.");
      return client;
    }
    if (
      credentials.clientSecret === null ||
      !(await tokensEqual(hashSecretNow(credentials.clientSecret), client.auth.secretHash))
    )
      throw new OAuthError("invalid_client", "The client's secret is missing or wrong.");
    return client;
  }

  /**
   * A code or refresh token of `kind`, with its team's opened key and its approval (null when not live), in one
   * read; invalid_grant when it names no team or is not there.
   */
  async #spendable(kind: "code" | "refresh", token: string) {
    const invalid = () =>
      new OAuthError("invalid_grant", `The ${kind === "code" ? "code" : "refresh token"} is not valid.`);
    const teamId = teamIdOfOAuthToken(kind, token);
    if (!teamId) throw invalid();
    const hash = hashSecretNow(token);
    const found = await this.deps.storage.oauth.spendable(teamId, hash);
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

  async #sweep(): Promise<void> {
    const now = this.deps.clock.now();
    if (now.getTime() - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now.getTime();
    await this.deps.storage.oauth.sweep(now.toISOString());
  }

  /** The authorization code grant: a code, its PKCE verifier and the client that asked for it. */
  async exchangeCode(
    input: { code: string; codeVerifier: string; redirectUri: string | null; resource: string | null },
    credentials: ClientCredentials,
    resource: string,
  ): Promise<TokenAnswer> {
    const client = await this.#authenticate(credentials);
    if (!VERIFIER.test(input.codeVerifier))
      throw new OAuthError("invalid_request", "code_verifier is missing or malformed.");
    if (input.resource !== null && input.resource !== resource)
      throw new OAuthError("invalid_target", "resource is not this server's /mcp URL.");
    const { team, token, scope, hash, invalid } = await this.#spendable("code", input.code);
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
    const client = await this.#authenticate(credentials);
    if (input.resource !== null && input.resource !== resource)
      throw new OAuthError("invalid_target", "resource is not this server's /mcp URL.");
    const { team, token, grant, scope, invalid } = await this.#spendable("refresh", input.refreshToken);
    if (token.resource !== resource || !grant) throw invalid();
    const content = await openOrNull(openGrant(team, grant.id, grant.sealed));
    if (content?.clientId !== client.clientId) throw invalid();
    if (input.scope !== null && askedScope(input.scope) === "write" && grant.scope === "read")
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
    await this.#sweep();
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
    const client = await this.#authenticate(credentials);
    const kind = teamIdOfOAuthToken("refresh", token) ? "refresh" : "access";
    const teamId = teamIdOfOAuthToken(kind, token);
    const found = teamId ? await this.deps.storage.oauth.spendable(teamId, hashSecretNow(token)) : null;
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
    const entry: CachedKey = {
      keyId: live.grantId,
      team,
      scope,
      expiresAt: Date.parse(live.expiresAt),
      name: live.resource,
      owner: live.memberId,
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
