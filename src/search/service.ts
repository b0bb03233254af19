// Search over a team's passages: build the FTS5 expression, make sure the team's index is ready, ask it.

import { DomainError } from "../errors.js";
import type { PassageHit } from "../index/passage-index.js";
import { matchQuery } from "../index/query.js";
import type { LiveIndexes } from "../live/indexes.js";
import type { TeamKey } from "../seal/team-key.js";

export interface SearchResult {
  hits: PassageHit[];
  corpus: { documents: number; chunks: number };
}

export async function searchPassages(
  indexes: LiveIndexes,
  key: TeamKey,
  q: string,
  limit: number,
): Promise<SearchResult> {
  const index = (await indexes.ready(key)).passages;
  // The index can be closed between being handed over and being asked, when its team is deleted meanwhile.
  if (!index.isOpen())
    throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
  return { hits: index.find(matchQuery(q), limit), corpus: index.counts() };
}
