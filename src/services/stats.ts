// A team's counts as storage holds them, and the state of its in-memory index, read without starting a build.

import type { IndexStatus, LiveIndexes, UnreadableCounts } from "../live/indexes.js";
import type { TeamKey } from "../seal/team-key.js";
import type { Storage } from "../store/storage.js";

export interface TeamStats {
  documents: number;
  chunks: number;
  entries: number;
  /** What the index left out because it did not open; null while it is cold (nothing opened yet). */
  unreadable: UnreadableCounts | null;
  index: IndexStatus;
}

export interface StatsDeps {
  storage: Storage;
  indexes: LiveIndexes;
}

export class StatsService {
  constructor(private readonly deps: StatsDeps) {}

  async stats(key: TeamKey): Promise<TeamStats> {
    const { storage, indexes } = this.deps;
    const [counts, entries] = await Promise.all([
      storage.documents.counts(key.teamId),
      storage.entries.count(key.teamId),
    ]);
    return {
      ...counts,
      entries,
      unreadable: indexes.unreadableCounts(key.teamId),
      index: indexes.status(key.teamId),
    };
  }
}
