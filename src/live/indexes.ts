// The live, in-memory search index of every team this instance has served since it started.
//
// A team's index is built on its first request (a cold start) from the sealed rows, one build at a time per
// team: concurrent requests await the same build. After that it is kept current by replaying the change log
// after the seq it has applied, which covers this instance's own writes and another instance's alike. Every
// change to an index goes through the team's queue, so builds and catch-ups never overlap.

import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { EntryIndex } from "../index/entry-index.js";
import { PassageIndex, type PassageIndexOptions } from "../index/passage-index.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import type { Storage } from "../store/storage.js";
import { loadEntries, readEntry } from "./load-entries.js";
import { loadPassages, readDocument } from "./load-passages.js";

/** A team's two in-memory indexes: its document passages and its memory entries. */
export interface TeamIndex {
  passages: PassageIndex;
  entries: EntryIndex;
}

/** What reconcile() found and did for one team. */
export interface Reconciled {
  documents: number;
  chunks: number;
  entries: number;
  appliedSeq: number;
  storedSeq: number;
  rebuilt: boolean;
}

export type IndexState = "cold" | "building" | "ready";

export interface IndexStatus {
  state: IndexState;
  appliedSeq: number | null;
  builtAt: string | null;
  buildMs: number | null;
}

/**
 * Rows read per storage round trip during a build. Large enough that per-query overhead vanishes next to
 * opening and indexing (256 chunk runs are up to 8 MB of text, typically ~2.5 MB), small enough that the event
 * loop gets a turn between pages and memory stays flat.
 */
const BUILD_PAGE_ROWS = 256;
/** Entries read per storage round trip during a build: each is one small sealed row (~1 KB). */
const BUILD_PAGE_ENTRIES = 1024;
/** How often a long build reports its progress in the log. */
const PROGRESS_LOG_MS = 2000;
/** The least time between two background rebuilds of one team's index. */
const REPACK_INTERVAL_MS = 60_000;
/**
 * How often reconcile() re-reads storage when writes from another instance land while it compares: each
 * round catches up first, so only a team written to without pause exhausts them (and is left as it is, to be
 * compared on the next ping).
 */
const RECONCILE_ROUNDS = 3;
/** Change records read per round trip while catching up. */
const CATCHUP_PAGE = 500;
/**
 * Documents read and opened at once while catching up: enough to overlap storage and decryption, few enough
 * that a lagging instance replaying 500 changes of 5 MiB documents does not hold them all in memory.
 */
const CATCHUP_DOCUMENTS_AT_ONCE = 16;
/** Entries read and opened at once while catching up: each is one small row, so many overlap cheaply. */
const CATCHUP_ENTRIES_AT_ONCE = 256;

class LiveIndex {
  state: IndexState = "cold";
  index: PassageIndex | null = null;
  entries: EntryIndex | null = null;
  appliedSeq = 0;
  builtAt: Date | null = null;
  buildMs: number | null = null;
  /** The merging left over from the build, done in steps after it; settled when there is none left. */
  merging: Promise<void> = Promise.resolve();
  /** A rebuild in the background that puts every document's rowids back in order, while one runs. */
  repacking: Promise<void> | null = null;
  /** When the last background rebuild finished (epoch ms). */
  repackedAt = 0;
  /** When this instance last compared its applied seq with storage's (epoch ms). */
  checkedAt = 0;
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it; a failed task does not poison the queue. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

export interface LiveIndexesDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** How stale this instance's view of a team may get before a read catches up first. */
  catchupMs: number;
  /** Options for every team index built; tests use them to make rowid ranges run out early. */
  indexOptions?: PassageIndexOptions;
}

export class LiveIndexes {
  readonly #teams = new Map<string, LiveIndex>();

  constructor(private readonly deps: LiveIndexesDeps) {}

  status(teamId: string): IndexStatus {
    const live = this.#teams.get(teamId);
    if (!live) return { state: "cold", appliedSeq: null, builtAt: null, buildMs: null };
    return {
      state: live.state,
      appliedSeq: live.state === "ready" ? live.appliedSeq : null,
      builtAt: live.builtAt?.toISOString() ?? null,
      buildMs: live.buildMs,
    };
  }

  /** The team's indexes, built if this is its first use and caught up if they may be stale. */
  async ready(key: TeamKey): Promise<TeamIndex> {
    const live = this.#live(key.teamId);
    if (live.state === "cold") live.state = "building";
    await live.run(async () => {
      if (live.state !== "ready") return this.#build(key, live);
      if (this.deps.clock.now().getTime() - live.checkedAt >= this.deps.catchupMs)
        await this.#catchUp(key, live);
    });
    // Only a drop (the team was deleted meanwhile) leaves a successful run without an index.
    if (!live.index || !live.entries)
      throw new DomainError("unavailable", "The team's index was closed while answering; try again.");
    return { passages: live.index, entries: live.entries };
  }

  /**
   * Called after a write to the team has committed, before it is acknowledged, so the write is visible to
   * the next search. A team with no index yet has nothing to update: its build will read storage.
   */
  async committed(key: TeamKey): Promise<void> {
    const live = this.#teams.get(key.teamId);
    if (!live || live.state === "cold") return;
    await live.run(() => this.#catchUp(key, live));
    this.#repackIfNeeded(key, live);
  }

  /**
   * Resolves once the team's index has finished the merging its build held back: from then on searches run
   * at their steady speed. Benchmarks wait for it; nothing else needs to.
   */
  async settled(teamId: string): Promise<void> {
    const live = this.#teams.get(teamId);
    await live?.repacking;
    await live?.merging;
  }

  /** The teams whose indexes this instance holds (built or being built). */
  loadedTeams(): string[] {
    return [...this.#teams.entries()].filter(([, live]) => live.state !== "cold").map(([teamId]) => teamId);
  }

  /**
   * Brings the team's indexes level with storage: builds them if cold, catches up whatever its staleness,
   * then compares what they hold with storage's counts and seq, and rebuilds them from storage when they
   * still disagree — which only a row changed behind the change log's back (a restore, a manual fix, a bug)
   * can cause. Runs in the team's queue, so no write of this instance interleaves with the comparison.
   */
  async reconcile(key: TeamKey): Promise<Reconciled> {
    const live = this.#live(key.teamId);
    if (live.state === "cold") live.state = "building";
    return live.run(async () => {
      const { storage } = this.deps;
      // A team deleted while this waited in its queue has had its index dropped already; see #build for one
      // that was never built.
      if (this.#teams.get(key.teamId) !== live) throw new DomainError("not_found", `No team ${key.teamId}.`);
      if (live.state !== "ready") await this.#build(key, live);
      let rebuilt = false;
      for (let round = 1; ; round++) {
        await this.#catchUp(key, live);
        const storedSeq = await storage.changes.latestSeq(key.teamId);
        const [stored, entries] = await Promise.all([
          storage.documents.counts(key.teamId),
          storage.entries.count(key.teamId),
        ]);
        const settled = (await storage.changes.latestSeq(key.teamId)) === storedSeq;
        const held = live.index?.counts() ?? { documents: -1, chunks: -1 };
        const heldEntries = live.entries?.count() ?? -1;
        const level =
          live.appliedSeq === storedSeq &&
          held.documents === stored.documents &&
          held.chunks === stored.chunks &&
          heldEntries === entries;
        // Writes landed while counting: the counts may be from either side of them. Catch up and count again.
        if (!settled && round < RECONCILE_ROUNDS) continue;
        if (!level && settled && !rebuilt) {
          this.deps.logger.warn("index disagreed with storage; rebuilding", {
            teamId: key.teamId,
            appliedSeq: live.appliedSeq,
            storedSeq,
          });
          this.#discard(live);
          await this.#build(key, live);
          rebuilt = true;
          continue;
        }
        return {
          documents: held.documents,
          chunks: held.chunks,
          entries: heldEntries,
          appliedSeq: live.appliedSeq,
          storedSeq,
          rebuilt,
        };
      }
    });
  }

  /** Forgets a team's index (its team was deleted). */
  drop(teamId: string): void {
    const live = this.#teams.get(teamId);
    this.#teams.delete(teamId);
    if (live) void live.run(async () => this.#discard(live));
  }

  close(): void {
    for (const teamId of [...this.#teams.keys()]) this.drop(teamId);
  }

  #live(teamId: string): LiveIndex {
    let live = this.#teams.get(teamId);
    if (!live) {
      live = new LiveIndex();
      this.#teams.set(teamId, live);
    }
    return live;
  }

  async #build(key: TeamKey, live: LiveIndex): Promise<void> {
    const { storage, clock, logger } = this.deps;
    // A team deleted while this waited in its queue (or whose delete raced the request that asked for it)
    // must not get an index: it would hold the team's plaintext in memory after the delete answered. The
    // delete removes the team's row before it drops the index, so this read sees it gone.
    if (this.#teams.get(key.teamId) !== live || !(await storage.teams.get(key.teamId))) {
      if (this.#teams.get(key.teamId) === live) this.#teams.delete(key.teamId);
      live.state = "cold";
      throw new DomainError("not_found", `No team ${key.teamId}.`);
    }
    live.state = "building";
    const started = performance.now();
    const index = new PassageIndex(this.deps.indexOptions);
    const entries = new EntryIndex();
    try {
      // The seq is read first: anything committed after it is replayed by the catch-up below, and replaying a
      // change re-reads the document's current rows, so a write racing the build is never lost.
      const seq = await storage.changes.latestSeq(key.teamId);
      index.holdMerges(true);
      try {
        await loadPassages(
          this.deps.storage,
          key,
          index,
          BUILD_PAGE_ROWS,
          this.#progress(key.teamId, started),
        );
      } finally {
        index.holdMerges(false);
      }
      await loadEntries(storage, key, entries, BUILD_PAGE_ENTRIES);
      // Loading in pages leaves FTS5 a segment or more per page; one merge afterwards makes every later match
      // read cheaper (measured at 100k entries: 132 ms once, against ~1 ms off a typical match read).
      entries.optimize();
      live.index = index;
      live.entries = entries;
      live.appliedSeq = seq;
      await this.#catchUp(key, live);
      live.state = "ready";
      live.builtAt = clock.now();
      live.buildMs = Math.round(performance.now() - started);
      logger.info("index built", {
        teamId: key.teamId,
        ...index.counts(),
        entries: entries.count(),
        buildMs: live.buildMs,
      });
      this.#settle(live, index);
    } catch (error) {
      index.close();
      entries.close();
      live.index = null;
      live.entries = null;
      live.state = "cold";
      throw error;
    }
  }

  /**
   * Finishes the segment merging the build held back, one short step per turn of the event loop and through
   * the team's queue, so searches and writes interleave with it and the first answer never waits for it.
   */
  #settle(live: LiveIndex, index: PassageIndex): void {
    live.merging = new Promise<void>((done) => {
      const step = () => {
        if (live.index !== index) return done();
        live
          .run(async () => (live.index === index ? index.mergeStep() : false))
          .then((more) => (more ? setTimeout(step, 0) : done()))
          .catch((error: unknown) => {
            this.deps.logger.warn("index merge step failed", {
              error: error instanceof Error ? error.name : "unknown",
            });
            done();
          });
      };
      setTimeout(step, 0);
    });
  }

  /**
   * Starts a background rebuild when documents written since the build found no room in rowid order (see
   * src/index/rowids.ts): until then that team's ties are ordered the slow way. At most one at a time, and
   * at most one per REPACK_INTERVAL_MS, since each costs what a cold start does (without blocking anyone).
   */
  #repackIfNeeded(key: TeamKey, live: LiveIndex): void {
    const index = live.index;
    if (!index || live.repacking || index.unorderedDocuments() === 0) return;
    if (this.deps.clock.now().getTime() - live.repackedAt < REPACK_INTERVAL_MS) return;
    live.repacking = this.#repack(key, live, index)
      .catch((error: unknown) => {
        this.deps.logger.warn("index repack failed", {
          teamId: key.teamId,
          error: error instanceof Error ? error.name : "unknown",
        });
      })
      .finally(() => {
        live.repacking = null;
        live.repackedAt = this.deps.clock.now().getTime();
      });
  }

  /**
   * Loads a fresh index from storage outside the team's queue (searches and writes go on against the old
   * one), then, in the queue, catches it up from the seq read before loading and swaps it in.
   */
  async #repack(key: TeamKey, live: LiveIndex, old: PassageIndex): Promise<void> {
    const seq = await this.deps.storage.changes.latestSeq(key.teamId);
    const fresh = new PassageIndex(this.deps.indexOptions);
    try {
      fresh.holdMerges(true);
      await loadPassages(
        this.deps.storage,
        key,
        fresh,
        BUILD_PAGE_ROWS,
        this.#progress(key.teamId, performance.now()),
      );
      fresh.holdMerges(false);
    } catch (error) {
      fresh.close();
      throw error;
    }
    const swapped = await live.run(async () => {
      if (live.index !== old) {
        fresh.close();
        return false;
      }
      const shadow = new LiveIndex();
      shadow.index = fresh;
      // The entry index is not rebuilt, only caught up alongside: replaying a change re-reads the entry's
      // current row, so applying one it already has changes nothing.
      shadow.entries = live.entries;
      shadow.appliedSeq = seq;
      try {
        await this.#catchUp(key, shadow);
      } catch (error) {
        // A failure inside an index discards the shadow, and with it the entry index it shares with the live
        // team: then the live team goes cold too, and the next read rebuilds both.
        fresh.close();
        if (live.entries && !live.entries.isOpen()) this.#discard(live);
        throw error;
      }
      live.index = fresh;
      live.appliedSeq = shadow.appliedSeq;
      live.checkedAt = shadow.checkedAt;
      old.close();
      return true;
    });
    if (swapped) {
      this.deps.logger.info("index repacked", { teamId: key.teamId, ...fresh.counts() });
      this.#settle(live, fresh);
    }
  }

  /**
   * Replays every change after the applied seq by re-reading each named document's or entry's current rows. A failure
   * leaves the index as it was and due for another catch-up on the next read; a failure inside the index
   * itself discards it, since its bookkeeping may no longer match its rows, and the next read rebuilds.
   */
  async #catchUp(key: TeamKey, live: LiveIndex): Promise<void> {
    const { storage, clock } = this.deps;
    const index = live.index;
    const entries = live.entries;
    if (!index || !entries) return;
    const checkedAt = clock.now().getTime();
    live.checkedAt = 0;
    for (;;) {
      const changes = await storage.changes.after(key.teamId, live.appliedSeq, CATCHUP_PAGE);
      const last = changes.at(-1);
      if (!last) break;
      const named = (prefix: string) => [
        ...new Set(changes.filter((c) => c.kind.startsWith(prefix)).map((c) => c.entityId)),
      ];
      await this.#replay(
        key,
        live,
        named("document."),
        CATCHUP_DOCUMENTS_AT_ONCE,
        readDocument,
        (put, gone) => index.apply(put, gone),
      );
      await this.#replay(key, live, named("entry."), CATCHUP_ENTRIES_AT_ONCE, readEntry, (put, gone) =>
        entries.apply(put, gone),
      );
      live.appliedSeq = last.seq;
      if (changes.length < CATCHUP_PAGE) break;
    }
    live.checkedAt = checkedAt;
  }

  /**
   * Re-reads the named rows `atOnce` at a time and applies them: the ones still stored are put, the ones gone
   * are removed. A failure inside the index discards the team's indexes (see #catchUp).
   */
  async #replay<T>(
    key: TeamKey,
    live: LiveIndex,
    ids: readonly string[],
    atOnce: number,
    read: (storage: Storage, key: TeamKey, id: string) => Promise<T | null>,
    apply: (put: T[], gone: string[]) => void,
  ): Promise<void> {
    for (let i = 0; i < ids.length; i += atOnce) {
      const batch = ids.slice(i, i + atOnce);
      const rows: (T | null)[] = await Promise.all(batch.map((id) => read(this.deps.storage, key, id)));
      try {
        apply(
          rows.filter((row): row is T => row !== null),
          batch.filter((_, j) => rows[j] === null),
        );
      } catch (error) {
        this.#discard(live);
        throw error;
      }
    }
  }

  /** Logs a long build's progress every PROGRESS_LOG_MS: passages indexed so far (a count, never content). */
  #progress(teamId: string, started: number): (passages: number) => void {
    let last = started;
    return (passages) => {
      const now = performance.now();
      if (now - last < PROGRESS_LOG_MS) return;
      last = now;
      this.deps.logger.info("index building", { teamId, passages, ms: Math.round(now - started) });
    };
  }

  /** Closes a team's index and returns the team to cold: the next read builds it afresh. */
  #discard(live: LiveIndex): void {
    live.index?.close();
    live.entries?.close();
    live.index = null;
    live.entries = null;
    live.state = "cold";
    live.checkedAt = 0;
  }
}
