// The API keys this instance has authenticated lately, by the SHA-256 of the key: a key presented again
// within `ttlMs` of its lookup is answered from here, with no storage round trip.
//
// Revocation and a team's deletion on this instance take effect at once: TeamService forgets the key (or the
// team's keys) as soon as storage has committed, and a lookup that was already in flight when that happened
// is not kept (the generation check below), so it cannot put the revoked key back. Another instance holds a
// key it checked before the revocation for at most `ttlMs` more (MEMORIA_CATCHUP_MS, the bound that
// instance's view of a team's rows already has: docs/scaling.md). Only keys that were live are kept: a wrong
// key goes to storage every time, and the failed-authentication limit bounds how often.

import type { Scope } from "../scope.js";
import type { TeamKey } from "../seal/team-key.js";

// At most this many keys are kept; a new one past it pushes out the one looked up longest ago. An entry is a
// 64-character hash, two ids and a reference to the team's opened key (the keyring holds it anyway), about
// 300 bytes, so the cache stays under 3 MB; past 10,000 keys live at once an instance only looks some up again.
export const MAX_CACHED_KEYS = 10_000;

/** What any entry of the cache holds: an id to forget it by, its team, and when it stops working. */
export interface CachedCredential {
  keyId: string;
  team: TeamKey;
  /** When it stops working (epoch ms), or null; checked on every use, cached or not. */
  expiresAt: number | null;
}

export interface CachedKey extends CachedCredential {
  scope: Scope;
  /** Its name, opened once a lookup; null for a key made without one. */
  name: string | null;
  /** The member who made it; null for a key no member made. */
  owner: string | null;
}

type Held<E> = E & { checkedAt: number };

/**
 * Keyed by the credential's hash. `E` is what is kept of it: an API key (the default), or an OAuth access
 * token (services/oauth.ts keeps its approval as `keyId`, so revoking the approval forgets its tokens).
 */
export class TeamKeyCache<E extends CachedCredential = CachedKey> {
  // Insertion order is lookup order: a key looked up again is deleted and set anew, so the first entry is
  // always the oldest, and pushing one out is O(1).
  readonly #held = new Map<string, Held<E>>();
  // Bumped by every forget: a lookup begun under an older generation may have read a key since revoked.
  #generation = 0;

  constructor(private readonly ttlMs: number) {}

  /** The live key stored under `secretHash`, if it was looked up less than ttlMs before `now`. */
  get(secretHash: string, now: number): E | null {
    const held = this.#held.get(secretHash);
    if (!held || now - held.checkedAt >= this.ttlMs) return null;
    return held;
  }

  /**
   * The key storage last answered as live under `secretHash`, however long ago: while storage cannot be
   * reached, searches of a loaded team keep answering the keys they answered (no revocation can be stored
   * meanwhile on this instance; one stored by another instance is seen once storage answers again). Expired
   * entries stay until a newer key pushes them out, so the cache's bound holds.
   */
  lastKnown(secretHash: string): E | null {
    return this.#held.get(secretHash) ?? null;
  }

  /** Where a lookup starts: hand the answer to `set` with this, so a forget in between wins. */
  get generation(): number {
    return this.#generation;
  }

  /** Keeps a key storage has just answered as live, unless something was forgotten since `generation`. */
  set(secretHash: string, key: E, checkedAt: number, generation: number): void {
    if (this.ttlMs <= 0 || generation !== this.#generation) return;
    this.#held.delete(secretHash);
    this.#held.set(secretHash, { ...key, checkedAt });
    if (this.#held.size > MAX_CACHED_KEYS) {
      const oldest = this.#held.keys().next().value;
      if (oldest !== undefined) this.#held.delete(oldest);
    }
  }

  /** Forgets one key (revoked). */
  forgetKey(keyId: string): void {
    this.#forget((held) => held.keyId === keyId);
  }

  /** Forgets every key of a team (deleted). */
  forgetTeam(teamId: string): void {
    this.#forget((held) => held.team.teamId === teamId);
  }

  /** Keys held now (at most MAX_CACHED_KEYS). */
  get size(): number {
    return this.#held.size;
  }

  #forget(matches: (held: Held<E>) => boolean): void {
    this.#generation += 1;
    for (const [hash, held] of this.#held) if (matches(held)) this.#held.delete(hash);
  }
}
