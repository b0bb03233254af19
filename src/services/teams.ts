// Teams, their API keys and their key material: making a team, authenticating a team key, and destroying a
// team (key first, then rows).

import { formatApiKey, teamIdOfApiKey } from "../api-key.js";
import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { newId, teamIdPattern } from "../ids.js";
import type { LiveIndexes } from "../live/indexes.js";
import type { Keyring } from "../seal/keyring.js";
import { generateSecret, hashSecret } from "../seal/secret.js";
import type { TeamKey } from "../seal/team-key.js";
import { openReadable } from "../sealed/readable.js";
import { openTeam, sealTeam } from "../sealed/teams.js";
import type { Storage } from "../store/storage.js";

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
}

export class TeamService {
  constructor(private readonly deps: TeamDeps) {}

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
      { id: keyId, secretHash: await hashSecret(apiKey) },
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
      secretHash: await hashSecret(apiKey),
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
    indexes.drop(teamId);
    await storage.teams.deleteRows(teamId);
  }

  /** The team a presented API key belongs to, with its opened key; null for anything not a live key. */
  async authenticate(apiKey: string): Promise<TeamKey | null> {
    const teamId = teamIdOfApiKey(apiKey);
    if (!teamId) return null;
    const match = await this.deps.storage.teams.findKey(await hashSecret(apiKey));
    if (!match || match.teamId !== teamId) return null;
    return this.#openKey(teamId, match.wrappedKey);
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
