// A batch of documents written in as few storage transactions as its size allows, each group's documents
// given to the team's live index once their transaction commits; the single-document steps (chunk, seal,
// store) are the DocumentService's, which calls this for createMany.

import { mapLimit } from "../async/pool.js";
import type { KeyedSerialQueue } from "../async/serial-queue.js";
import type { Actor } from "../audit.js";
import type { Clock } from "../clock.js";
import { DomainError, isDomainError } from "../errors.js";
import type { LiveIndexes } from "../live/indexes.js";
import { toHex } from "../seal/bytes.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import { type EventStamp, eventStamp } from "../sealed-rows/audit.js";
import type { DocumentMeta } from "../sealed-rows/documents.js";
import { type DocumentRow, UniqueExternalRefError } from "../store/documents.js";
import type { Storage } from "../store/storage.js";
import { utf8Length } from "../text/length.js";
import type { DocumentInput, DocumentView, Prepared, Sealed, Stored } from "./documents.js";

/** What a batch answers for one item: its document, or why it alone was not stored. */
export type BatchOutcome = { document: DocumentView; created: boolean } | { error: DomainError };

/**
 * Documents written in one storage transaction: a whole batch of small ones. Each transaction on a file
 * database pays for its journal's syncs, which on a shared disk cost more than the rows (measured with 20k
 * 1.5 KB documents over HTTP: 9.2× the FTS5 floor in groups of 100, 7.2× in one group a request; storing
 * alone, in process: 4.7–4.9 s against 1.6–3.2 s). The request holds all of its documents already; 500 is
 * the route's most (MAX_BATCH_DOCUMENTS).
 */
const GROUP_DOCUMENTS = 500;
/** A group also ends at this much content, so a batch of large documents is not one huge transaction. */
const GROUP_CONTENT_BYTES = 8 * 1024 * 1024;
/** Documents chunked and sealed at once: the chunker pool's width on a small machine, and a few more. */
export const PREPARE_CONCURRENCY = 8;

/** A batch item that passed its checks, with its place in the batch. */
interface Pending {
  index: number;
  input: DocumentInput;
  ref: Uint8Array | null;
}

/** What a batch takes from the DocumentService: its storage and index, its write queue, and its steps. */
export interface BatchWriterDeps {
  storage: Storage;
  indexes: LiveIndexes;
  clock: Clock;
  /** The service's queue of writes by document: a batch and a single write of one externalId never race. */
  writing: KeyedSerialQueue;
  /** The queue key of writes of one externalId. */
  refKey(key: TeamKey, ref: Uint8Array): string;
  /** Refuses an item that is no document to store (not text, too large), before anything is stored. */
  refuse(input: DocumentInput): void;
  prepare(input: DocumentInput): Promise<Prepared>;
  seal(
    key: TeamKey,
    input: DocumentInput,
    prepared: Prepared,
    ref: Uint8Array | null,
    base: DocumentRow | null,
    stamp: EventStamp | undefined,
  ): Promise<Sealed>;
  upsert(
    key: TeamKey,
    input: DocumentInput,
    prepared: Prepared,
    ref: Uint8Array | null,
    existing: DocumentRow | null,
    stamp: EventStamp | undefined,
  ): Promise<Stored>;
  viewOf(row: DocumentRow, meta: DocumentMeta): DocumentView;
}

/** An item of a batch that was not stored, and can be sent again as it was. */
function notStored(why: string): DomainError {
  return new DomainError(
    "unavailable",
    `Not stored: ${why} part way through the batch; send this document again.`,
  );
}

export class DocumentBatchWriter {
  constructor(private readonly deps: BatchWriterDeps) {}

  /** The outcome of every item, in request order (DocumentService.createMany says how). */
  async write(
    key: TeamKey,
    items: readonly (DocumentInput | DomainError)[],
    by?: Actor,
  ): Promise<BatchOutcome[]> {
    const outcomes = new Array<BatchOutcome>(items.length);
    const pending: Pending[] = [];
    // One call for the whole batch: each item's event takes its index in it, so the trail reads in its order.
    const call = by ? eventStamp(by, this.deps.clock.now().toISOString()) : undefined;
    for (const [index, item] of items.entries()) {
      if (item instanceof DomainError) {
        outcomes[index] = { error: item };
        continue;
      }
      try {
        this.deps.refuse(item);
        const ref = item.externalId === null ? null : await blindIndex(key, item.externalId);
        pending.push({ index, input: item, ref });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        outcomes[index] = { error };
      }
    }
    // Whether a group may have committed writes the index has not taken yet: only when it failed part way.
    let unindexed = false;
    try {
      let committed = false;
      for (const group of groupsOf(pending)) {
        const refKeys = group.flatMap((p) => (p.ref ? [this.deps.refKey(key, p.ref)] : []));
        try {
          unindexed = true;
          await this.#holding(refKeys.sort(), () => this.#storeGroup(key, group, outcomes, call));
          unindexed = false;
        } catch (error) {
          // Nothing stored yet: the whole request fails, and a retry (with its Idempotency-Key) is safe.
          if (!committed) throw error;
          // Groups before this one are stored: the answer says which items were not, and is final (an
          // Idempotency-Key remembers it), so a retry of the same batch cannot store the first groups twice.
          for (const item of pending) {
            if (outcomes[item.index] === undefined)
              outcomes[item.index] = { error: notStored("storage failed part way through the batch") };
          }
          break;
        }
        committed = true;
      }
    } finally {
      // A group that failed after its transaction committed: what it stored is brought into the index now.
      if (unindexed) await this.deps.indexes.committed(key);
    }
    return outcomes;
  }

  /**
   * Runs `task` holding the write queue of every key, taken in sorted order: two batches sharing keys then
   * never wait on each other in a circle, and a single write holds one key only.
   */
  #holding<T>(keys: readonly string[], task: () => Promise<T>, from = 0): Promise<T> {
    const next = keys[from];
    if (next === undefined) return task();
    return this.deps.writing.run(next, () => this.#holding(keys, task, from + 1));
  }

  /**
   * One group of a batch, its externalIds held: reads the documents they name in one query, prepares every
   * item, and writes them in one transaction, whose documents then go to the team's live index from memory
   * when nothing else came between (else it replays the change log; live/catch-up.ts catchUpWith). An item
   * that lost a race there (another instance wrote the same document since the read; then nothing of the
   * transaction, or of that item, was stored) is written again alone, on the current row, as `create` would,
   * and the index catches up on those.
   */
  async #storeGroup(
    key: TeamKey,
    group: readonly Pending[],
    outcomes: BatchOutcome[],
    call: EventStamp | undefined,
  ): Promise<void> {
    const stampOf = (item: Pending) => (call ? { ...call, index: item.index } : undefined);
    const { storage } = this.deps;
    const refs = group.flatMap((p) => (p.ref ? [p.ref] : []));
    const existing = new Map<string, DocumentRow>();
    for (const row of await storage.documents.findByExternalRefs(key.teamId, refs)) {
      if (row.externalRef) existing.set(toHex(row.externalRef), row);
    }
    const made = await mapLimit(group, PREPARE_CONCURRENCY, async (item) => {
      try {
        const prepared = await this.deps.prepare(item.input);
        const base = item.ref ? (existing.get(toHex(item.ref)) ?? null) : null;
        const sealed = await this.deps.seal(key, item.input, prepared, item.ref, base, stampOf(item));
        return { item, prepared, base, sealed };
      } catch (error) {
        // One document that cannot be chunked (a pool worker that crashed or timed out on it) fails alone.
        outcomes[item.index] = { error: isDomainError(error) ? error : notStored("it could not be chunked") };
        return null;
      }
    });
    const ready = made.filter((r): r is NonNullable<typeof r> => r !== null);
    let applied: boolean[];
    try {
      const written = await storage.documents.writeMany(
        ready.map(({ sealed, base }) => ({ write: sealed.write, replacing: base?.version ?? null })),
      );
      applied = written.applied;
      if (written.before !== null && written.after !== null) {
        await this.deps.indexes.committedDocuments(key, {
          before: written.before,
          after: written.after,
          documents: ready.filter((_, i) => applied[i]).map(({ sealed }) => sealed.indexed),
        });
      }
    } catch (error) {
      if (!(error instanceof UniqueExternalRefError)) throw error;
      applied = ready.map(() => false);
    }
    let retried = false;
    for (const [i, { item, prepared, base, sealed }] of ready.entries()) {
      if (applied[i]) {
        outcomes[item.index] = {
          document: this.deps.viewOf(sealed.write.row, prepared.meta),
          created: base === null,
        };
        continue;
      }
      retried = true;
      try {
        const current = item.ref ? await storage.documents.findByExternalRef(key.teamId, item.ref) : null;
        const { document, created } = await this.deps.upsert(
          key,
          item.input,
          prepared,
          item.ref,
          current,
          stampOf(item),
        );
        outcomes[item.index] = { document, created };
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        outcomes[item.index] = { error };
      }
    }
    if (retried) await this.deps.indexes.committed(key);
  }
}

/**
 * A batch's items in groups to write one transaction each, in order: a group ends at GROUP_DOCUMENTS items,
 * at GROUP_CONTENT_BYTES of content, or before an externalId it already holds, so that second write sees
 * the first one's row.
 */
function groupsOf(items: readonly Pending[]): Pending[][] {
  const groups: Pending[][] = [];
  let group: Pending[] = [];
  let bytes = 0;
  let refs = new Set<string>();
  for (const item of items) {
    const ref = item.ref ? toHex(item.ref) : null;
    const size = utf8Length(item.input.content);
    const full = group.length >= GROUP_DOCUMENTS || (group.length > 0 && bytes + size > GROUP_CONTENT_BYTES);
    if (full || (ref !== null && refs.has(ref))) {
      groups.push(group);
      group = [];
      bytes = 0;
      refs = new Set();
    }
    group.push(item);
    bytes += size;
    if (ref !== null) refs.add(ref);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
