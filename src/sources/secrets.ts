// A team's source secrets (Notion's integration and verification tokens, the generic webhook's signing
// secret), stored sealed one per row (see sealed-rows/secrets.ts).

import type { Clock } from "../clock.js";
import type { TeamKey } from "../seal/team-key.js";
import { openSecret, sealSecret } from "../sealed-rows/secrets.js";
import type { SourceKind } from "../store/sources.js";
import type { Storage } from "../store/storage.js";

export class SourceSecrets {
  constructor(private readonly deps: { storage: Storage; clock: Clock }) {}

  async get(key: TeamKey, kind: SourceKind): Promise<string | null> {
    const row = await this.deps.storage.sources.get(key.teamId, kind);
    if (!row) return null;
    return openSecret(key, kind, row.sealed);
  }

  /** Whether a secret of this kind is stored, without opening it. */
  async has(teamId: string, kind: SourceKind): Promise<boolean> {
    return (await this.deps.storage.sources.get(teamId, kind)) !== null;
  }

  /** Stores or replaces a secret; `resetSync` also clears the row's sync time (see SourceRows.put). */
  async put(
    key: TeamKey,
    kind: SourceKind,
    value: string,
    options: { resetSync?: boolean } = {},
  ): Promise<void> {
    const sealed = await sealSecret(key, kind, value);
    await this.deps.storage.sources.put(
      key.teamId,
      kind,
      sealed,
      this.deps.clock.now().toISOString(),
      options,
    );
  }

  /** Stores the secret unless one of that kind is stored; returns the one stored after the call. */
  async putIfAbsent(key: TeamKey, kind: SourceKind, value: string): Promise<string> {
    const sealed = await sealSecret(key, kind, value);
    const at = this.deps.clock.now().toISOString();
    if (await this.deps.storage.sources.putIfAbsent(key.teamId, kind, sealed, at)) return value;
    return (await this.get(key, kind)) ?? value;
  }

  /** Whether any of them was stored. */
  async delete(key: TeamKey, kinds: readonly SourceKind[]): Promise<boolean> {
    return this.deps.storage.sources.delete(key.teamId, kinds);
  }
}
