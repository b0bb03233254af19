// The working-memory block for an agent: gather the pool from the team's entry index, rank and cut it to the
// budget, render it. The ranking itself is pure (src/memory); this only fetches its inputs.

import { DomainError } from "../errors.js";
import type { LiveIndexes } from "../live/indexes.js";
import { renderBlock } from "../memory/block.js";
import { gather } from "../memory/gather.js";
import { fuse, type SliceResult, slice } from "../memory/slice.js";
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

/** An entry of the ranking the budget left out: where it ranked and what it is called. */
export interface SkippedEntry {
  id: string;
  rank: number;
  title: string;
}

export interface MemoryDeps {
  indexes: LiveIndexes;
}

export class MemoryService {
  constructor(private readonly deps: MemoryDeps) {}

  async workingMemory(key: TeamKey, request: MemoryRequest): Promise<WorkingMemory> {
    return (await this.#answer(key, request)).memory;
  }

  /**
   * The working memory and the entries it skipped, in rank order, for a person to see what the budget cut:
   * the API's answer counts them only, so its shape (and an agent's prompt) stays as it is.
   */
  async workingMemoryWithSkipped(
    key: TeamKey,
    request: MemoryRequest,
  ): Promise<{ memory: WorkingMemory; skippedEntries: SkippedEntry[] }> {
    const { memory, pool, matched } = await this.#answer(key, request);
    const included = new Set(memory.items.map((item) => item.id));
    const skippedEntries = fuse(pool, { matched, project: request.project }).flatMap(({ entry }, i) =>
      included.has(entry.id) ? [] : [{ id: entry.id, rank: i + 1, title: entry.title }],
    );
    return { memory, skippedEntries };
  }

  async #answer(key: TeamKey, request: MemoryRequest) {
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
    const memory: WorkingMemory = {
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
    return { memory, pool: pool.entries, matched: pool.matched };
  }
}
