// The reindex ping: every team loaded on this instance (or the one named) brought level with storage, then
// the Notion pages of every team with a Notion token (or of the one named) edited since the last sync
// pulled, so what a missed write or a missed webhook left behind heals on the next ping. Concurrent pings
// share the work: a run already under way is awaited, not started again.

import { DomainError, isDomainError } from "../errors.js";
import type { LiveIndexes, Reconciled } from "../live/indexes.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import { NotionApiError, NotionUnreachableError } from "../sources/notion/client.js";
import type { NotionSync } from "../sources/notion/sync.js";
import type { Storage } from "../store/storage.js";
import type { TeamService } from "./teams.js";

export interface TeamReindexed extends Partial<Reconciled> {
  teamId: string;
  /** Notion pages pulled for the team; 0 when it has no Notion source. */
  synced: number;
  /**
   * Set when the team could not be reindexed, or its Notion pull failed: the error's code (never its
   * detail). A failed pull is one of PullFailure; the team's index may still be reported beside it.
   */
  error?: string;
}

/**
 * Why a Notion pull failed, as the operator acts on it: `notion_unauthorized` — Notion refused the token (revoked,
 * or the integration lost access): PUT a new one; `notion_unavailable` — Notion throttled, failed or could not
 * be reached after the client's retries: the next ping tries again; `notion_failed` — anything else (an answer
 * not in Notion's published shape, a search that would not end). A DomainError keeps its own code.
 */
export type PullFailure = "notion_unauthorized" | "notion_unavailable" | "notion_failed";

export function pullFailureOf(error: unknown): PullFailure | string {
  if (isDomainError(error)) return error.code;
  if (error instanceof NotionUnreachableError) return "notion_unavailable";
  if (error instanceof NotionApiError) {
    if (error.status === 401 || error.status === 403) return "notion_unauthorized";
    if (error.transient) return "notion_unavailable";
  }
  return "notion_failed";
}

export interface ReindexDeps {
  indexes: LiveIndexes;
  teams: TeamService;
  storage: Storage;
  logger: Logger;
  /** The note source that pulls: its `pullSince(key)` re-reads a team's pages edited since its last sync. */
  notion: NotionSync;
}

export class ReindexService {
  /** The run for every team, while one is under way. */
  #all: Promise<TeamReindexed[]> | null = null;
  readonly #teams = new Map<string, Promise<TeamReindexed>>();

  constructor(private readonly deps: ReindexDeps) {}

  /** Reindexes the named team (not_found when there is none), or every team this instance should. */
  async run(teamId: string | null): Promise<TeamReindexed[]> {
    if (teamId !== null) {
      const key = await this.deps.teams.teamKey(teamId);
      if (!key) throw new DomainError("not_found", `No team ${teamId}.`);
      const report = await this.#team(key, { reconcile: true, pull: true });
      if (report.error === "not_found") throw new DomainError("not_found", `No team ${teamId}.`);
      return [report];
    }
    if (!this.#all) this.#all = this.#everyTeam().finally(() => (this.#all = null));
    return this.#all;
  }

  async #everyTeam(): Promise<TeamReindexed[]> {
    const loaded = new Set(this.deps.indexes.loadedTeams());
    const withSource = await this.deps.storage.sources.teamsWith("notion.token");
    const teams = [...new Set([...loaded, ...withSource])].sort();
    const reports: TeamReindexed[] = [];
    // One team at a time: a rebuild costs a cold start's CPU, and a ping must not stall every team at once.
    for (const teamId of teams) {
      let key: TeamKey | null;
      try {
        key = await this.deps.teams.teamKey(teamId);
      } catch (error) {
        // A team whose key does not open (a wrong or rotated-away master key for it) is reported like any
        // other failing team; the others are still reindexed.
        const code = isDomainError(error) ? error.code : "internal";
        this.deps.logger.warn("reindex failed for a team", { teamId, code });
        reports.push({ teamId, synced: 0, error: code });
        continue;
      }
      // A team deleted since it was loaded has nothing left to reindex.
      if (!key) continue;
      const report = await this.#team(key, {
        reconcile: loaded.has(teamId),
        pull: withSource.includes(teamId),
      });
      if (report.error !== "not_found") reports.push(report);
    }
    return reports;
  }

  /**
   * One team's reindex, shared with any caller already waiting on it. A failure is reported in the team's
   * row (and logged), so one broken team never stops the others.
   */
  #team(key: TeamKey, work: { reconcile: boolean; pull: boolean }): Promise<TeamReindexed> {
    const running = this.#teams.get(key.teamId);
    if (running) return running;
    const task = (async (): Promise<TeamReindexed> => {
      try {
        const reconciled = work.reconcile ? await this.deps.indexes.reconcile(key) : {};
        const pulled = work.pull ? await this.#pull(key) : { synced: 0 };
        // A team brought level gets its sealed snapshot refreshed when the stored one is behind, after the pull
        // so it reflects what the pull wrote (the pull's writes have caught the index up already).
        if (work.reconcile) {
          await this.deps.indexes.refreshSnapshot(key);
          // After the refresh, so the changes the new snapshot reflects can go too.
          // A failure only leaves the log longer until the next ping.
          await this.deps.indexes.compactChangeLog(key.teamId).catch((error: unknown) => {
            this.deps.logger.warn("change log not compacted", {
              teamId: key.teamId,
              error: error instanceof Error ? error.name : "unknown",
            });
          });
        }
        return { teamId: key.teamId, ...reconciled, ...pulled };
      } catch (error) {
        const code = isDomainError(error) ? error.code : "internal";
        this.deps.logger.warn("reindex failed for a team", { teamId: key.teamId, code });
        return { teamId: key.teamId, synced: 0, error: code };
      }
    })().finally(() => this.#teams.delete(key.teamId));
    this.#teams.set(key.teamId, task);
    return task;
  }

  /**
   * The team's Notion pages edited since its last sync: the count pulled. A failing pull (a revoked token,
   * Notion down) counts 0 and is reported in the team's `error` (and logged), leaving the team's sync time
   * where it was for the next ping: the team's index is still reported, and other teams still reindexed.
   */
  #pull(key: TeamKey): Promise<{ synced: number; error?: string }> {
    return this.deps.notion.pullSince(key).then(
      (synced) => ({ synced }),
      (error: unknown) => {
        const code = pullFailureOf(error);
        this.deps.logger.warn("notion pull failed", {
          teamId: key.teamId,
          error: error instanceof Error ? error.name : "unknown",
          code,
        });
        return { synced: 0, error: code };
      },
    );
  }
}
