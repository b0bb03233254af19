// A team's counts as storage holds them, and the state of its in-memory index, read without starting a build.
//
// Counting is a scan of the team's documents (a covering index, but every document: a median 125 µs at 2,068
// documents, growing with them), so the counts are kept per team beside the change-log seq they were read at.
// Every write that changes them appends to the change log in its own transaction (src/store/changes.ts), so
// while the team's latest seq is the one kept, the counts are still storage's: a stats request asks storage
// that one number (an index seek, a median 23 µs) and counts again only after a write, this instance's or
// another's. (Medians of 2,000 queries through @libsql/client on a file database, a busy 2-core machine.)

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

interface StoredCounts {
  /** The team's latest change-log seq when the counts were read (read before them). */
  seq: number;
  documents: number;
  chunks: number;
  entries: number;
}

// Teams whose counts are kept at once; past it the team asked about longest ago is counted again on its next
// stats request. An entry is a team id and four numbers, about 150 bytes: 10,000 teams keep 1.5 MB.
const MAX_COUNTED_TEAMS = 10_000;

export class StatsService {
  // Insertion order is the order teams were last counted: the first entry goes first.
  readonly #counted = new Map<string, StoredCounts>();

  constructor(private readonly deps: StatsDeps) {}

  async stats(key: TeamKey): Promise<TeamStats> {
    const { indexes } = this.deps;
    const { documents, chunks, entries } = await this.#counts(key.teamId);
    return {
      documents,
      chunks,
      entries,
      unreadable: indexes.unreadableCounts(key.teamId),
      index: indexes.status(key.teamId),
    };
  }

  async #counts(teamId: string): Promise<StoredCounts> {
    const { storage } = this.deps;
    // The seq first: a write landing between it and the counts makes the counts newer than their seq, never
    // older, and the next request sees a later seq and counts again.
    const seq = await storage.changes.latestSeq(teamId);
    const kept = this.#counted.get(teamId);
    if (kept?.seq === seq) return kept;
    const [counts, entries] = await Promise.all([
      storage.documents.counts(teamId),
      storage.entries.count(teamId),
    ]);
    const read = { seq, ...counts, entries };
    this.#counted.delete(teamId);
    this.#counted.set(teamId, read);
    if (this.#counted.size > MAX_COUNTED_TEAMS) {
      const oldest = this.#counted.keys().next().value;
      if (oldest !== undefined) this.#counted.delete(oldest);
    }
    return read;
  }
}
