// The segment merging a load held back (PassageIndex.holdMerges), finished after it in short steps, so the
// first answer never waits for it.

import type { PassageIndex } from "../index/passage-index.js";
import type { Logger } from "../logger.js";
import type { LiveTeam } from "./team.js";

export class MergeScheduler {
  /** Per team, the merging left over from its last load; settled when there is none left. */
  readonly #merging = new WeakMap<LiveTeam, Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /**
   * Finishes the merging of `passages`, one short step per turn of the event loop and through the team's
   * queue, so searches and writes interleave with it. Stops once `passages` is no longer the team's index.
   */
  settle(team: LiveTeam, passages: PassageIndex): void {
    const merging = new Promise<void>((done) => {
      const step = () => {
        if (team.passages !== passages) return done();
        team.queue
          .run(async () => (team.passages === passages ? passages.mergeStep() : false))
          .then((more) => (more ? setTimeout(step, 0) : done()))
          .catch((error: unknown) => {
            this.logger.warn("index merge step failed", {
              error: error instanceof Error ? error.name : "unknown",
            });
            done();
          });
      };
      setTimeout(step, 0);
    });
    this.#merging.set(team, merging);
  }

  /** Resolves once the team's latest load has no merging left. */
  async settled(team: LiveTeam): Promise<void> {
    await this.#merging.get(team);
  }
}
