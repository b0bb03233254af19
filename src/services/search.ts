// Search over a team's passages: build the FTS5 expression, make sure the team's index is ready, ask it, and
// time the whole of it for the answer's tookMs.

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
}

export class SearchService {
  constructor(private readonly deps: SearchDeps) {}

  async search(key: TeamKey, request: SearchRequest): Promise<SearchResult> {
    const started = performance.now();
    const ready = await this.deps.indexes.ready(key);
    const index = ready.passages;
    // The index can be closed between being handed over and being asked, when its team is deleted meanwhile.
    if (!index.isOpen())
      throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
    const hits = index.find(matchQuery(request.q), request.limit);
    const corpus = { ...index.counts(), unreadable: ready.unreadable.documents };
    const tookMs = Math.round((performance.now() - started) * 100) / 100;
    return { query: request.q, hits, corpus, tookMs };
  }
}
