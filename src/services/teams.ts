// Teams, their API keys and their key material: making a team, authenticating a team key, and destroying a
// team (key first, then rows). A key authenticated lately is answered from memory (team-key-cache.ts says for
// how long, and why a revocation still takes effect at once here).

import { formatApiKey, teamIdOfApiKey } from "../api-key.js";
import type { Clock } from "../clock.js";
import { DomainError, isDomainError } from "../errors.js";
import { newId, teamIdPattern } from "../ids.js";
import type { LiveIndexes } from "../live/indexes.js";
import { roles, scopeOfRole } from "../role.js";
import { allows, isScope, type Scope } from "../scope.js";
import type { Keyring } from "../seal/keyring.js";
import { generateSecret } from "../seal/secret.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import type { TeamKey } from "../seal/team-key.js";
import { openKey, sealKey } from "../sealed-rows/keys.js";
import { openOrNull, openReadable } from "../sealed-rows/readable.js";
import { openTeam, sealTeam } from "../sealed-rows/teams.js";
import type { Storage } from "../store/storage.js";
import type { ApiKeyRow } from "../store/teams.js";
import { type CachedKey, TeamKeyCache } from "./team-key-cache.js";

export interface Team {
  id: string;
  name: string;
  createdAt: string;
}

export interface ApiKeyInfo {
  keyId: string;
  scope: Scope;
  createdAt: string;
  revokedAt: string | null;
}

/** A key as its team sees it (GET /v1/keys): never its secret. */
export interface TeamKeyInfo extends ApiKeyInfo {
  /** Null for a key made without a name (the team's first key, keys made with the admin token). */
  name: string | null;
  /** The member who made it; null for a key made by a key or the admin token. */
  owner: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** A presented key that authenticated: its team's opened key, what the key may do, and its name. */
export interface AuthenticatedKey {
  team: TeamKey;
  keyId: string;
  scope: Scope;
  /** Null for a key made without a name (a team's first key), or one whose name does not open. */
  name: string | null;
  /**
   * The member who made it, or who made the key that made it: what such a key makes is theirs too, so removing
   * them takes all of it. Null for a key no member made.
   */
  owner: string | null;
}

export interface NewKeyInput {
  name: string;
  scope: Scope;
  /** ISO 8601; must be later than now. */
  expiresAt?: string | undefined;
  /** Or how long from now (the page's lifetimes); ignored when expiresAt is given. */
  lifetimeMs?: number | undefined;
}

/**
 * A key's last use is written when storage is asked about the key (at most once a MEMORIA_CATCHUP_MS on each
 * instance, as the key cache holds it between) and the stored time is older than this: one small write a
 * minute for a busy key, not one a request. `lastUsedAt` is therefore exact to about a minute.
 */
export const LAST_USE_EVERY_MS = 60_000;

/**
 * Storage keeps whatever a row says; a scope this code does not know grants nothing. A newer memoria's
 * scopes would come with a newer schema, which stops this code's start (store/migrate.ts), so such a row
 * was altered behind memoria's back.
 */
function scopeOf(row: { scope: string }): Scope | null {
  return isScope(row.scope) ? row.scope : null;
}
export interface TeamDeps {
  storage: Storage;
  keyring: Keyring;
  clock: Clock;
  indexes: LiveIndexes;
  /**
   * How long a key storage answered as live is taken as live without asking again (MEMORIA_CATCHUP_MS in
   * the app); 0 asks storage on every request.
   */
  keyCacheMs: number;
}

export class TeamService {
  readonly #keys: TeamKeyCache;
  readonly #forgetListeners: ((teamId: string) => void)[] = [];

  constructor(private readonly deps: TeamDeps) {
    this.#keys = new TeamKeyCache(deps.keyCacheMs);
  }

  /** A new team and its first key; `teamKey` is its opened key, for the caller's own use, never an answer. */
  async create(name: string): Promise<{ team: Team; keyId: string; apiKey: string; teamKey: TeamKey }> {
    const { storage, keyring, clock } = this.deps;
    const id = newId("t");
    const createdAt = clock.now().toISOString();
    const { key, wrapped } = await keyring.create(id);
    const secret = generateSecret();
    const apiKey = formatApiKey(id, secret);
    const keyId = newId("k");
    await storage.teams.insert(
      { id, sealed: await sealTeam(key, id, { name }), wrappedKey: wrapped, createdAt },
      {
        id: keyId,
        teamId: id,
        secretHash: hashSecretNow(apiKey),
        scope: "admin",
        createdAt,
        expiresAt: null,
        sealed: null,
      },
    );
    return { team: { id, name, createdAt }, keyId, apiKey, teamKey: key };
  }

  /**
   * Every team whose key and name open, and how many did not (a wrong master key, a row altered or moved):
   * one bad team does not hide the others, and the answer says it is there.
   */
  async list(): Promise<{ teams: Team[]; unreadable: number }> {
    const rows = await this.deps.storage.teams.list();
    const { values, unreadable } = await openReadable(rows, async (row) => {
      const key = await this.#openKey(row.id, row.wrappedKey);
      const { name } = await openTeam(key, row.id, row.sealed);
      return { id: row.id, name, createdAt: row.createdAt };
    });
    return { teams: values, unreadable };
  }

  async listKeys(teamId: string): Promise<ApiKeyInfo[]> {
    await this.#requireTeam(teamId);
    const keys = await this.deps.storage.teams.listKeys(teamId);
    return keys.flatMap((k) => {
      const scope = scopeOf(k);
      return scope ? [{ keyId: k.id, scope, createdAt: k.createdAt, revokedAt: k.revokedAt }] : [];
    });
  }

  /** Another `admin` key for a team (the admin token's route): unnamed, never expiring, as keys always were. */
  async createKey(teamId: string): Promise<{ keyId: string; apiKey: string }> {
    await this.#requireTeam(teamId);
    return this.#insertKey(teamId, { scope: "admin", expiresAt: null, sealed: () => Promise.resolve(null) });
  }

  /**
   * A key a team makes for itself (POST /v1/keys, or a member on the page): named, scoped, perhaps expiring.
   * A member makes keys at most their own role's scope, and owns them: removing the member revokes them.
   */
  async makeKey(
    team: TeamKey,
    input: NewKeyInput,
    owner: { memberId: string; scope: Scope } | null = null,
    /** The key making it, when a key does (stored only if that key is not revoked by then). */
    madeBy: string | null = null,
  ): Promise<{ keyId: string; apiKey: string }> {
    if (owner && !allows(owner.scope, input.scope)) {
      throw new DomainError(
        "forbidden",
        `A ${input.scope} key is more than your role may make; you may make keys up to the ${owner.scope} scope.`,
      );
    }
    let expiresAt: string | null = null;
    if (input.expiresAt === undefined && input.lifetimeMs !== undefined) {
      expiresAt = new Date(this.deps.clock.now().getTime() + input.lifetimeMs).toISOString();
    } else if (input.expiresAt !== undefined) {
      const at = Date.parse(input.expiresAt);
      if (!Number.isFinite(at) || at <= this.deps.clock.now().getTime()) {
        throw new DomainError("invalid_request", "expiresAt must be a time in the future.");
      }
      expiresAt = new Date(at).toISOString();
    }
    return this.#insertKey(team.teamId, {
      scope: input.scope,
      expiresAt,
      sealed: (keyId) => sealKey(team, keyId, { name: input.name }),
      owner: owner?.memberId ?? null,
      ownerRoles: roles.filter((role) => allows(scopeOfRole(role), input.scope)),
      madeBy,
    });
  }

  /**
   * The team's keys, oldest first, revoked and expired ones included, so a person sees every key that ever
   * was. A key whose name does not open is listed with no name rather than left out: a live key must stay
   * visible to be revoked.
   */
  async keysOf(team: TeamKey): Promise<TeamKeyInfo[]> {
    const rows = await this.deps.storage.teams.listKeys(team.teamId);
    const listed = await Promise.all(
      rows.map(async (row) => {
        const scope = scopeOf(row);
        if (!scope) return null;
        const opened = row.sealed ? await openOrNull(openKey(team, row.id, row.sealed)) : null;
        return keyInfo(row, scope, opened?.name ?? null);
      }),
    );
    return listed.filter((key): key is TeamKeyInfo => key !== null);
  }

  /**
   * Revokes one of the team's own keys (DELETE /v1/keys/{keyId}); the key that asked proved the team is
   * there. True when this call revoked it, false when it was revoked already.
   */
  async revokeOwnKey(team: TeamKey, keyId: string): Promise<boolean> {
    return this.#revoke(team.teamId, keyId);
  }

  async #insertKey(
    teamId: string,
    key: {
      scope: Scope;
      expiresAt: string | null;
      sealed: (keyId: string) => Promise<Uint8Array | null>;
      owner?: string | null;
      /** The roles its owner must still hold for it to be stored. */
      ownerRoles?: readonly string[];
      madeBy?: string | null;
    },
  ): Promise<{ keyId: string; apiKey: string }> {
    const apiKey = formatApiKey(teamId, generateSecret());
    const keyId = newId("k");
    const stored = await this.deps.storage.teams.insertKey(
      {
        id: keyId,
        teamId,
        secretHash: hashSecretNow(apiKey),
        scope: key.scope,
        createdAt: this.deps.clock.now().toISOString(),
        expiresAt: key.expiresAt,
        sealed: await key.sealed(keyId),
        owner: key.owner ?? null,
      },
      key.ownerRoles,
      key.madeBy ?? null,
    );
    if (!stored)
      throw new DomainError(
        "forbidden",
        "The role or key that made this key changed while it was being made: it was not made.",
      );
    return { keyId, apiKey };
  }

  /** Revokes a key of a team named by id (the admin token's route); as revokeOwnKey answers. */
  async revokeKey(teamId: string, keyId: string): Promise<boolean> {
    await this.#requireTeam(teamId);
    return this.#revoke(teamId, keyId);
  }

  async #revoke(teamId: string, keyId: string): Promise<boolean> {
    const revoked = await this.deps.storage.teams.revokeKey(
      teamId,
      keyId,
      this.deps.clock.now().toISOString(),
    );
    if (!revoked) throw new DomainError("not_found", `No key ${keyId} in team ${teamId}.`);
    // Committed: from the next request on, this instance asks storage, which refuses the key.
    this.#keys.forgetKey(keyId);
    return revoked === "revoked";
  }

  /**
   * Forgets every key of the team this instance holds as checked, so the next use of each asks storage again:
   * after keys were revoked in another change's transaction (a member removed or given a smaller role).
   */
  forgetTeamKeys(teamId: string): void {
    this.#keys.forgetTeam(teamId);
    for (const listener of this.#forgetListeners) listener(teamId);
  }

  /**
   * Calls `listener` whenever this instance forgets a team's keys (a member removed or re-roled, the team
   * deleted): the OAuth tokens it holds as checked are forgotten with them.
   */
  whenTeamKeysForgotten(listener: (teamId: string) => void): void {
    this.#forgetListeners.push(listener);
  }

  /**
   * Destroys the team's key material first (its rows are unreadable from that commit on), then forgets the
   * opened key and the in-memory index, then deletes the rows. Forgetting only after the commit means a
   * request racing the delete cannot open the key again and rebuild an index that outlives the team.
   */
  async delete(teamId: string): Promise<void> {
    const { storage, keyring, indexes } = this.deps;
    if (!teamIdPattern.test(teamId) || !(await storage.teams.deleteKeyMaterial(teamId))) {
      throw new DomainError("not_found", `No team ${teamId}.`);
    }
    keyring.forget(teamId);
    this.forgetTeamKeys(teamId);
    indexes.drop(teamId);
    await storage.teams.deleteRows(teamId);
  }

  /**
   * The team a presented API key belongs to, with its opened key and the key's scope; null for anything not a
   * live key (unknown, revoked, expired, another team's). `secretHash` is the key's hashSecretNow, when the
   * caller already has it (the HTTP edge hashes once).
   */
  async authenticateKey(
    apiKey: string,
    secretHash = hashSecretNow(apiKey),
  ): Promise<AuthenticatedKey | null> {
    const teamId = teamIdOfApiKey(apiKey);
    if (!teamId) return null;
    const now = this.deps.clock.now().getTime();
    const cached = this.#keys.get(secretHash, now);
    if (cached) return liveFor(cached, teamId, now);
    const generation = this.#keys.generation;
    let match: Awaited<ReturnType<Storage["teams"]["findKey"]>>;
    try {
      match = await this.deps.storage.teams.findKey(secretHash);
    } catch (error) {
      const known = isDomainError(error, "unavailable") ? this.#keys.lastKnown(secretHash) : null;
      if (!known) throw error;
      return liveFor(known, teamId, now);
    }
    const scope = match ? scopeOf(match) : null;
    if (!match || match.teamId !== teamId || !scope) return null;
    const expiresAt = match.expiresAt === null ? null : Date.parse(match.expiresAt);
    if (expired(expiresAt, now)) return null;
    const team = await this.#openKey(teamId, match.wrappedKey);
    // Opened once a lookup and kept with the key: the page names the key a person signed in with.
    const name = match.sealed
      ? ((await openOrNull(openKey(team, match.id, match.sealed)))?.name ?? null)
      : null;
    const key: CachedKey = { keyId: match.id, team, scope, expiresAt, name, owner: match.owner };
    this.#keys.set(secretHash, key, now, generation);
    // A time that does not parse (a row altered by hand) is written anew.
    if (match.lastUsedAt === null || !(now - Date.parse(match.lastUsedAt) < LAST_USE_EVERY_MS)) {
      // Not waited for: the answer does not depend on it, and a storage that refuses the write (read-only, a
      // fault) must not refuse the key. A lost write only leaves lastUsedAt a minute or so behind.
      void this.deps.storage.teams.touchKey(match.id, new Date(now).toISOString()).catch(() => undefined);
    }
    return { team, keyId: key.keyId, scope, name, owner: key.owner };
  }

  /** authenticateKey's team key alone, for callers that only need to open the team's rows. */
  async authenticate(apiKey: string): Promise<TeamKey | null> {
    return (await this.authenticateKey(apiKey))?.team ?? null;
  }

  /**
   * The opened key of a team named by id alone (a webhook's path, a reindex ping), null for no such team.
   * Callers authenticate the request by other means (a signature, the cron token) before using it.
   */
  async teamKey(teamId: string): Promise<TeamKey | null> {
    if (!teamIdPattern.test(teamId)) return null;
    const row = await this.deps.storage.teams.get(teamId);
    return row ? this.#openKey(teamId, row.wrappedKey) : null;
  }

  /**
   * A team's key opened from its wrapped form already read with another row (a member found by address), so
   * finding and opening cost the same round trips whoever is found.
   */
  async openTeamKey(teamId: string, wrapped: Uint8Array): Promise<TeamKey> {
    return this.#openKey(teamId, wrapped);
  }

  /** The team's own record, opened with its key (the page's start names the team). */
  async get(key: TeamKey): Promise<Team> {
    const row = await this.deps.storage.teams.get(key.teamId);
    if (!row) throw new DomainError("not_found", `No team ${key.teamId}.`);
    const { name } = await openTeam(key, row.id, row.sealed);
    return { id: row.id, name, createdAt: row.createdAt };
  }

  async #requireTeam(teamId: string): Promise<void> {
    if (!teamIdPattern.test(teamId) || !(await this.deps.storage.teams.get(teamId))) {
      throw new DomainError("not_found", `No team ${teamId}.`);
    }
  }

  async #openKey(teamId: string, wrapped: Uint8Array): Promise<TeamKey> {
    const { key, rewrapped } = await this.deps.keyring.open(teamId, wrapped);
    if (rewrapped) await this.deps.storage.teams.replaceWrappedKey(teamId, rewrapped);
    return key;
  }
}

/** Whether a key with this expiry (epoch ms, null for none) has stopped; one that does not parse has. */
function expired(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && !(now < expiresAt);
}

/** A cached key, if it is still live for this team at `now`. */
function liveFor(key: CachedKey, teamId: string, now: number): AuthenticatedKey | null {
  if (key.team.teamId !== teamId) return null;
  if (expired(key.expiresAt, now)) return null;
  return { team: key.team, keyId: key.keyId, scope: key.scope, name: key.name, owner: key.owner };
}

function keyInfo(row: ApiKeyRow, scope: Scope, name: string | null): TeamKeyInfo {
  return {
    keyId: row.id,
    name,
    scope,
    owner: row.owner,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}
