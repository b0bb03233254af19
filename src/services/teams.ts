// Teams, their API keys and their key material: making a team, authenticating a team key, and destroying a
// team (key first, then rows). A key authenticated lately is answered from memory (team-key-cache.ts says for
// how long, and why a revocation still takes effect at once here).

import { formatApiKey, teamIdOfApiKey } from "../api-key.js";
import type { Clock } from "../clock.js";
import { DomainError, isDomainError } from "../errors.js";
import { newId, teamIdPattern } from "../ids.js";
import type { LiveIndexes } from "../live/indexes.js";
import type { Keyring } from "../seal/keyring.js";
import { generateSecret } from "../seal/secret.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import type { TeamKey } from "../seal/team-key.js";
import { openReadable } from "../sealed/readable.js";
import { openTeam, sealTeam } from "../sealed/teams.js";
import type { Storage } from "../store/storage.js";
import { TeamKeyCache } from "./team-key-cache.js";

export interface Team {
  id: string;
  name: string;
  createdAt: string;
}

export interface ApiKeyInfo {
  keyId: string;
  createdAt: string;
  revokedAt: string | null;
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

  constructor(private readonly deps: TeamDeps) {
    this.#keys = new TeamKeyCache(deps.keyCacheMs);
  }

  async create(name: string): Promise<{ team: Team; keyId: string; apiKey: string }> {
    const { storage, keyring, clock } = this.deps;
    const id = newId("t");
    const createdAt = clock.now().toISOString();
    const { key, wrapped } = await keyring.create(id);
    const secret = generateSecret();
    const apiKey = formatApiKey(id, secret);
    const keyId = newId("k");
    await storage.teams.insert(
      { id, sealed: await sealTeam(key, id, { name }), wrappedKey: wrapped, createdAt },
      { id: keyId, secretHash: hashSecretNow(apiKey) },
    );
    return { team: { id, name, createdAt }, keyId, apiKey };
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
    return keys.map((k) => ({ keyId: k.id, createdAt: k.createdAt, revokedAt: k.revokedAt }));
  }

  async createKey(teamId: string): Promise<{ keyId: string; apiKey: string }> {
    await this.#requireTeam(teamId);
    const apiKey = formatApiKey(teamId, generateSecret());
    const keyId = newId("k");
    await this.deps.storage.teams.insertKey({
      id: keyId,
      teamId,
      secretHash: hashSecretNow(apiKey),
      createdAt: this.deps.clock.now().toISOString(),
    });
    return { keyId, apiKey };
  }

  async revokeKey(teamId: string, keyId: string): Promise<void> {
    await this.#requireTeam(teamId);
    const revoked = await this.deps.storage.teams.revokeKey(
      teamId,
      keyId,
      this.deps.clock.now().toISOString(),
    );
    if (!revoked) throw new DomainError("not_found", `No key ${keyId} in team ${teamId}.`);
    // Committed: from the next request on, this instance asks storage, which refuses the key.
    this.#keys.forgetKey(keyId);
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
    this.#keys.forgetTeam(teamId);
    indexes.drop(teamId);
    await storage.teams.deleteRows(teamId);
  }

  /**
   * The team a presented API key belongs to, with its opened key; null for anything not a live key.
   * `secretHash` is the key's hashSecretNow, when the caller already has it (the HTTP edge hashes once).
   */
  async authenticate(apiKey: string, secretHash = hashSecretNow(apiKey)): Promise<TeamKey | null> {
    const teamId = teamIdOfApiKey(apiKey);
    if (!teamId) return null;
    const now = this.deps.clock.now().getTime();
    const cached = this.#keys.get(secretHash, now);
    if (cached) return cached.team.teamId === teamId ? cached.team : null;
    const generation = this.#keys.generation;
    let match: Awaited<ReturnType<Storage["teams"]["findKey"]>>;
    try {
      match = await this.deps.storage.teams.findKey(secretHash);
    } catch (error) {
      const known = isDomainError(error, "unavailable") ? this.#keys.lastKnown(secretHash) : null;
      if (!known) throw error;
      return known.team.teamId === teamId ? known.team : null;
    }
    if (!match || match.teamId !== teamId) return null;
    const team = await this.#openKey(teamId, match.wrappedKey);
    this.#keys.set(secretHash, { keyId: match.id, team }, now, generation);
    return team;
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
