// The segment merging an index needs after it was written, into one segment each time: after a load (which
// held FTS5's own merging back, PassageIndex.holdMerges), and after writes once they pause
// (PassageIndex.needsWholeMerge). Both run in short steps through the team's queue, so searches and writes
// interleave with them and the first answer never waits for one. With the whole-merge switch off (src/tuning.ts)
// a load's merging stops at FTS5's own levels, leaving several segments, and writes are never merged after:
// a wake's RSS at its first answer was then 1.22× (decision 0111).

import type { PassageIndex } from "../index/passages/passage-index.js";
import type { Logger } from "../logger.js";
import type { LiveTeam } from "./team.js";

/**
 * How long a team's writes must pause before its index is merged whole. An import or the batch route sends
 * its requests back to back (a round trip and a write apart), so a burst is merged once, after its last write;
 * a merge started while writes still come would only be merged again after them.
 */
export const QUIET_MS = 1000;

interface QuietMerge {
  timer: ReturnType<typeof setTimeout> | null;
  passages: PassageIndex;
  done: Promise<void>;
  resolve: () => void;
}

export class MergeScheduler {
  /** Per team, the merging left over from its last load; settled when there is none left. */
  readonly #merging = new WeakMap<LiveTeam, Promise<void>>();
  /** Per team, a whole merge waiting for its writes to pause, or running. */
  readonly #quiet = new Map<LiveTeam, QuietMerge>();
  #closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly quietMs: number = QUIET_MS,
    /** Merged whole after loads and writes (decision 0084); false with the whole-merge switch off (src/tuning.ts). */
    private readonly whole = true,
  ) {}

  /**
   * Finishes the merging of `passages` after a load, whole: into one segment, one short step per turn of the
   * event loop and through the team's queue, so searches and writes interleave with it. Stops once `passages`
   * is no longer the team's index. A build's snapshot waits for it, so a restore starts from one segment too.
   */
  settle(team: LiveTeam, passages: PassageIndex): void {
    this.#merging.set(
      team,
      this.#steps(team, passages, () => (this.whole ? passages.wholeMergeStep() : passages.levelMergeStep())),
    );
  }

  /**
   * Merges `passages` whole once the team's writes have paused for quietMs; each write before then starts the
   * wait again. Does nothing unless enough was written since it was last one segment (needsWholeMerge).
   */
  mergeWholeWhenQuiet(team: LiveTeam, passages: PassageIndex): void {
    if (this.#closed || !this.whole || !passages.needsWholeMerge()) return;
    let waiting = this.#quiet.get(team);
    if (waiting && waiting.passages !== passages) {
      // The team's index was replaced (a rebuild): the old one's merge has nothing left to wait for.
      if (waiting.timer) clearTimeout(waiting.timer);
      waiting.resolve();
      waiting = undefined;
    }
    if (waiting?.timer === null) return; // Running: what was written meanwhile is merged with the rest.
    if (waiting?.timer) clearTimeout(waiting.timer);
    if (!waiting) {
      let resolve = () => {};
      const done = new Promise<void>((r) => {
        resolve = r;
      });
      waiting = { timer: null, passages, done, resolve };
      this.#quiet.set(team, waiting);
    }
    const merge = waiting;
    merge.timer = setTimeout(() => {
      merge.timer = null;
      void this.#steps(team, passages, () => passages.wholeMergeStep()).then(() => {
        if (this.#quiet.get(team) === merge) this.#quiet.delete(team);
        merge.resolve();
        // Written again while it ran, enough for another: wait for that burst to end too.
        if (team.passages === passages && passages.isOpen()) this.mergeWholeWhenQuiet(team, passages);
      });
    }, this.quietMs);
  }

  /** Whether a whole merge is running now (not one waiting for its writes to pause). */
  busy(): boolean {
    for (const merge of this.#quiet.values()) if (merge.timer === null) return true;
    return false;
  }

  /** Resolves once the team's latest load has no merging left, and no whole merge waits or runs. */
  async settled(team: LiveTeam): Promise<void> {
    await this.#merging.get(team);
    await this.#quiet.get(team)?.done;
  }

  /** Drops every whole merge still waiting; one running stops at its next step, its index closed. */
  close(): void {
    this.#closed = true;
    for (const merge of this.#quiet.values()) {
      if (merge.timer) clearTimeout(merge.timer);
      merge.resolve();
    }
    this.#quiet.clear();
  }

  #steps(team: LiveTeam, passages: PassageIndex, step: () => boolean): Promise<void> {
    return new Promise<void>((done) => {
      const next = () => {
        if (team.passages !== passages || !passages.isOpen()) return done();
        team.queue
          .run(async () => (team.passages === passages && passages.isOpen() ? step() : false))
          .then((more) => (more ? setTimeout(next, 0) : done()))
          .catch((error: unknown) => {
            this.logger.warn("index merge step failed", {
              error: error instanceof Error ? error.name : "unknown",
            });
            done();
          });
      };
      setTimeout(next, 0);
    });
  }
}
