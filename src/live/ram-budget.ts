// The memory budget for the teams' in-memory indexes (MEMORIA_INDEX_MEMORY_MB): when the loaded indexes'
// estimated bytes exceed it, the least recently used teams' indexes are closed, and their next request builds
// them again: from the team's sealed index snapshot when it has one (src/live/snapshot.ts), else from rows.
//
// The total is checked after a build and after a committed write — the only moments it grows — never on a
// search, which only bumps a counter. An eviction runs in its team's queue, like a drop, so it never closes
// an index a build, catch-up or repack is using, and it waits one macrotask first so a request already handed
// the index finishes its synchronous read. A team used again after its eviction was queued is kept.

import type { Logger } from "../logger.js";
import type { TeamRegistry } from "./registry.js";
import type { LiveTeam } from "./team.js";

export class MemoryBudget {
  /** Bumped on every use; a counter and not a clock, so the LRU order never ties and needs no time source. */
  #tick = 0;
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly registry: TeamRegistry,
    private readonly logger: Logger,
    /** The budget in bytes; Infinity for none. */
    readonly budgetBytes: number,
  ) {}

  /** Marks the team as just used: the cheap counter bump on every ready() and committed(). */
  touch(team: LiveTeam): void {
    team.touch(++this.#tick);
  }

  /** The loaded indexes' estimated bytes, summed over teams (those queued for eviction included). */
  heldBytes(): number {
    let total = 0;
    for (const teamId of this.registry.teamIds()) total += this.registry.get(teamId)?.memoryBytes ?? 0;
    return total;
  }

  /**
   * Queues the evictions that bring the total within the budget, least recently used first. `current` (the
   * team just built or written) is never evicted, nor is a team still building: a team bigger than the whole
   * budget stays loaded alone rather than be rebuilt on every request.
   */
  enforce(current: LiveTeam): void {
    if (!Number.isFinite(this.budgetBytes)) return;
    let total = 0;
    const candidates: { teamId: string; team: LiveTeam }[] = [];
    for (const teamId of this.registry.teamIds()) {
      const team = this.registry.get(teamId);
      if (!team || team.evicting) continue;
      total += team.memoryBytes;
      if (team !== current && team.state === "ready") candidates.push({ teamId, team });
    }
    if (total <= this.budgetBytes) return;
    candidates.sort((a, b) => a.team.lastUsed - b.team.lastUsed);
    for (const { teamId, team } of candidates) {
      if (total <= this.budgetBytes) break;
      total -= team.memoryBytes;
      this.#evict(teamId, team);
    }
  }

  /** Resolves once every eviction queued so far has run (or given up). Tests wait for it. */
  async settled(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  #evict(teamId: string, team: LiveTeam): void {
    const usedAt = team.lastUsed;
    team.markEvicting(true);
    const done = team.queue.run(async () => {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      if (!this.registry.holds(teamId, team) || team.state !== "ready" || team.lastUsed !== usedAt) {
        team.markEvicting(false);
        return;
      }
      const bytes = team.memoryBytes;
      team.discard();
      // Counts only: which team, how much, and where the instance stands; never what the index held.
      this.logger.info("index evicted", {
        teamId,
        bytes,
        heldBytes: this.heldBytes(),
        budgetBytes: this.budgetBytes,
        loadedTeams: this.registry.loadedTeamIds().length,
      });
    });
    this.#pending.add(done);
    const forget = () => void this.#pending.delete(done);
    done.then(forget, forget);
  }
}
