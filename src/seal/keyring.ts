// Opened team keys, kept per process. Opening a team key costs an unwrap and two HKDF derivations; doing
// that on every request would dominate small reads, and the opened key is no more sensitive in a map than
// in the request that just used it.

import { isDomainError } from "../errors.js";
import type { CryptoKey } from "./bytes.js";
import { toHex, utf8 } from "./bytes.js";
import { type MasterKeys, unwrapTeamKey, wrapTeamKey } from "./master.js";
import { openBytes, sealBytes } from "./seal.js";
import { deriveTeamKey, generateTeamKeyMaterial, type TeamKey } from "./team-key.js";

export class Keyring {
  readonly #master: MasterKeys;
  readonly #opened = new Map<string, { wrapped: string; key: Promise<TeamKey> }>();

  constructor(master: MasterKeys) {
    this.#master = master;
  }

  /** A fresh data key for a new team, and its wrapped form to store with the team. */
  async create(teamId: string): Promise<{ key: TeamKey; wrapped: Uint8Array }> {
    const raw = generateTeamKeyMaterial();
    const wrapped = await wrapTeamKey(this.#master, teamId, raw);
    const key = deriveTeamKey(teamId, raw);
    this.#opened.set(teamId, { wrapped: toHex(wrapped), key });
    return { key: await key, wrapped };
  }

  /**
   * Opens a team's stored wrapped key. `rewrapped` is non-null when the previous master key was needed;
   * the caller stores it so rotation finishes without a separate pass.
   */
  async open(teamId: string, wrapped: Uint8Array): Promise<{ key: TeamKey; rewrapped: Uint8Array | null }> {
    const tag = toHex(wrapped);
    const cached = this.#opened.get(teamId);
    if (cached && cached.wrapped === tag) return { key: await cached.key, rewrapped: null };
    const unwrapped = await unwrapTeamKey(this.#master, teamId, wrapped);
    const key = deriveTeamKey(teamId, unwrapped.raw);
    this.#opened.set(teamId, { wrapped: toHex(unwrapped.rewrapped ?? wrapped), key });
    return { key: await key, rewrapped: unwrapped.rewrapped };
  }

  /**
   * The keyed hashes a value that must stay unreadable is found by (a person's sign-in address), under the
   * current master key and, while one is being rotated away from, the previous: a row stored under the
   * previous is found by the second and hashed anew by its finder. `kind` keeps hashes of different kinds of
   * value apart.
   */
  async lookupHashes(kind: string, value: string): Promise<{ current: string; previous: string | null }> {
    const data = utf8(`${kind}\u0000${value}`);
    const hash = async (key: CryptoKey) => toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, data)));
    const { current, previous } = this.#master.lookup;
    return { current: await hash(current), previous: previous ? await hash(previous) : null };
  }

  /**
   * Seals a record that belongs to no team and is kept by no row (a registered OAuth client's, carried in its
   * client id) under the instance's key for such records, bound to `label`.
   */
  sealInstanceRecord(label: string, bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
    return sealBytes(this.#master.clients.current, bytes, utf8(`memoria/instance/${label}`));
  }

  /**
   * Opens what sealInstanceRecord sealed, under the current key or, during a rotation, the previous; null when
   * neither opens it (made by another instance, under a key since dropped, or altered).
   */
  async openInstanceRecord(label: string, sealed: Uint8Array): Promise<Uint8Array<ArrayBuffer> | null> {
    const aad = utf8(`memoria/instance/${label}`);
    for (const key of [this.#master.clients.current, this.#master.clients.previous]) {
      if (!key) continue;
      try {
        return await openBytes(key, sealed, aad, label);
      } catch (error) {
        if (!isDomainError(error, "unreadable")) throw error;
      }
    }
    return null;
  }

  /** Drops an opened key, as part of destroying a team's key material. */
  forget(teamId: string): void {
    this.#opened.delete(teamId);
  }
}
