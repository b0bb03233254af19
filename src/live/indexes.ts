// The live, in-memory search indexes of every team this instance has served since it started.
//
// A team's indexes are built on its first request (a cold start), restored from its sealed snapshot where one
// is current and otherwise from the sealed rows (build.ts), one build at a time
// per team: concurrent requests await the same build. After that they are kept current by replaying the
// change log after the seq they have applied, which covers this instance's own writes and another
// instance's alike. Every change to them goes through the team's queue, so builds and catch-ups never
// overlap. This class only routes each call to its part: the registry (registry.ts, team.ts), the build
// and catch-up (build.ts, catch-up.ts), reconcile (reconcile.ts), repack (repack.ts) and merge scheduling
// (merges.ts).

import type { Clock } from "../clock.js";
import { DomainError, isDomainError } from "../errors.js";
import type { EntryIndex } from "../index/entry-index.js";
import type { PassageIndex, PassageIndexOptions } from "../index/passages/passage-index.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import type { Storage } from "../store/storage.js";
import { type BuildDeps, build, catchUpOrRebuild } from "./build.js";
import type { WrittenDocuments } from "./catch-up.js";
import {
  COMPACT_EVERY_CHANGES,
  type Compacted,
  compactChangeLog,
  DEFAULT_CHANGE_LOG_KEEP,
} from "./compaction.js";
import type { TextPacker } from "./load-passages.js";
import { MergeScheduler } from "./merges.js";
import { MemoryBudget } from "./ram-budget.js";
import { type Reconciled, reconcile } from "./reconcile.js";
import { TeamRegistry } from "./registry.js";
import { Repacker } from "./repack.js";
import { DEFAULT_SNAPSHOT_MIN_CHUNKS, type SnapshotCounts, Snapshots } from "./snapshot.js";
import type { IndexSource, IndexState, LiveTeam } from "./team.js";

export type { WrittenDocuments } from "./catch-up.js";
export type { Reconciled } from "./reconcile.js";
export type { IndexState } from "./team.js";

/** How many documents and entries a team's indexes left out because they did not open. */
export interface UnreadableCounts {
  documents: number;
  entries: number;
}

/** A team's two in-memory indexes: its document passages and its memory entries, and what they left out. */
export interface TeamIndex {
  passages: PassageIndex;
  entries: EntryIndex;
  unreadable: UnreadableCounts;
}

export interface IndexStatus {
  state: IndexState;
  appliedSeq: number | null;
  builtAt: string | null;
  buildMs: number | null;
  /** How the loaded index was made; null unless ready. */
  source: IndexSource | null;
  /** From the first read of storage to searchable, for the index loaded now (buildMs under API v1.3's name). */
  loadMs: number | null;
  /** Both indexes' estimated bytes in memory (see MemoryBudget); null unless ready. */
  memoryBytes: number | null;
}

export interface LiveIndexesDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** How stale this instance's view of a team may get before a read catches up first. */
  catchupMs: number;
  /** Options for every team index built; tests use them to make rowid ranges run out early. */
  indexOptions?: PassageIndexOptions;
  /** MEMORIA_INDEX_MEMORY_MB in bytes: over it, the least recently used teams' indexes close. None: no bound. */
  memoryBudgetBytes?: number;
  /**
   * MEMORIA_SNAPSHOT_MIN_CHUNKS: a build from rows of a team holding at least this many passages and entries
   * writes a sealed snapshot (live/snapshot.ts says why small teams do not). Tests pass 0.
   */
  snapshotMinChunks?: number;
  /** Changes a compaction keeps behind the latest (compaction.ts); tests pass small numbers. */
  changeLogKeep?: number;
  /** How long a team's writes pause before its index is merged whole (merges.ts QUIET_MS); tests shorten it. */
  mergeQuietMs?: number;
  /** The least time between two rebuilds of a team's index (repack.ts REPACK_INTERVAL_MS); tests shorten it. */
  repackIntervalMs?: number;
  /** Indexes merged whole after loads and writes (merges.ts); false with the whole-merge switch off. */
  wholeMerge?: boolean;
  /** Where builds from rows pack their text blocks (load-passages.ts); in the index when absent. */
  packText?: TextPacker;
}

export class LiveIndexes {
  readonly #registry = new TeamRegistry();
  readonly #build: BuildDeps;
  readonly #merges: MergeScheduler;
  readonly #repacker: Repacker;
  readonly #budget: MemoryBudget;
  readonly #snapshots: Snapshots;
  readonly #changeLogKeep: number;
  /** Per team, the applied seq at its last compaction from a write (or its first write seen). */
  readonly #compactedAt = new Map<string, number>();

  constructor(private readonly deps: LiveIndexesDeps) {
    this.#budget = new MemoryBudget(this.#registry, deps.logger, deps.memoryBudgetBytes ?? Infinity);
    this.#merges = new MergeScheduler(deps.logger, deps.mergeQuietMs, deps.wholeMerge);
    this.#snapshots = new Snapshots({
      storage: deps.storage,
      clock: deps.clock,
      logger: deps.logger,
      minChunks: deps.snapshotMinChunks ?? DEFAULT_SNAPSHOT_MIN_CHUNKS,
      indexOptions: deps.indexOptions,
    });
    this.#build = {
      storage: deps.storage,
      clock: deps.clock,
      logger: deps.logger,
      registry: this.#registry,
      merges: this.#merges,
      indexOptions: deps.indexOptions,
      snapshots: this.#snapshots,
      ...(deps.packText ? { packText: deps.packText } : {}),
    };
    this.#repacker = new Repacker(this.#build, deps.repackIntervalMs);
    this.#changeLogKeep = deps.changeLogKeep ?? DEFAULT_CHANGE_LOG_KEEP;
  }

  status(teamId: string): IndexStatus {
    const team = this.#registry.get(teamId);
    if (!team) {
      return {
        state: "cold",
        appliedSeq: null,
        builtAt: null,
        buildMs: null,
        source: null,
        loadMs: null,
        memoryBytes: null,
      };
    }
    return {
      state: team.state,
      appliedSeq: team.state === "ready" ? team.appliedSeq : null,
      builtAt: team.builtAt?.toISOString() ?? null,
      buildMs: team.buildMs,
      source: team.state === "ready" ? team.source : null,
      loadMs: team.state === "ready" ? team.buildMs : null,
      memoryBytes: team.state === "ready" ? team.memoryBytes : null,
    };
  }

  /**
   * What the team's indexes left out because it did not open, as of their last build or catch-up; null when
   * this instance holds no index for the team (nothing has tried to open its rows yet). For stats and metrics.
   */
  unreadableCounts(teamId: string): UnreadableCounts | null {
    const team = this.#registry.get(teamId);
    if (team?.state !== "ready") return null;
    return { documents: team.unreadableDocuments.count, entries: team.unreadableEntries.count };
  }

  /** The team's indexes, built if this is its first use and caught up if they may be stale. */
  async ready(key: TeamKey): Promise<TeamIndex> {
    const team = this.#registry.open(key.teamId);
    this.#budget.touch(team);
    if (team.state === "cold") team.markBuilding();
    const built = await team.queue.run(async () => {
      if (team.state !== "ready") {
        await build(this.#build, key, team);
        team.measureMemory();
        return true;
      }
      if (this.deps.clock.now().getTime() - team.checkedAt >= this.deps.catchupMs) {
        try {
          await catchUpOrRebuild(this.#build, key, team);
        } catch (error) {
          if (!isDomainError(error, "unavailable") || team.state !== "ready") throw error;
          // Storage is away: answer from what is loaded (as of the last catch-up), and ask storage again only
          // after catchupMs, so storage that stalls costs one request in each window its timeout, not every one.
          team.markChecked(this.deps.clock.now().getTime());
          return false;
        }
        team.measureMemory();
      }
      return false;
    });
    if (built) this.#budget.enforce(team);
    // Only a drop (the team was deleted meanwhile) leaves a successful run without an index.
    const { passages, entries } = team;
    if (!passages || !entries)
      throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
    return {
      passages,
      entries,
      unreadable: { documents: team.unreadableDocuments.count, entries: team.unreadableEntries.count },
    };
  }

  /**
   * Called after a write to the team has committed, before it is acknowledged, so the write is visible to
   * the next search. A team with no index yet has nothing to update: its build will read storage.
   */
  async committed(key: TeamKey): Promise<void> {
    const team = this.#registry.get(key.teamId);
    if (!team || team.state === "cold") return;
    this.#budget.touch(team);
    await team.queue.run(async () => {
      await catchUpOrRebuild(this.#build, key, team);
      team.measureMemory();
    });
    this.#repacker.repackIfNeeded(key, team);
    this.#mergeWholeWhenQuiet(team);
    this.#budget.enforce(team);
    this.#compactNowAndThen(key.teamId, team.appliedSeq);
  }

  /**
   * Called after a transaction of this instance's document writes has committed, before it is acknowledged,
   * with what it wrote: as `committed`, but an index level with the seq just before the transaction takes
   * the documents as they are instead of re-reading them (see catch-up.ts catchUpWith).
   */
  async committedDocuments(key: TeamKey, written: WrittenDocuments): Promise<void> {
    const team = this.#registry.get(key.teamId);
    if (!team || team.state === "cold") return;
    this.#budget.touch(team);
    await team.queue.run(async () => {
      await catchUpOrRebuild(this.#build, key, team, written);
      team.measureMemory();
    });
    this.#repacker.repackIfNeeded(key, team);
    this.#mergeWholeWhenQuiet(team);
    this.#budget.enforce(team);
    this.#compactNowAndThen(key.teamId, team.appliedSeq);
  }

  /**
   * Deletes the team's changes that neither its stored snapshot nor the catch-up window still needs
   * (compaction.ts). The reindex ping calls it for each team it brings level; writes call it every
   * COMPACT_EVERY_CHANGES changes, so the log stays bounded where nothing pings.
   */
  async compactChangeLog(teamId: string): Promise<Compacted> {
    const compacted = await compactChangeLog(this.deps.storage, teamId, this.#changeLogKeep);
    if (compacted.deleted > 0) {
      this.deps.logger.info("change log compacted", {
        teamId,
        through: compacted.through,
        deleted: compacted.deleted,
      });
    }
    return compacted;
  }

  /** After a write: the team's index merged whole once its writes pause, if enough was written (merges.ts). */
  #mergeWholeWhenQuiet(team: LiveTeam): void {
    if (team.passages) this.#merges.mergeWholeWhenQuiet(team, team.passages);
  }

  /** In the background, once COMPACT_EVERY_CHANGES changes have gone by since the team's last compaction. */
  #compactNowAndThen(teamId: string, seq: number): void {
    const last = this.#compactedAt.get(teamId);
    if (last === undefined) {
      this.#compactedAt.set(teamId, seq);
      return;
    }
    if (seq - last < COMPACT_EVERY_CHANGES) return;
    this.#compactedAt.set(teamId, seq);
    void this.compactChangeLog(teamId).then(
      () => undefined,
      (error: unknown) => {
        // The log only stays longer until the next try; nothing is lost.
        this.deps.logger.warn("change log not compacted", {
          teamId,
          error: error instanceof Error ? error.name : "unknown",
        });
      },
    );
  }

  /**
   * Resolves once the team's index has finished the merging its build held back: from then on searches run
   * at their steady speed. Benchmarks wait for it; nothing else needs to.
   */
  async settled(teamId: string): Promise<void> {
    const team = this.#registry.get(teamId);
    if (!team) return;
    await this.#repacker.settled(team);
    await this.#merges.settled(team);
  }

  /** The teams whose indexes this instance holds (built or being built). */
  loadedTeams(): string[] {
    return this.#registry.loadedTeamIds();
  }

  /** The loaded indexes' estimated bytes in memory, summed over teams, as of their last build or write. */
  memoryBytes(): number {
    return this.#budget.heldBytes();
  }

  /** The memory budget in bytes; Infinity when there is none. */
  memoryBudgetBytes(): number {
    return this.#budget.budgetBytes;
  }

  /** Resolves once every eviction the memory budget has queued so far has run. Tests wait for it. */
  async evictionsSettled(): Promise<void> {
    await this.#budget.settled();
  }

  /**
   * What the loaded indexes hold, summed over teams: the metrics' measure of index memory. Read-only; a team
   * still building counts what it has installed so far.
   */
  heldCounts(): { documents: number; chunks: number; entries: number } {
    const held = { documents: 0, chunks: 0, entries: 0 };
    for (const teamId of this.#registry.teamIds()) {
      const team = this.#registry.get(teamId);
      if (team?.passages?.isOpen()) {
        const { documents, chunks } = team.passages.counts();
        held.documents += documents;
        held.chunks += chunks;
      }
      if (team?.entries?.isOpen()) held.entries += team.entries.count();
    }
    return held;
  }

  /**
   * Brings the team's indexes level with storage: builds them if cold, catches up whatever its staleness,
   * then compares what they hold with storage's counts and seq, and rebuilds them when they still disagree
   * (see reconcile.ts). Runs in the team's queue.
   */
  async reconcile(key: TeamKey): Promise<Reconciled> {
    const team = this.#registry.open(key.teamId);
    if (team.state === "cold") team.markBuilding();
    this.#budget.touch(team);
    const reconciled = await team.queue.run(async () => {
      const result = await reconcile(this.#build, key, team);
      team.measureMemory();
      return result;
    });
    this.#budget.enforce(team);
    return reconciled;
  }

  /**
   * Writes the team's sealed snapshot if the stored one is behind its loaded indexes (the reindex ping, for
   * each team it brings level; a graceful shutdown, for every loaded team). Nothing for a team not loaded
   * here. A failure is logged and answers false: the snapshot is an optimisation, the rows stay the truth.
   */
  async refreshSnapshot(key: TeamKey): Promise<boolean> {
    const team = this.#registry.get(key.teamId);
    if (team?.state !== "ready") return false;
    try {
      // One holding rows the indexes dropped since (verify.ts) is replaced, though its seq is current.
      const outdated = team.snapshotOutdated;
      const written = await this.#snapshots.refresh(key, team, { replace: outdated });
      if (written && outdated) team.markSnapshotCurrent();
      return written;
    } catch (error) {
      this.deps.logger.warn("index snapshot not written", {
        teamId: key.teamId,
        error: error instanceof Error ? error.name : "unknown",
      });
      return false;
    }
  }

  /** What this instance did with snapshots since it started: restored, ignored, written. */
  snapshotCounts(): SnapshotCounts {
    return { ...this.#snapshots.counts };
  }

  /**
   * Whether work no request waits on is under way: a snapshot being written, or waiting for its build's
   * merging, or an index being merged whole. The Node entry's idle collection counts it as activity
   * (src/runtime/tuning/idle-collection.ts), so the pages a merge leaves cached are released after it.
   */
  backgroundBusy(): boolean {
    return this.#snapshots.busy() || this.#merges.busy();
  }

  /**
   * Gives each loaded team's passage writer's page cache back to malloc (PassageIndex.releaseMemory), for
   * when the server is idle. Outside the teams' queues: SQLite frees only pages no statement holds.
   */
  releaseMemory(): void {
    for (const teamId of this.#registry.teamIds()) this.#registry.get(teamId)?.passages?.releaseMemory();
  }

  /** Resolves once every snapshot a build has queued in the background so far is written. Tests wait for it. */
  async snapshotsSettled(): Promise<void> {
    await this.#snapshots.settled();
  }

  /** Forgets a team's index (its team was deleted). */
  drop(teamId: string): void {
    this.#compactedAt.delete(teamId);
    const team = this.#registry.forget(teamId);
    if (team) void team.queue.run(async () => team.discard());
  }

  close(): void {
    this.#merges.close();
    for (const teamId of this.#registry.teamIds()) this.drop(teamId);
  }
}
