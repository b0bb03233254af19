// Search over a team's passages: build the FTS5 expression, make sure the team's index is ready, wait for the
// team's turn (docs/api.md "Many searches at once": bounded, and fair between teams), ask the index, and time the
// whole of it for the answer's tookMs.

import { FairQueue, QueueRefusedError } from "../async/fair-queue.js";
import { DomainError } from "../errors.js";
import type { PassageHit, PassageIndex } from "../index/passages/passage-index.js";
import { type MatchQuery, matchQuery } from "../index/query.js";
import type { LiveIndexes } from "../live/indexes.js";
import type { TeamKey } from "../seal/team-key.js";

export interface SearchRequest {
  q: string;
  limit: number;
}

export interface SearchResult {
  query: string;
  hits: PassageHit[];
  /** What the index holds, and how many documents it left out because they did not open. */
  corpus: { documents: number; chunks: number; unreadable: number };
  /** Milliseconds from the call to the answer, index readiness included, to two decimals. */
  tookMs: number;
}

/** Where a search runs: on this thread, or on the search threads (src/runtime/search-threads.ts). */
export interface PassageFinder {
  /** Searches handed to it at once: the queue's slots. */
  readonly slots: number;
  /**
   * The hits, or null when the index closed before it was read (the search then asks for it again). A search
   * that would wait further where it runs must start by `startBy` (performance.now()), else it is refused as
   * one that waited too long in the queue (QueueRefusedError). `alone`: no other search is running or waiting
   * in the queue as this one starts.
   */
  find(
    index: PassageIndex,
    query: MatchQuery,
    limit: number,
    startBy: number,
    alone: boolean,
  ): PassageHit[] | null | Promise<PassageHit[] | null>;
}

/**
 * Every search on this thread, one at a time: the index's engine is synchronous, so a second slot would only
 * start a second search after the first had finished anyway. MEMORIA_SEARCH_THREADS=1, and the tests' apps.
 */
export const inThreadFinder: PassageFinder = {
  slots: 1,
  find: (index, query, limit) => (index.isOpen() ? index.find(query, limit) : null),
};

export interface SearchDeps {
  indexes: LiveIndexes;
  /** The searches' turns: one line per team (src/async/fair-queue.ts), as many slots as the finder has. */
  queue: FairQueue;
  /** Where searches run; on this thread by default. */
  finder?: PassageFinder;
}

/** MEMORIA_QUEUE_TIMEOUT_MS and MEMORIA_MAX_QUEUE as src/config.ts defaults them (why: see there). */
export const SEARCH_QUEUE_DEFAULTS = { timeoutMs: 2000, maxWaiting: 64 } as const;

/** The searches' queue: a slot for each search that can run at once (PassageFinder.slots). */
export function searchQueue(limits: { timeoutMs: number; maxWaiting: number; slots?: number }): FairQueue {
  return new FairQueue({ ...limits, slots: limits.slots ?? 1 });
}

/**
 * How many times a search asks again for an index closed under it. One eviction between being handed the
 * index and its turn is the case met (test/live/ram-budget.test.ts); three bounds a team evicted over and over.
 */
const MAX_ATTEMPTS = 3;

export class SearchService {
  constructor(private readonly deps: SearchDeps) {}

  async search(key: TeamKey, request: SearchRequest): Promise<SearchResult> {
    const started = performance.now();
    const query = matchQuery(request.q);
    // The index can be closed between being handed over and being asked, more likely so after a wait for the
    // turn: evicted under the memory budget (it is then made ready again, and the search asks that one), or
    // its team deleted (ready() then refuses).
    for (let attempt = 1; ; attempt++) {
      const ready = await this.#ready(key, attempt);
      const index = ready.passages;
      const finder = this.deps.finder ?? inThreadFinder;
      const hits = await this.#inTurn(key.teamId, (startBy) =>
        index.isOpen() ? finder.find(index, query, request.limit, startBy, this.#alone()) : null,
      );
      if (hits !== null) {
        const corpus = { ...index.counts(), unreadable: ready.unreadable.documents };
        const tookMs = Math.round((performance.now() - started) * 100) / 100;
        return { query: request.q, hits, corpus, tookMs };
      }
      if (attempt >= MAX_ATTEMPTS)
        throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
    }
  }

  /** The team's index; asked again after a close, a team deleted meanwhile is the close's 503, not a 404. */
  async #ready(key: TeamKey, attempt: number) {
    try {
      return await this.deps.indexes.ready(key);
    } catch (error) {
      if (attempt === 1 || !(error instanceof DomainError) || error.code !== "not_found") throw error;
      throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
    }
  }

  /** Whether the search starting now is the only one the queue holds: none other running, none waiting. */
  #alone(): boolean {
    return this.deps.queue.running <= 1 && this.deps.queue.queued === 0;
  }

  async #inTurn<T>(teamId: string, task: (startBy: number) => T): Promise<T> {
    try {
      return await this.deps.queue.run(teamId, task);
    } catch (error) {
      if (!(error instanceof QueueRefusedError)) throw error;
      const message =
        error.reason === "full"
          ? "Too many of this team's searches are waiting; try again later."
          : "This search waited too long for its turn; try again later.";
      throw new DomainError("unavailable", message, error.retryAfterSeconds);
    }
  }
}
