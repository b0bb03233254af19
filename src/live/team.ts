// One team's live indexes and where they stand: cold (none), building, or ready (level with the change log
// up to appliedSeq). Every change of state is a method here, and every change to the indexes runs through
// the team's queue, so a build, a catch-up, a merge step and a swap never overlap.

import { SerialQueue } from "../async/serial-queue.js";
import type { EntryIndex } from "../index/entry-index.js";
import type { PassageIndex } from "../index/passages/passage-index.js";
import { UnreadableRows } from "./unreadable.js";

/** How a team's loaded index was made. */
export type IndexSource = "snapshot" | "rows";

export type IndexState = "cold" | "building" | "ready";

export class LiveTeam {
  /** The team's queue: every task that reads or changes its indexes' bookkeeping runs in it, one at a time. */
  readonly queue = new SerialQueue();
  #state: IndexState = "cold";
  #passages: PassageIndex | null = null;
  #entries: EntryIndex | null = null;
  // What each index left out because it did not open; they travel with their index (a repack brings its own).
  #unreadableDocuments = new UnreadableRows();
  #unreadableEntries = new UnreadableRows();
  #appliedSeq = 0;
  #builtAt: Date | null = null;
  #buildMs: number | null = null;
  #source: IndexSource | null = null;
  /** When this instance last compared its applied seq with storage's (epoch ms); 0 when it must now. */
  #checkedAt = 0;
  /** The registry's use counter at this team's last ready() or committed(): the memory budget's LRU order. */
  #lastUsed = 0;
  /** Both indexes' estimated bytes as of their last measure (after a build, catch-up or write); 0 when cold. */
  #memoryBytes = 0;
  /** The memory budget queued this team's eviction and it has not run yet. */
  #evicting = false;
  /** The indexes came from a snapshot and their rows have not been opened since (see verify.ts). */
  #unverified = false;
  /** The stored snapshot holds rows the indexes dropped since: the next refresh replaces it. */
  #snapshotOutdated = false;

  get state(): IndexState {
    return this.#state;
  }

  get passages(): PassageIndex | null {
    return this.#passages;
  }

  get entries(): EntryIndex | null {
    return this.#entries;
  }

  /** Documents the passage index left out because a chunk run of theirs did not open. */
  get unreadableDocuments(): UnreadableRows {
    return this.#unreadableDocuments;
  }

  /** Entries the entry index left out because they did not open. */
  get unreadableEntries(): UnreadableRows {
    return this.#unreadableEntries;
  }

  /** The last change-log seq the indexes hold. */
  get appliedSeq(): number {
    return this.#appliedSeq;
  }

  get builtAt(): Date | null {
    return this.#builtAt;
  }

  get buildMs(): number | null {
    return this.#buildMs;
  }

  /** How the loaded index was made: restored from the team's snapshot, or built from its rows. */
  get source(): IndexSource | null {
    return this.#source;
  }

  get checkedAt(): number {
    return this.#checkedAt;
  }

  get lastUsed(): number {
    return this.#lastUsed;
  }

  get memoryBytes(): number {
    return this.#memoryBytes;
  }

  get evicting(): boolean {
    return this.#evicting;
  }

  get unverified(): boolean {
    return this.#unverified;
  }

  get snapshotOutdated(): boolean {
    return this.#snapshotOutdated;
  }

  /** The indexes just installed came from a snapshot: the rows it stands for are still to be opened. */
  markRestored(): void {
    this.#unverified = true;
  }

  /** Every row was opened; `dropped` says whether the indexes left out some the snapshot held. */
  markVerified(dropped: boolean): void {
    this.#unverified = false;
    if (dropped) this.#snapshotOutdated = true;
  }

  /** A snapshot of the indexes as they are now was stored. */
  markSnapshotCurrent(): void {
    this.#snapshotOutdated = false;
  }

  /** A request used the indexes; `tick` is the registry's use counter, not a time, so order never ties. */
  touch(tick: number): void {
    this.#lastUsed = tick;
  }

  /** Re-estimates what the indexes hold in memory; runs in the queue, where they cannot be closed under it. */
  measureMemory(): void {
    const passages = this.#passages?.isOpen() ? this.#passages.memoryBytes() : 0;
    const entries = this.#entries?.isOpen() ? this.#entries.memoryBytes() : 0;
    this.#memoryBytes = passages + entries;
  }

  /** The memory budget queued (true) or ran or gave up (false) this team's eviction. */
  markEvicting(evicting: boolean): void {
    this.#evicting = evicting;
  }

  /** A build has been asked for (or has started): requests wait for it instead of finding the team cold. */
  markBuilding(): void {
    this.#state = "building";
  }

  /** Back to cold without indexes to close: a build that found its team deleted. */
  markCold(): void {
    this.#state = "cold";
  }

  /**
   * Takes freshly loaded indexes, level with the change log up to `seq`, with the rows each left out; still
   * building until markReady.
   */
  install(
    passages: PassageIndex,
    entries: EntryIndex,
    seq: number,
    unreadable: { documents: UnreadableRows; entries: UnreadableRows },
  ): void {
    this.#passages = passages;
    this.#entries = entries;
    this.#appliedSeq = seq;
    this.#unreadableDocuments = unreadable.documents;
    this.#unreadableEntries = unreadable.entries;
  }

  /** The build finished: searches may use the indexes. */
  markReady(builtAt: Date, buildMs: number, source: IndexSource): void {
    this.#state = "ready";
    this.#builtAt = builtAt;
    this.#buildMs = buildMs;
    this.#source = source;
  }

  /** A catch-up applied every change up to `seq`. */
  advance(seq: number): void {
    this.#appliedSeq = seq;
  }

  /** A catch-up began: until it ends, the next read must compare with storage again. */
  markUnchecked(): void {
    this.#checkedAt = 0;
  }

  /** A catch-up that began at `at` (epoch ms) ended with everything storage had then. */
  markChecked(at: number): void {
    this.#checkedAt = at;
  }

  /**
   * Puts a rebuilt passage index in place of the current one (a repack), with what its own catch-up reached.
   * The caller closes the old one.
   */
  swapPassages(
    passages: PassageIndex,
    unreadable: UnreadableRows,
    appliedSeq: number,
    checkedAt: number,
  ): void {
    this.#passages = passages;
    this.#unreadableDocuments = unreadable;
    this.#appliedSeq = appliedSeq;
    this.#checkedAt = checkedAt;
  }

  /** Closes the team's indexes and returns it to cold: the next read builds them afresh. */
  discard(): void {
    this.#passages?.close();
    this.#entries?.close();
    this.#passages = null;
    this.#entries = null;
    this.#unreadableDocuments = new UnreadableRows();
    this.#unreadableEntries = new UnreadableRows();
    this.#state = "cold";
    this.#checkedAt = 0;
    this.#memoryBytes = 0;
    this.#evicting = false;
    this.#unverified = false;
  }
}
