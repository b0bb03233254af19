// The reindex ping: every team loaded on this instance (or the one named) brought level with storage, then
// the Notion pages of every team with a Notion token (or of the one named) edited since the last sync
// pulled, so what a missed write or a missed webhook left behind heals on the next ping. Concurrent pings
// share the work: a run already under way is awaited, not started again.

import { DomainError, isDomainError } from "../errors.js";
import type { LiveIndexes, Reconciled } from "../live/indexes.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import type { NotionSync } from "../sources/notion/sync.js";
import type { Storage } from "../store/storage.js";
import type { TeamService } from "./teams.js";

export interface TeamReindexed extends Partial<Reconciled> {
  teamId: string;
  /** Notion pages pulled for the team; 0 when it has no Notion source. */
  synced: number;
  /** Set when the team could not be reindexed: the error's code (never its detail). */
  error?: string;
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
      const key = await this.deps.teams.teamKey(teamId);
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
        const synced = work.pull ? await this.#pull(key) : 0;
        return { teamId: key.teamId, ...reconciled, synced };
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
   * The team's Notion pages edited since its last sync; the count pulled. A failing pull (a revoked token,
   * Notion down) is logged and counts 0, leaving the team's sync time where it was for the next ping: the
   * team's index is still reported, and other teams still reindexed.
   */
  #pull(key: TeamKey): Promise<number> {
    return this.deps.notion.pullSince(key).catch((error: unknown) => {
      this.deps.logger.warn("notion pull failed", {
        teamId: key.teamId,
        error: error instanceof Error ? error.name : "unknown",
      });
      return 0;
    });
  }
}
