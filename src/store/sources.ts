// Rows of note sources: sealed secrets per (team, kind), the newest event applied per Notion page, and the
// generic webhook's delivery ids. Ids of pages and deliveries arrive here as blind indexes, never as given.

import type { Client } from "@libsql/client";
import { blob, text } from "./client.js";

/**
 * What a sources row holds: one sealed secret of one kind. `notion.url` is the secret part of the team's
 * Notion webhook URL: sealed like the others (never at rest readable), as GET /v1/sources/notion shows it.
 */
export type SourceKind = "notion.token" | "notion.verification" | "notion.url" | "webhook.secret";

export interface SourceRow {
  teamId: string;
  kind: SourceKind;
  updatedAt: string;
  /** When the source last finished a full pull (Notion), null before the first. */
  syncedAt: string | null;
  sealed: Uint8Array;
}

function sourceRow(row: Record<string, unknown>): SourceRow {
  return {
    teamId: text(row.team_id),
    kind: text(row.kind) as SourceKind,
    updatedAt: text(row.updated_at),
    syncedAt: row.synced_at == null ? null : text(row.synced_at),
    sealed: blob(row.sealed),
  };
}

export class SourceRows {
  constructor(private readonly client: Client) {}

  async get(teamId: string, kind: SourceKind): Promise<SourceRow | null> {
    const rs = await this.client.execute({
      sql: "SELECT team_id, kind, updated_at, synced_at, sealed FROM sources WHERE team_id = ? AND kind = ?",
      args: [teamId, kind],
    });
    const row = rs.rows[0];
    return row ? sourceRow(row) : null;
  }

  /**
   * Stores or replaces a secret. A replaced one keeps its sync time, unless `resetSync` clears it (a new
   * Notion token may see other pages: the next pull reads every one), in the same statement.
   */
  async put(
    teamId: string,
    kind: SourceKind,
    sealed: Uint8Array,
    at: string,
    options: { resetSync?: boolean } = {},
  ): Promise<void> {
    await this.client.execute({
      sql: `INSERT INTO sources (team_id, kind, updated_at, sealed) VALUES (?, ?, ?, ?)
            ON CONFLICT (team_id, kind) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at,
              synced_at = CASE WHEN ? THEN NULL ELSE sources.synced_at END`,
      args: [teamId, kind, at, sealed, options.resetSync ? 1 : 0],
    });
  }

  /** Stores a secret only if none of that kind is stored; true when this call stored it. */
  async putIfAbsent(teamId: string, kind: SourceKind, sealed: Uint8Array, at: string): Promise<boolean> {
    const rs = await this.client.execute({
      sql: `INSERT INTO sources (team_id, kind, updated_at, sealed) VALUES (?, ?, ?, ?)
            ON CONFLICT (team_id, kind) DO NOTHING`,
      args: [teamId, kind, at, sealed],
    });
    return rs.rowsAffected > 0;
  }

  /** Deletes the team's rows of these kinds; whether there was any to delete. */
  async delete(teamId: string, kinds: readonly SourceKind[]): Promise<boolean> {
    const results = await this.client.batch(
      kinds.map((kind) => ({
        sql: "DELETE FROM sources WHERE team_id = ? AND kind = ?",
        args: [teamId, kind],
      })),
      "write",
    );
    return results.some((result) => result.rowsAffected > 0);
  }

  async setSyncedAt(teamId: string, kind: SourceKind, at: string): Promise<void> {
    await this.client.execute({
      sql: "UPDATE sources SET synced_at = ? WHERE team_id = ? AND kind = ?",
      args: [at, teamId, kind],
    });
  }

  /** Teams that have a secret of this kind. */
  async teamsWith(kind: SourceKind): Promise<string[]> {
    const rs = await this.client.execute({ sql: "SELECT team_id FROM sources WHERE kind = ?", args: [kind] });
    return rs.rows.map((row) => text(row.team_id));
  }
}

export class PageEventRows {
  constructor(private readonly client: Client) {}

  /**
   * Records `eventAt` as the page's newest applied event if it is newer than the one recorded (or none is);
   * true when it was, and the event should be applied. Events arrive out of order and aggregated: an older
   * one arriving after a newer one changes nothing. ISO-8601 UTC times compare as strings.
   */
  async advance(teamId: string, pageRef: Uint8Array, eventAt: string): Promise<boolean> {
    const rs = await this.client.execute({
      sql: `INSERT INTO source_pages (team_id, page_ref, event_at) VALUES (?, ?, ?)
            ON CONFLICT (team_id, page_ref) DO UPDATE SET event_at = excluded.event_at
            WHERE excluded.event_at > source_pages.event_at`,
      args: [teamId, pageRef, eventAt],
    });
    return rs.rowsAffected > 0;
  }

  /** Forgets every page's newest event time for the team (its Notion source was removed). */
  async deleteTeam(teamId: string): Promise<void> {
    await this.client.execute({ sql: "DELETE FROM source_pages WHERE team_id = ?", args: [teamId] });
  }

  async newest(teamId: string, pageRef: Uint8Array): Promise<string | null> {
    const rs = await this.client.execute({
      sql: "SELECT event_at FROM source_pages WHERE team_id = ? AND page_ref = ?",
      args: [teamId, pageRef],
    });
    const row = rs.rows[0];
    return row ? text(row.event_at) : null;
  }
}

export class DeliveryRows {
  constructor(private readonly client: Client) {}

  /** Records a delivery id; false when it was recorded already (a redelivery). */
  async record(teamId: string, deliveryRef: Uint8Array, at: string): Promise<boolean> {
    const rs = await this.client.execute({
      sql: `INSERT INTO webhook_deliveries (team_id, delivery_ref, received_at) VALUES (?, ?, ?)
            ON CONFLICT (team_id, delivery_ref) DO NOTHING`,
      args: [teamId, deliveryRef, at],
    });
    return rs.rowsAffected > 0;
  }

  /** Forgets a recorded delivery (its processing failed, so a redelivery must be processed). */
  async forget(teamId: string, deliveryRef: Uint8Array): Promise<void> {
    await this.client.execute({
      sql: "DELETE FROM webhook_deliveries WHERE team_id = ? AND delivery_ref = ?",
      args: [teamId, deliveryRef],
    });
  }

  /** Deletes deliveries recorded before `before` (ISO-8601). */
  async prune(before: string): Promise<void> {
    await this.client.execute({
      sql: "DELETE FROM webhook_deliveries WHERE received_at < ?",
      args: [before],
    });
  }
}

/** A delivery id recorded already: the write it came with was not made. */
export class DuplicateDeliveryError extends Error {
  override readonly name = "DuplicateDeliveryError";
}

/** The statement recording a delivery id inside another write's batch; it fails the batch on a duplicate. */
export function recordDelivery(teamId: string, deliveryRef: Uint8Array, at: string) {
  return {
    sql: "INSERT INTO webhook_deliveries (team_id, delivery_ref, received_at) VALUES (?, ?, ?)",
    args: [teamId, deliveryRef, at],
  };
}

export function isDuplicateDelivery(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed: webhook_deliveries\./.test(error.message);
}
