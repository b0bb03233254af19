// A team's cold start: both indexes restored from the team's sealed snapshot when it has one that opens
// (src/live/snapshot.ts), or else loaded from the sealed rows; either way caught up past the seq they reflect,
// so a write racing the build is never lost.

import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { EntryIndex } from "../index/entry-index.js";
import { PassageIndex, type PassageIndexOptions } from "../index/passages/passage-index.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import type { SnapshotHead } from "../store/snapshots.js";
import type { Storage } from "../store/storage.js";
import { ChangeLogCompacted, catchUp, catchUpWith, type WrittenDocuments } from "./catch-up.js";
import { loadEntries } from "./load-entries.js";
import { type LoadPassagesOptions, loadPassages, type TextPacker } from "./load-passages.js";
import type { MergeScheduler } from "./merges.js";
import { progressLog } from "./progress.js";
import type { TeamRegistry } from "./registry.js";
import type { Snapshots } from "./snapshot.js";
import type { LiveTeam } from "./team.js";
import type { UnreadableRows } from "./unreadable.js";

/**
 * Rows read per storage round trip during a build. Large enough that per-query overhead vanishes next to
 * opening and indexing (32 chunk runs are up to 1 MB of text, typically ~0.3 MB), small enough that the event
 * loop gets a turn between pages and memory stays flat. It was 256: every page's sealed and opened rows are
 * freed while the index grows around them, and the allocator keeps the holes, so a settled index of 20k
 * ten-section passages held ~93 MiB of RSS at 256 and ~52 MiB at 32 (docs/decisions/0023-index-memory-layout.md).
 */
export const BUILD_PAGE_ROWS = 32;
/** Entries read per storage round trip during a build: each is one small sealed row (~1 KB). */
const BUILD_PAGE_ENTRIES = 1024;

export interface BuildDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  registry: TeamRegistry;
  merges: MergeScheduler;
  indexOptions?: PassageIndexOptions;
  /** The team's sealed snapshots: tried before the rows, and written after a build from them. */
  snapshots?: Snapshots;
  /** Where a build from rows packs its text blocks (load-passages.ts); in the index when absent. */
  packText?: TextPacker;
}

/**
 * Builds the team's indexes from its snapshot or from storage's rows, and marks them ready. Runs in the team's queue. On any failure the
 * team is left cold, holding no index, and the next read tries again.
 */
export async function build(
  deps: BuildDeps,
  key: TeamKey,
  team: LiveTeam,
  options: { fromRows?: boolean } = {},
): Promise<void> {
  const { storage, clock, logger, registry } = deps;
  // `fromRows`: a rebuild because the indexes disagreed with storage, which the snapshot would only repeat.
  const trySnapshot = deps.snapshots !== undefined && !options.fromRows;
  const started = performance.now();
  // A team deleted while this waited in its queue (or whose delete raced the request that asked for it)
  // must not get an index: it would hold the team's plaintext in memory after the delete answered. The
  // delete removes the team's row before it drops the index, so the read of its row sees it gone.
  const gone = () => {
    if (registry.holds(key.teamId, team)) registry.forget(key.teamId);
    team.markCold();
    return new DomainError("not_found", `No team ${key.teamId}.`);
  };
  if (!registry.holds(key.teamId, team)) throw gone();
  // What a build reads before the index itself, all at once: one round trip where a wake paid three in turn
  // (~40 ms of a wake with storage 20 ms away). The seq is read before any row or snapshot part: anything
  // committed after it is replayed by the catch-up that ends the build, and replaying a change re-reads the
  // document's current rows, so a write racing the build is never lost. A snapshot stored after it is seen as
  // ahead of the log and passed over, for the rows.
  const [stillThere, latestSeq, head] = await Promise.all([
    storage.teams.get(key.teamId),
    storage.changes.latestSeq(key.teamId),
    trySnapshot ? storage.snapshots.head(key.teamId) : null,
  ]);
  if (!stillThere || !registry.holds(key.teamId, team)) throw gone();
  team.markBuilding();
  const snapshot = trySnapshot ? await restoreSnapshot(deps, key, team, started, latestSeq, head) : "none";
  if (snapshot === "restored") return;
  const passages = new PassageIndex(deps.indexOptions);
  const entries = new EntryIndex();
  try {
    // A snapshot passed over after a while (a part that did not open, a log compacted past it) leaves the seq
    // read before it far behind: read again, so the catch-up replays only what the rows do not hold.
    const seq = snapshot === "ignored" ? await storage.changes.latestSeq(key.teamId) : latestSeq;
    passages.holdMerges(true);
    let unreadableDocuments: UnreadableRows;
    try {
      unreadableDocuments = await loadPassages(storage, key, passages, BUILD_PAGE_ROWS, {
        onPage: progressLog(logger, key.teamId, started),
        ...packingOn(deps, key.teamId),
      });
    } finally {
      passages.holdMerges(false);
    }
    const unreadableEntries = await loadEntries(storage, key, entries, BUILD_PAGE_ENTRIES);
    // Counts only: which rows they are is for an operator with the database, not for a log.
    if (unreadableDocuments.count + unreadableEntries.count > 0) {
      logger.warn("index left out rows that did not open", {
        teamId: key.teamId,
        documents: unreadableDocuments.count,
        entries: unreadableEntries.count,
      });
    }
    // Loading in pages leaves FTS5 a segment or more per page; one merge afterwards makes every later match
    // read cheaper (measured at 100k entries: 132 ms once, against ~1 ms off a typical match read).
    entries.optimize();
    team.install(passages, entries, seq, { documents: unreadableDocuments, entries: unreadableEntries });
    await catchUp(deps, key, team);
    team.markReady(clock.now(), Math.round(performance.now() - started), "rows");
    logger.info("index built", {
      teamId: key.teamId,
      ...passages.counts(),
      entries: entries.count(),
      buildMs: team.buildMs,
    });
    deps.merges.settle(team, passages);
    deps.snapshots?.afterBuild(
      key,
      team,
      deps.merges.settled(team),
      snapshot === "ignored" || options.fromRows === true,
    );
  } catch (error) {
    passages.close();
    entries.close();
    team.discard();
    throw error;
  }
}

/**
 * What a load from rows packs its text with (the servers' chunk worker, when given), and the warning once if
 * that fails: the load then packs on the request thread, as slower builds did before (decision 0108). The
 * pool's messages name the failure (a crash, a timeout), never any text.
 */
export function packingOn(deps: BuildDeps, teamId: string): LoadPassagesOptions {
  const { packText, logger } = deps;
  if (!packText) return {};
  return {
    packText,
    onPackFailed: (error) =>
      logger.warn("packing text on the chunk worker failed; packing on this thread", {
        teamId,
        error: error instanceof Error ? error.message : "unknown error",
      }),
  };
}

/**
 * Catches the team's ready indexes up (with this instance's own write in hand when `written` is given), or
 * rebuilds them when the change log was compacted past them: an instance that lagged further behind than
 * the log keeps starts over, from the snapshot when it is recent enough, else from rows. Runs in the queue.
 */
export async function catchUpOrRebuild(
  deps: BuildDeps,
  key: TeamKey,
  team: LiveTeam,
  written?: WrittenDocuments,
): Promise<void> {
  try {
    await (written ? catchUpWith(deps, key, team, written) : catchUp(deps, key, team));
  } catch (error) {
    if (!(error instanceof ChangeLogCompacted)) throw error;
    deps.logger.warn("change log compacted past the index; rebuilding", {
      teamId: key.teamId,
      appliedSeq: error.appliedSeq,
      nextSeq: error.nextSeq,
    });
    team.discard();
    team.markBuilding();
    await build(deps, key, team);
  }
}

/**
 * Installs the team's indexes from its snapshot and catches them up; "restored" once they are ready. A
 * snapshot that was ignored (or none) leaves the team building, for the rows to be loaded.
 */
async function restoreSnapshot(
  deps: BuildDeps,
  key: TeamKey,
  team: LiveTeam,
  started: number,
  latestSeq: number,
  head: SnapshotHead | null,
): Promise<"restored" | "ignored" | "none"> {
  const { clock, logger } = deps;
  const snapshots = deps.snapshots as Snapshots;
  const restored = await snapshots.restore(key, latestSeq, head);
  if (restored.kind !== "restored") return restored.kind;
  const { passages, entries } = restored;
  try {
    team.install(passages, entries, restored.seq, restored.unreadable);
    team.markRestored();
    await catchUp(deps, key, team);
  } catch (error) {
    passages.close();
    entries.close();
    team.discard();
    // The log was compacted past the snapshot (one written late by a lagging instance): rows, then a fresh one.
    if (error instanceof ChangeLogCompacted) {
      team.markBuilding();
      snapshots.counts.ignored++;
      logger.warn("index snapshot ignored; rebuilding from rows", {
        teamId: key.teamId,
        reason: "compacted",
        seq: restored.seq,
        latestSeq,
      });
      return "ignored";
    }
    throw error;
  }
  team.markReady(clock.now(), Math.round(performance.now() - started), "snapshot");
  logger.info("index restored from snapshot", {
    teamId: key.teamId,
    ...passages.counts(),
    entries: entries.count(),
    seq: restored.seq,
    caughtUpTo: team.appliedSeq,
    parts: restored.parts,
    bytes: restored.bytes,
    buildMs: team.buildMs,
  });
  // A snapshot taken before its build's merging had settled restores with that merging still to do.
  deps.merges.settle(team, passages);
  return "restored";
}
