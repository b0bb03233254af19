// The working-memory block for an agent: gather the pool from the team's entry index, rank and cut it to the
// budget, render it. The ranking itself is pure (src/memory); this only fetches its inputs.

import { DomainError } from "../errors.js";
import type { LiveIndexes } from "../live/indexes.js";
import { renderBlock } from "../memory/block.js";
import { gather } from "../memory/gather.js";
import { type SliceResult, slice } from "../memory/slice.js";
import type { TeamKey } from "../seal/team-key.js";

export interface MemoryRequest {
  query: string | null;
  project: string | null;
  budget: number;
}

export interface WorkingMemory extends Omit<SliceResult, "items"> {
  query: string | null;
  project: string | null;
  items: { id: string; rank: number; score: number; tokens: number; line: string }[];
  text: string;
}

export interface MemoryDeps {
  indexes: LiveIndexes;
}

export class MemoryService {
  constructor(private readonly deps: MemoryDeps) {}

  async workingMemory(key: TeamKey, request: MemoryRequest): Promise<WorkingMemory> {
    const { entries } = await this.deps.indexes.ready(key);
    // The index can be closed between being handed over and being asked, when its team is deleted meanwhile.
    if (!entries.isOpen())
      throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
    const pool = gather(entries, { query: request.query, project: request.project });
    const result = slice(pool.entries, {
      matched: pool.matched,
      project: request.project,
      budget: request.budget,
    });
    return {
      query: request.query,
      project: request.project,
      budget: result.budget,
      candidates: result.candidates,
      included: result.included,
      skipped: result.skipped,
      estimatedTokens: result.estimatedTokens,
      items: result.items.map((item) => ({
        id: item.entry.id,
        rank: item.rank,
        score: item.score,
        tokens: item.tokens,
        line: item.line,
      })),
      text: renderBlock(result),
    };
  }
}
