// Keeping a team's indexes current: every change recorded after the seq they have applied is replayed by
// re-reading the named document's or entry's current rows. That covers this instance's own writes and another
// instance's alike, and replaying a change twice changes nothing. This instance's own document writes take a
// shortcut when nothing else came between: their passages, still in hand, go straight into the index.

import type { Clock } from "../clock.js";
import type { IndexedDocument } from "../index/passages/passage-index.js";
import type { Logger } from "../logger.js";
import type { TeamKey } from "../seal/team-key.js";
import type { Storage } from "../store/storage.js";
import { readEntry } from "./load-entries.js";
import { readDocument } from "./load-passages.js";
import type { LiveTeam } from "./team.js";
import type { Reread, UnreadableRows } from "./unreadable.js";

/** Change records read per round trip while catching up. */
const CATCHUP_PAGE = 500;
/**
 * Documents read and opened at once while catching up: enough to overlap storage and decryption, few enough
 * that a lagging instance replaying 500 changes of 5 MiB documents does not hold them all in memory.
 */
const CATCHUP_DOCUMENTS_AT_ONCE = 16;
/** Entries read and opened at once while catching up: each is one small row, so many overlap cheaply. */
const CATCHUP_ENTRIES_AT_ONCE = 256;

/**
 * The change log was compacted past the team's applied seq (compaction.ts): the changes between are gone, so
 * the indexes cannot be caught up, only rebuilt. Thrown before anything is applied.
 */
export class ChangeLogCompacted extends Error {
  override readonly name = "ChangeLogCompacted";
  constructor(
    readonly appliedSeq: number,
    readonly nextSeq: number,
  ) {
    super(`the change log holds nothing between seq ${appliedSeq} and ${nextSeq}`);
  }
}

export interface CatchUpDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
}

/**
 * Replays every change after the team's applied seq. Runs in the team's queue. ChangeLogCompacted when the
 * log no longer holds them all (the caller rebuilds: build.ts catchUpOrRebuild). A failure leaves the indexes
 * as they were and due for another catch-up on the next read; a failure inside an index itself discards the
 * team's indexes, since their bookkeeping may no longer match their rows, and the next read rebuilds.
 */
export async function catchUp(deps: CatchUpDeps, key: TeamKey, team: LiveTeam): Promise<void> {
  const { storage, clock, logger } = deps;
  const passages = team.passages;
  const entries = team.entries;
  if (!passages || !entries) return;
  const checkedAt = clock.now().getTime();
  team.markUnchecked();
  for (;;) {
    const changes = await storage.changes.after(key.teamId, team.appliedSeq, CATCHUP_PAGE);
    const last = changes.at(-1);
    if (!last) break;
    // Seqs are gap-free (store/changes.ts): a first change past the next seq means compaction took the ones
    // between.
    const first = changes[0] as (typeof changes)[number];
    if (first.seq !== team.appliedSeq + 1) throw new ChangeLogCompacted(team.appliedSeq, first.seq);
    const named = (prefix: string) => [
      ...new Set(changes.filter((c) => c.kind.startsWith(prefix)).map((c) => c.entityId)),
    ];
    const documents = await replay(
      storage,
      key,
      team,
      named("document."),
      CATCHUP_DOCUMENTS_AT_ONCE,
      readDocument,
      team.unreadableDocuments,
      (put, gone) => passages.apply(put, gone),
    );
    const entryRows = await replay(
      storage,
      key,
      team,
      named("entry."),
      CATCHUP_ENTRIES_AT_ONCE,
      readEntry,
      team.unreadableEntries,
      (put, gone) => entries.apply(put, gone),
    );
    if (documents + entryRows > 0) {
      logger.warn("index left out rows that did not open", {
        teamId: key.teamId,
        documents,
        entries: entryRows,
      });
    }
    team.advance(last.seq);
    if (changes.length < CATCHUP_PAGE) break;
  }
  team.markChecked(checkedAt);
}

/**
 * What one storage transaction of this instance wrote to a team's documents: the team's latest seq read
 * inside it before its first change and after its last (so every change in (before, after] is one of these
 * documents'), and each document as a re-read of its rows would give it to the index; a document with no
 * passages is one the re-read finds gone.
 */
export interface WrittenDocuments {
  before: number;
  after: number;
  documents: IndexedDocument[];
}

/**
 * Brings the team's indexes level after this instance's own write, before it is acknowledged. When they are
 * level with the seq just before the write's transaction, they take its documents as they are and advance to
 * the seq after it: the same index a replay would make, without reading and opening again what was just
 * sealed (measured at 20k 1.5 KB documents: ~0.8 s of re-reading and opening, and FTS5 inserts in groups of
 * 16 in change order, against one sorted transaction a write). Otherwise something else came between (another
 * instance's write, or one of ours whose turn comes later), and the changes are replayed as catchUp does.
 * Runs in the team's queue; a team without indexes stays so (its next read builds them).
 */
export async function catchUpWith(
  deps: CatchUpDeps,
  key: TeamKey,
  team: LiveTeam,
  written: WrittenDocuments,
): Promise<void> {
  const passages = team.passages;
  if (!passages || !team.entries) return;
  // A replay since the write re-read its rows already (or what replaced them).
  if (team.appliedSeq >= written.after) return;
  if (team.appliedSeq !== written.before) return catchUp(deps, key, team);
  const put = written.documents.filter((d) => d.passages.length > 0);
  const gone = written.documents.filter((d) => d.passages.length === 0).map((d) => d.id);
  // In id order, which is rowid order for new documents (src/index/passages/rowids.ts): FTS5 writes its pending terms
  // out as a new segment whenever a rowid comes in below the last one, and placing new documents in order
  // leaves room between them, so fewer end up out of rowid order (measured on 5,000 one-passage documents in
  // groups of 500: 24 out of order against 2,746 in arrival order, and the inserts ~30% faster).
  put.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  try {
    passages.apply(put, gone);
  } catch (error) {
    team.discard();
    throw error;
  }
  for (const document of written.documents) team.unreadableDocuments.clear(document.id);
  team.advance(written.after);
}

/**
 * Re-reads the named rows `atOnce` at a time and applies them: the ones still stored are put, the ones gone
 * are removed, and so are the ones that no longer open, which `unreadable` then holds (and lets go of once
 * they are stored readable again, or gone). Returns how many did not open. A failure inside the index
 * discards the team's indexes (see catchUp).
 */
async function replay<T>(
  storage: Storage,
  key: TeamKey,
  team: LiveTeam,
  ids: readonly string[],
  atOnce: number,
  read: (storage: Storage, key: TeamKey, id: string) => Promise<Reread<T>>,
  unreadable: UnreadableRows,
  apply: (put: T[], gone: string[]) => void,
): Promise<number> {
  let failed = 0;
  for (let i = 0; i < ids.length; i += atOnce) {
    const batch = ids.slice(i, i + atOnce);
    const rows = await Promise.all(batch.map((id) => read(storage, key, id)));
    const put: T[] = [];
    const gone: string[] = [];
    rows.forEach((row, j) => {
      const id = batch[j] as string;
      if (row.kind === "stored") put.push(row.value);
      else gone.push(id);
    });
    try {
      apply(put, gone);
    } catch (error) {
      team.discard();
      throw error;
    }
    rows.forEach((row, j) => {
      const id = batch[j] as string;
      if (row.kind === "unreadable") {
        unreadable.mark(id, row.weight);
        failed++;
      } else unreadable.clear(id);
    });
  }
  return failed;
}
