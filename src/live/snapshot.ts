// A team's sealed index snapshot: restored at a cold start instead of rebuilding from the sealed rows, and
// written after a build from rows (for teams past a size), refreshed by the reindex ping and at a graceful
// shutdown when behind. Formats and measurements: docs/decisions/0021-index-snapshots.md.
//
// Never trusted: a snapshot that does not open (tampered, truncated, another team's parts, a seq or format
// rewritten in its head, a part missing) or was written for another format or SQLite is ignored — logged by
// reason and counts, never content — and the team is rebuilt from rows, after which a fresh one is written.

import { setImmediate } from "node:timers";
import type { Clock } from "../clock.js";
import { newId } from "../ids.js";
import { engineErrorCode } from "../index/engine.js";
import { EntryIndex } from "../index/entry-index.js";
import { PassageIndex, type PassageIndexOptions } from "../index/passages/passage-index.js";
import { decodePage, encodePage } from "../index/snapshots/snapshot.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import {
  openSnapshot,
  openSnapshotState,
  recordKinds,
  SNAPSHOT_PARTS_AHEAD,
  type SnapshotBinding,
  SnapshotSealer,
  type SnapshotState,
  snapshotFormat,
} from "../sealed-rows/snapshots.js";
import type { SnapshotHead } from "../store/snapshots.js";
import type { Storage } from "../store/storage.js";
import type { LiveTeam } from "./team.js";
import { UnreadableRows } from "./unreadable.js";

/**
 * MEMORIA_SNAPSHOT_MIN_CHUNKS' default: teams whose indexes hold fewer passages and entries than this are not
 * snapshotted after a build. Below it a rebuild from rows takes well under a second (~0.7 s at 10k passages
 * on this project's 2-core machine, from the 90k build's ~6.5 s), and a snapshot would cost a storage write
 * of the index's whole size after every build for little gain.
 */
export const DEFAULT_SNAPSHOT_MIN_CHUNKS = 10_000;

/**
 * Rows read from an index's table per page while a snapshot is written, and so per record: ~1–4 MiB of
 * passages, blobs or text, small enough that other teams' searches wait at most a few milliseconds.
 */
const SNAPSHOT_PAGE_ROWS = 1024;

export interface SnapshotDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** A build from rows writes a snapshot when the indexes hold at least this many passages and entries. */
  minChunks: number;
  indexOptions?: PassageIndexOptions;
}

/** What restore() found: a team's indexes level with `seq`, or why there are none. */
export type RestoreResult =
  | {
      kind: "restored";
      passages: PassageIndex;
      entries: EntryIndex;
      seq: number;
      unreadable: { documents: UnreadableRows; entries: UnreadableRows };
      parts: number;
      bytes: number;
    }
  /** There was a snapshot and it was not used: the build from rows must write a fresh one. */
  | { kind: "ignored" }
  | { kind: "none" };

/** What this instance did with snapshots since it started: tests and the log read it. */
export interface SnapshotCounts {
  restored: number;
  ignored: number;
  written: number;
}

/** One turn of the event loop, so other teams' requests run between pages. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Snapshots {
  readonly counts: SnapshotCounts = { restored: 0, ignored: 0, written: 0 };
  readonly #pending = new Set<Promise<unknown>>();
  /** Per team, the snapshot write under way (see write). */
  readonly #writing = new WeakMap<LiveTeam, Promise<boolean>>();
  /** Writes queued or under way, over all teams. */
  #writes = 0;

  constructor(private readonly deps: SnapshotDeps) {}

  /**
   * The team's indexes from its stored snapshot (`head`, read with `latestSeq`), when there is one that opens,
   * fits these indexes' format and reflects no seq past `latestSeq`; the caller catches them up from the
   * change log.
   */
  async restore(key: TeamKey, latestSeq: number, head: SnapshotHead | null): Promise<RestoreResult> {
    const { storage, logger } = this.deps;
    if (!head) return { kind: "none" };
    const passages = PassageIndex.restore(this.deps.indexOptions);
    const entries = EntryIndex.restore();
    const ignore = (reason: string): RestoreResult => {
      passages.abort();
      entries.abort();
      this.counts.ignored++;
      // Why, and the head's metadata; never anything the parts hold.
      logger.warn("index snapshot ignored; rebuilding from rows", {
        teamId: key.teamId,
        reason,
        seq: head.seq,
        latestSeq,
        parts: head.parts,
      });
      return { kind: "ignored" };
    };
    const format = snapshotFormat(passages.fingerprint, entries.fingerprint);
    if (head.format !== format) return ignore("format");
    // A snapshot ahead of the change log reflects writes storage no longer has (storage restored from a backup).
    if (head.seq > latestSeq) return ignore("seq_ahead");
    const binding: SnapshotBinding = { snapshotId: head.snapshotId, format, seq: head.seq };
    let state: SnapshotState | null = null;
    try {
      // From a database in this process a part is read at once, with no round trip to overlap: a part more in
      // flight there would only hold another 4 MiB and its copies (not measured; pages are read none ahead
      // there, which was: stored-pages.ts).
      const records = openSnapshot(
        key,
        binding,
        head.parts,
        (part) => storage.snapshots.part(key.teamId, head.snapshotId, part),
        storage.inProcess ? 1 : SNAPSHOT_PARTS_AHEAD,
      );
      for await (const record of records) {
        if (record.kind === recordKinds.passages) passages.write(decodePage(record.bytes));
        else if (record.kind === recordKinds.entries) entries.write(decodePage(record.bytes));
        else state = openSnapshotState(record.bytes);
        await yieldTurn();
      }
      if (!state) return ignore("unreadable");
      const documents = new UnreadableRows();
      for (const [id, weight] of state.unreadable.documents) documents.mark(id, weight);
      const leftEntries = new UnreadableRows();
      for (const [id, weight] of state.unreadable.entries) leftEntries.mark(id, weight);
      const restored: RestoreResult = {
        kind: "restored",
        passages: passages.finish(state.passages),
        entries: entries.finish(state.entries),
        seq: head.seq,
        unreadable: { documents, entries: leftEntries },
        parts: head.parts,
        bytes: head.bytes,
      };
      this.counts.restored++;
      return restored;
    } catch (error) {
      // Whatever stopped it — a part that does not open, a page that does not fit, storage failing — the rows
      // are the truth: the caller rebuilds from them (and a storage failure then surfaces there).
      // The engine's own name for its error ("SQLITE_CORRUPT"), never its message, which may quote a row.
      const reason =
        engineErrorCode(error) ??
        (error instanceof Error && "code" in error && typeof error.code === "string"
          ? error.code
          : error instanceof Error
            ? error.name
            : "unknown");
      return ignore(reason);
    }
  }

  /**
   * After a build from rows: once the build's held-back merging has settled (a merged index is a smaller
   * snapshot and restores to steady speed), writes a snapshot when the team is past the size threshold, or
   * replaces the stored one when `replace` (it was ignored, or the rows disagreed with it): a snapshot that
   * is not used must not be tried again on every start. In the background.
   */
  afterBuild(key: TeamKey, team: LiveTeam, settled: Promise<void>, replace: boolean): void {
    const task = settled
      .then(() => this.refresh(key, team, { replace }))
      .catch((error: unknown) => this.#failed(key, error));
    this.#pending.add(task);
    task.finally(() => this.#pending.delete(task));
  }

  /**
   * Writes the team's snapshot when there is none and the team is past the size threshold, or when the stored
   * one is behind what the indexes hold, of another format, or to be replaced. Returns whether it wrote one.
   */
  async refresh(key: TeamKey, team: LiveTeam, options: { replace?: boolean } = {}): Promise<boolean> {
    const { passages, entries } = team;
    if (team.state !== "ready" || !passages?.isOpen() || !entries?.isOpen()) return false;
    const head = await this.deps.storage.snapshots.head(key.teamId);
    if (!head) {
      if (passages.counts().chunks + entries.count() < this.deps.minChunks) return false;
    } else if (!options.replace) {
      const format = snapshotFormat(passages.snapshot(1).fingerprint, entries.snapshot(1).fingerprint);
      if (head.format === format && head.seq >= team.appliedSeq) return false;
    }
    return this.write(key, team);
  }

  /**
   * Takes a snapshot of the team's indexes in its queue (so no write, catch-up or merge changes them between
   * pages; searches of this and other teams run between pages), seals it, then stores it outside the queue.
   */
  write(key: TeamKey, team: LiveTeam): Promise<boolean> {
    // One write at a time per team: a commit deletes every part but its own, so a second write's parts,
    // stored meanwhile, would be lost to the first's commit and leave a snapshot that does not open.
    const previous = this.#writing.get(team) ?? Promise.resolve();
    const writing = previous.then(
      () => this.#write(key, team),
      () => this.#write(key, team),
    );
    this.#writing.set(team, writing);
    this.#writes++;
    writing.then(
      () => this.#writes--,
      () => this.#writes--,
    );
    return writing;
  }

  /**
   * Whether a snapshot is being written or waits for its build's merging: work no request is waiting on, which
   * allocates the index's size in sealed parts, garbage once stored (the idle collection waits for it).
   */
  busy(): boolean {
    return this.#writes > 0 || this.#pending.size > 0;
  }

  async #write(key: TeamKey, team: LiveTeam): Promise<boolean> {
    const { storage, logger } = this.deps;
    const started = performance.now();
    const snapshotId = newId("s");
    const taken = await team.queue.run(async () => {
      const { passages, entries } = team;
      if (team.state !== "ready" || !passages?.isOpen() || !entries?.isOpen()) return null;
      const ofPassages = passages.snapshot(SNAPSHOT_PAGE_ROWS);
      const ofEntries = entries.snapshot(SNAPSHOT_PAGE_ROWS);
      const binding: SnapshotBinding = {
        snapshotId,
        format: snapshotFormat(ofPassages.fingerprint, ofEntries.fingerprint),
        seq: team.appliedSeq,
      };
      const sealer = new SnapshotSealer(key, binding);
      for (const page of ofPassages.pages) {
        sealer.add(recordKinds.passages, encodePage(page));
        await yieldTurn();
      }
      for (const page of ofEntries.pages) {
        sealer.add(recordKinds.entries, encodePage(page));
        await yieldTurn();
      }
      const parts = await sealer.finish({
        passages: ofPassages.state(),
        entries: ofEntries.state(),
        unreadable: {
          documents: team.unreadableDocuments.entries(),
          entries: team.unreadableEntries.entries(),
        },
      });
      return { binding, parts, bytes: sealer.total };
    });
    if (!taken) return false;
    const { binding, parts, bytes } = taken;
    let moved: boolean;
    try {
      for (const [i, sealed] of parts.entries())
        await storage.snapshots.putPart(key.teamId, snapshotId, i, sealed);
      moved = await storage.snapshots.commit({
        teamId: key.teamId,
        snapshotId,
        format: binding.format,
        seq: binding.seq,
        parts: parts.length,
        bytes,
        createdAt: this.deps.clock.now().toISOString(),
      });
    } catch (error) {
      await storage.snapshots.discard(key.teamId, snapshotId).catch(() => undefined);
      throw error;
    }
    if (!moved) return false;
    this.counts.written++;
    logger.info("index snapshot written", {
      teamId: key.teamId,
      seq: binding.seq,
      parts: parts.length,
      bytes,
      ms: Math.round(performance.now() - started),
    });
    return true;
  }

  /** Resolves once every snapshot written in the background so far has been stored (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  #failed(key: TeamKey, error: unknown): void {
    this.deps.logger.warn("index snapshot not written", {
      teamId: key.teamId,
      error: error instanceof Error ? error.name : "unknown",
    });
  }
}
