// Keeping a team's indexes current: every change recorded after the seq they have applied is replayed by
// re-reading the named document's or entry's current rows. That covers this instance's own writes and another
// instance's alike, and replaying a change twice changes nothing.

import type { Clock } from "../clock.js";
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

export interface CatchUpDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
}

/**
 * Replays every change after the team's applied seq. Runs in the team's queue. A failure leaves the indexes
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
