// Search over a team's passages: build the FTS5 expression, make sure the team's index is ready, wait for the
// team's turn (API.md "Many searches at once": bounded, and fair between teams), ask the index, and time the
// whole of it for the answer's tookMs.

import { FairQueue, QueueRefusedError } from "../async/fair-queue.js";
import { DomainError } from "../errors.js";
import type { PassageHit } from "../index/passage-index.js";
import { matchQuery } from "../index/query.js";
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

export interface SearchDeps {
  indexes: LiveIndexes;
  /** The searches' turns: one line per team (src/async/fair-queue.ts). */
  queue: FairQueue;
}

/** MEMORIA_QUEUE_TIMEOUT_MS and MEMORIA_MAX_QUEUE as src/config.ts defaults them (why: see there). */
export const SEARCH_QUEUE_DEFAULTS = { timeoutMs: 2000, maxWaiting: 64 } as const;

/**
 * The searches' queue. One slot: a search runs synchronously on this thread (libsql is a synchronous
 * engine), so a second slot would only start a second search after the first had finished anyway.
 */
export function searchQueue(limits: { timeoutMs: number; maxWaiting: number }): FairQueue {
  return new FairQueue({ slots: 1, ...limits });
}

export class SearchService {
  constructor(private readonly deps: SearchDeps) {}

  async search(key: TeamKey, request: SearchRequest): Promise<SearchResult> {
    const started = performance.now();
    const ready = await this.deps.indexes.ready(key);
    const index = ready.passages;
    const query = matchQuery(request.q);
    const hits = await this.#inTurn(key.teamId, () => {
      // The index can be closed between being handed over and being asked (its team deleted meanwhile), and
      // more likely so after a wait for the turn.
      if (!index.isOpen())
        throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
      return index.find(query, request.limit);
    });
    const corpus = { ...index.counts(), unreadable: ready.unreadable.documents };
    const tookMs = Math.round((performance.now() - started) * 100) / 100;
    return { query: request.q, hits, corpus, tookMs };
  }

  async #inTurn<T>(teamId: string, task: () => T): Promise<T> {
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
