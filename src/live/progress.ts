// What a long load of a team's passages says in the log while it runs: counts and times, never content.

import type { Logger } from "../logger.js";

/** How often a long build reports its progress in the log. */
const PROGRESS_LOG_MS = 2000;

/**
 * A page callback for loadPassages that logs, at most every PROGRESS_LOG_MS, how many passages are indexed
 * so far and for how long the load (begun at `started`, a performance.now() reading) has run.
 */
export function progressLog(logger: Logger, teamId: string, started: number): (passages: number) => void {
  let last = started;
  return (passages) => {
    const now = performance.now();
    if (now - last < PROGRESS_LOG_MS) return;
    last = now;
    logger.info("index building", { teamId, passages, ms: Math.round(now - started) });
  };
}
