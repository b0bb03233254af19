// The background rebuild of a team's passage index, for when documents written since its build found no room
// in rowid order (see src/index/passages/rowids.ts): until then that team's searches take the full expression, not the
// pruned one (long questions over 20,024 passages written while the index was live: 1.09–1.17× the FTS5 OR
// floor at p50 over HTTP, and 0.60× once rebuilt; docs/decisions/0085-repack-when-owed.md). A fresh
// index is loaded beside the live one (searches and writes go on against the old one), caught up as a
// shadow of the team, and swapped in.

import { PassageIndex } from "../index/passages/passage-index.js";
import type { TeamKey } from "../seal/team-key.js";
import { BUILD_PAGE_ROWS, type BuildDeps, packingOn } from "./build.js";
import { catchUp } from "./catch-up.js";
import { loadPassages } from "./load-passages.js";
import { progressLog } from "./progress.js";
import { LiveTeam } from "./team.js";
import type { UnreadableRows } from "./unreadable.js";

/**
 * The least time between two background rebuilds of one team's index. A write refused by it (or one that
 * came while a rebuild ran) leaves a rebuild owed, which starts once the interval is up, whether or not
 * another write comes: an import's later batches land after the first rebuild began, and nothing else would
 * bring the team back in order.
 */
export const REPACK_INTERVAL_MS = 60_000;

interface Repacking {
  /** The rebuild under way, while one runs. */
  running: Promise<void> | null;
  /** When the last rebuild finished (epoch ms). */
  finishedAt: number;
  /** The look again, once the interval is up. */
  later: ReturnType<typeof setTimeout> | null;
}

export class Repacker {
  readonly #teams = new WeakMap<LiveTeam, Repacking>();

  constructor(
    private readonly deps: BuildDeps,
    private readonly intervalMs: number = REPACK_INTERVAL_MS,
  ) {}

  /**
   * Starts a background rebuild when the team's passage index has documents out of rowid order. At most one
   * at a time per team, and at most one per REPACK_INTERVAL_MS, since each costs what a cold start does
   * (without blocking anyone).
   */
  repackIfNeeded(key: TeamKey, team: LiveTeam): void {
    const passages = team.passages;
    const repacking = this.#repacking(team);
    if (!passages || passages.unorderedDocuments() === 0) return;
    // One running looks again as it ends, for what was written meanwhile.
    if (repacking.running) return;
    const wait = repacking.finishedAt + this.intervalMs - this.deps.clock.now().getTime();
    if (wait > 0) {
      this.#later(key, team, repacking, wait);
      return;
    }
    repacking.running = this.#repack(key, team, passages)
      .catch((error: unknown) => {
        this.deps.logger.warn("index repack failed", {
          teamId: key.teamId,
          error: error instanceof Error ? error.name : "unknown",
        });
      })
      .finally(() => {
        repacking.running = null;
        repacking.finishedAt = this.deps.clock.now().getTime();
        // Written out of order while it ran (or it failed): owed, once the interval is up.
        this.repackIfNeeded(key, team);
      });
  }

  /** Looks again in `ms`: a team discarded (LiveIndexes.close discards every team) or back in order is left alone. */
  #later(key: TeamKey, team: LiveTeam, repacking: Repacking, ms: number): void {
    if (repacking.later) return;
    repacking.later = setTimeout(() => {
      repacking.later = null;
      this.repackIfNeeded(key, team);
    }, ms);
    // Owed work never holds a process open that is otherwise done (Node; other runtimes have no unref).
    (repacking.later as { unref?: () => void }).unref?.();
  }

  /** Resolves once the team's background rebuild, if one runs, has finished. */
  async settled(team: LiveTeam): Promise<void> {
    await this.#teams.get(team)?.running;
  }

  #repacking(team: LiveTeam): Repacking {
    let repacking = this.#teams.get(team);
    if (!repacking) {
      repacking = { running: null, finishedAt: 0, later: null };
      this.#teams.set(team, repacking);
    }
    return repacking;
  }

  /**
   * Loads a fresh index from storage outside the team's queue, then, in the queue, catches it up from the seq
   * read before loading and swaps it in.
   */
  async #repack(key: TeamKey, team: LiveTeam, old: PassageIndex): Promise<void> {
    const { storage, logger } = this.deps;
    const seq = await storage.changes.latestSeq(key.teamId);
    const fresh = new PassageIndex(this.deps.indexOptions);
    let unreadable: UnreadableRows;
    try {
      fresh.holdMerges(true);
      unreadable = await loadPassages(storage, key, fresh, BUILD_PAGE_ROWS, {
        onPage: progressLog(logger, key.teamId, performance.now()),
        ...packingOn(this.deps, key.teamId),
      });
      fresh.holdMerges(false);
    } catch (error) {
      fresh.close();
      throw error;
    }
    const swapped = await team.queue.run(async () => {
      const entries = team.entries;
      if (team.passages !== old || !entries) {
        fresh.close();
        return false;
      }
      // The entry index is not rebuilt, only caught up alongside: replaying a change re-reads the entry's
      // current row, so applying one it already has changes nothing.
      const shadow = new LiveTeam();
      shadow.install(fresh, entries, seq, { documents: unreadable, entries: team.unreadableEntries });
      try {
        await catchUp(this.deps, key, shadow);
      } catch (error) {
        // A failure inside an index discards the shadow, and with it the entry index it shares with the live
        // team: then the live team goes cold too, and the next read rebuilds both.
        fresh.close();
        if (!entries.isOpen()) team.discard();
        throw error;
      }
      team.swapPassages(fresh, shadow.unreadableDocuments, shadow.appliedSeq, shadow.checkedAt);
      old.close();
      return true;
    });
    if (swapped) {
      logger.info("index repacked", { teamId: key.teamId, ...fresh.counts() });
      this.deps.merges.settle(team, fresh);
    }
  }
}
