// Bounding a team's change log. Every write appends a change; without compaction a long-lived team's log
// grows for ever. What is still needed: the changes after the stored snapshot's seq (a restore replays
// them) and a window of recent changes for instances catching up. Everything at or below both goes. An
// instance whose index is older than what is left sees a gap in the seqs and rebuilds (catch-up.ts), as a
// cold start does. See docs/decisions/0030-restored-indexes-and-log-bound.md.

import type { Storage } from "../store/storage.js";

/**
 * Changes kept behind the latest, whatever the snapshot: an instance this far behind rebuilds rather than
 * replays. Replaying re-reads and re-opens each named row, so 10,000 changes cost about what rebuilding a
 * 10,000-passage team costs (~0.7 s on a 2-core machine, docs/decisions/0021), and past it a rebuild is no
 * dearer than the replay. 10,000 rows of the log are ~1 MB of storage a team.
 */
export const DEFAULT_CHANGE_LOG_KEEP = 10_000;

/**
 * Changes appended to a team, as this instance sees them, between compactions outside the reindex ping: a
 * DELETE every 1,000 writes is nothing beside the writes, and bounds the log at keep + 1,000 where no
 * scheduler pings.
 */
export const COMPACT_EVERY_CHANGES = 1_000;

/** What one compaction did. */
export interface Compacted {
  /** The seq at or below which changes were deleted (the latest excepted); 0 when none could be. */
  through: number;
  deleted: number;
}

/** Deletes the team's changes neither its stored snapshot nor the catch-up window of `keep` still needs. */
export async function compactChangeLog(storage: Storage, teamId: string, keep: number): Promise<Compacted> {
  const [latest, head] = await Promise.all([
    storage.changes.latestSeq(teamId),
    storage.snapshots.head(teamId),
  ]);
  // A restore of the snapshot replays every change after its seq: those stay.
  const through = Math.min(latest - keep, head ? head.seq : Number.POSITIVE_INFINITY);
  if (through <= 0) return { through: 0, deleted: 0 };
  return { through, deleted: await storage.changes.compact(teamId, through) };
}
