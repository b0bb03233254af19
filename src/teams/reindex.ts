// The reindex ping: every team loaded on this instance (or the one named) brought level with storage, then
// its Notion pages edited since the last sync pulled, so what a missed write or a missed webhook left behind
// heals on the next ping. Concurrent pings share the work: a team already being reindexed is awaited, not
// reindexed again.

import { NotFoundError } from "../errors.js";
import type { TeamKey } from "../seal/team-key.js";
import type { TeamDirectory } from "./directory.js";
import type { LiveIndexes, Reconciled } from "./live-indexes.js";

export interface TeamReindexed extends Reconciled {
  teamId: string;
  /** Notion pages pulled for the team; 0 when it has no Notion source. */
  synced: number;
}

/** Pulls a team's note-source pages edited since its last sync; the count pulled (0 with no source). */
export type SourcePull = (key: TeamKey) => Promise<number>;

export interface ReindexDeps {
  indexes: LiveIndexes;
  directory: TeamDirectory;
  /** Set once a note source that pulls exists (Notion). */
  pull?: SourcePull;
}

export class Reindexer {
  readonly #running = new Map<string, Promise<TeamReindexed>>();

  constructor(private readonly deps: ReindexDeps) {}

  /** Reindexes the named team (NotFoundError when there is none), or every team loaded here. */
  async run(teamId: string | null): Promise<TeamReindexed[]> {
    if (teamId !== null) {
      const key = await this.deps.directory.teamKey(teamId);
      if (!key) throw new NotFoundError(`No team ${teamId}.`);
      return [await this.#team(key)];
    }
    const reports: TeamReindexed[] = [];
    // One team at a time: a rebuild costs a cold start's CPU, and a ping must not stall every team at once.
    for (const loaded of this.deps.indexes.loadedTeams()) {
      const key = await this.deps.directory.teamKey(loaded);
      // A team deleted since it was loaded has nothing left to reindex.
      if (key) reports.push(await this.#team(key));
    }
    return reports;
  }

  #team(key: TeamKey): Promise<TeamReindexed> {
    const running = this.#running.get(key.teamId);
    if (running) return running;
    const work = (async (): Promise<TeamReindexed> => {
      const reconciled = await this.deps.indexes.reconcile(key);
      const synced = this.deps.pull ? await this.deps.pull(key) : 0;
      return { teamId: key.teamId, ...reconciled, synced };
    })().finally(() => this.#running.delete(key.teamId));
    this.#running.set(key.teamId, work);
    return work;
  }
}
