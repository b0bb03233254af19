// A passage index's snapshot export and restore: its tables through snapshot.ts, and beside them the
// writer's bookkeeping (passage-state.ts), each document's title, path, tags and rowids in the compact shape a
// snapshot carries.

import type { IndexDatabase } from "../engine.js";
import type { DocumentEntry } from "../passages/stored-hit.js";
import { type PassageIndexState, passageIndexStateSchema } from "./passage-state.js";
import {
  exportTables,
  type IndexSnapshot,
  SnapshotMismatchError,
  schemaFingerprint,
  TableRestore,
} from "./snapshot.js";

/** A passage index being filled from a snapshot (see PassageIndex.restore). */
export interface PassageIndexRestore<Index = unknown> {
  /** The fresh index's fingerprint: a snapshot with another one must not be restored into it. */
  fingerprint: string;
  write: TableRestore["write"];
  /** Takes the snapshot's bookkeeping and hands over the index; throws SnapshotMismatchError on bad state. */
  finish(state: unknown): Index;
  /** Closes the half-filled index. */
  abort(): void;
}

/** The writer's bookkeeping, as the index holds it. */
export interface PassageBookkeeping {
  documents: ReadonlyMap<string, DocumentEntry>;
  nextUnorderedRowid: number;
}

/** The bookkeeping a restore hands the index back, with the ordered documents' ranges for rowids.ts. */
export interface RestoredBookkeeping {
  documents: Map<string, DocumentEntry>;
  ordered: { id: string; first: number; count: number }[];
  nextUnorderedRowid: number;
}

/** The index's tables `pageRows` at a time, and its bookkeeping when asked (after the pages are read). */
export function snapshotPassageIndex(
  db: IndexDatabase,
  pageRows: number,
  bookkeeping: () => PassageBookkeeping,
): IndexSnapshot<PassageIndexState> {
  return {
    fingerprint: schemaFingerprint(db),
    pages: exportTables(db, pageRows),
    state: () => stateOf(bookkeeping()),
  };
}

function stateOf({ documents, nextUnorderedRowid }: PassageBookkeeping): PassageIndexState {
  return {
    documents: [...documents].map(([id, doc]) => {
      const shown = {
        id,
        title: doc.title,
        path: doc.path,
        ...(doc.tags.length > 0 ? { tags: [...doc.tags] } : {}),
      };
      // A document in rowid order is its first rowid and its count: its rowids are consecutive.
      return doc.ordered
        ? { ...shown, first: doc.rowids[0] ?? 0, count: doc.rowids.length }
        : { ...shown, rowids: doc.rowids };
    }),
    nextUnorderedRowid,
  };
}

/**
 * Fills `db` (a fresh index's) from a snapshot's pages, then hands the parsed bookkeeping to `adopt`, and the
 * index to the caller.
 */
export function restorePassageIndex<Index extends { close(): void }>(
  index: Index,
  db: IndexDatabase,
  adopt: (restored: RestoredBookkeeping) => void,
): PassageIndexRestore<Index> {
  const tables = new TableRestore(db);
  return {
    fingerprint: schemaFingerprint(db),
    write: (page) => tables.write(page),
    finish: (raw) => {
      adopt(bookkeepingOf(raw));
      return index;
    },
    abort: () => index.close(),
  };
}

function bookkeepingOf(raw: unknown): RestoredBookkeeping {
  const parsed = passageIndexStateSchema.safeParse(raw);
  if (!parsed.success) throw new SnapshotMismatchError("the passage index's bookkeeping is not in its shape");
  const documents = new Map<string, DocumentEntry>();
  const ordered: RestoredBookkeeping["ordered"] = [];
  for (const doc of parsed.data.documents) {
    const tags = doc.tags ?? [];
    if ("rowids" in doc) {
      documents.set(doc.id, { title: doc.title, path: doc.path, tags, rowids: doc.rowids, ordered: false });
    } else {
      const rowids = Array.from({ length: doc.count }, (_, i) => doc.first + i);
      documents.set(doc.id, { title: doc.title, path: doc.path, tags, rowids, ordered: true });
      ordered.push(doc);
    }
  }
  return { documents, ordered, nextUnorderedRowid: parsed.data.nextUnorderedRowid };
}
