// The registry of active teams: per team id, when the Worker last saw a successful request for it, which
// is the list the cron pings. TeamRegistry is its storage (the ActiveTeams Durable Object in
// src/runtime/worker.ts runs one over its SQLite); RecordThrottle keeps a busy team from writing to it on
// every request. Only ids and times, never team data or keys.

import { teamIdPattern } from "../../ids.js";
import type { ActiveTeamsClient } from "./bindings.js";
import { errorName, logLine } from "./log.js";

/** Teams whose last successful request is this recent get the cron's reindex ping. */
export const ACTIVE_WINDOW_MS = 60 * 60 * 1000;

/** A team is recorded in the registry at most this often per Worker isolate. */
export const RECORD_INTERVAL_MS = 60 * 1000;

/** Rows of teams not seen for this long are dropped. */
export const REGISTRY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The part of a Durable Object's SQLite storage (`ctx.storage.sql`) the registry uses. */
export interface SqlExec {
  exec(query: string, ...bindings: (string | number)[]): { toArray(): Record<string, unknown>[] };
}

export class TeamRegistry {
  constructor(private readonly sql: SqlExec) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS seen (team_id TEXT PRIMARY KEY, last_seen INTEGER NOT NULL) WITHOUT ROWID",
    );
  }

  /** Records a team as seen at `at` (ms since the epoch); a later time is never moved back. */
  seen(teamId: string, at: number): void {
    if (!teamIdPattern.test(teamId) || !Number.isSafeInteger(at)) return;
    this.sql.exec(
      "INSERT INTO seen (team_id, last_seen) VALUES (?, ?) " +
        "ON CONFLICT (team_id) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)",
      teamId,
      at,
    );
  }

  /** Teams seen at or after `since`, by id; rows past the retention are dropped on the way. */
  list(since: number): string[] {
    this.sql.exec("DELETE FROM seen WHERE last_seen < ?", since - REGISTRY_RETENTION_MS);
    return this.sql
      .exec("SELECT team_id FROM seen WHERE last_seen >= ? ORDER BY team_id", since)
      .toArray()
      .map((row) => String(row.team_id));
  }
}

/**
 * Per-isolate memory of when each team was last recorded, so a busy team costs the registry one write a
 * minute per isolate rather than one per request. Bounded: past `maxTeams` it starts over, which at worst
 * records a team again early.
 */
export class RecordThrottle {
  readonly #last = new Map<string, number>();

  constructor(
    private readonly intervalMs = RECORD_INTERVAL_MS,
    private readonly maxTeams = 10_000,
  ) {}

  /** True when `teamId` should be recorded now; marks it recorded. */
  take(teamId: string, now: number): boolean {
    const last = this.#last.get(teamId);
    if (last !== undefined && now - last < this.intervalMs) return false;
    if (this.#last.size >= this.maxTeams) this.#last.clear();
    this.#last.set(teamId, now);
    return true;
  }

  /** Forgets a mark whose write failed, so the next request tries again. */
  release(teamId: string): void {
    this.#last.delete(teamId);
  }
}

/**
 * Tells the registry a team had a successful request, unless the throttle says it was told lately: the
 * write to wait for (it never rejects; a failure is logged and released), or null when there is none.
 */
export function recordSeen(
  registry: () => ActiveTeamsClient,
  throttle: RecordThrottle,
  teamId: string,
  now: number,
): Promise<void> | null {
  if (!throttle.take(teamId, now)) return null;
  return registry()
    .seen(teamId, now)
    .catch((error: unknown) => {
      throttle.release(teamId);
      logLine("error", "registry write failed", { error: errorName(error) });
    });
}
