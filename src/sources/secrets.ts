// A team's source secrets (Notion's integration and verification tokens, the generic webhook's signing
// secret), sealed one per row and bound to their kind: a sealed Notion token copied into the webhook secret's
// row fails to open.

import { z } from "zod";
import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { openRow, sealRow, type TeamKey } from "../seal/team-key.js";
import type { SourceKind } from "../store/sources.js";
import type { Storage } from "../store/storage.js";

const SOURCES_TABLE = "sources";
const secretSchema = z.object({ value: z.string() });

export class SourceSecrets {
  constructor(private readonly deps: { storage: Storage; clock: Clock }) {}

  async get(key: TeamKey, kind: SourceKind): Promise<string | null> {
    const row = await this.deps.storage.sources.get(key.teamId, kind);
    if (!row) return null;
    const parsed = secretSchema.safeParse(await openRow(key, SOURCES_TABLE, kind, row.sealed));
    if (!parsed.success)
      throw new DomainError(
        "unreadable",
        `Stored sources row ${kind} opened but is not in the expected shape.`,
      );
    return parsed.data.value;
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
    const sealed = await sealRow(key, SOURCES_TABLE, kind, { value });
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
    const sealed = await sealRow(key, SOURCES_TABLE, kind, { value });
    const at = this.deps.clock.now().toISOString();
    if (await this.deps.storage.sources.putIfAbsent(key.teamId, kind, sealed, at)) return value;
    return (await this.get(key, kind)) ?? value;
  }

  async delete(key: TeamKey, kinds: readonly SourceKind[]): Promise<void> {
    await this.deps.storage.sources.delete(key.teamId, kinds);
  }
}
