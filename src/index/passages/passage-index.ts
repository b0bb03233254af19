// One team's passages in an in-memory FTS5 table: the writer. It owns the team's passage database (a named
// in-memory database, passage-database.ts), writes every change to it in one transaction, and searches it
// through a PassageSearcher over its own connection; search threads open their own connections to the same
// database by its name (docs/decisions/0044-search-threads.md).
//
// FTS5 keeps its term postings in plaintext, so this database must never be a file (passage-database.ts).
// Why the synchronous engine: docs/decisions/0002-index-engine.md.

import { DomainError } from "../../errors.js";
import type { IndexDatabase, IndexStatement } from "../engine.js";
import { isFull } from "../engine.js";
import type { MatchQuery } from "../query.js";
import { databaseBytes, INDEX_OVERHEAD_BYTES } from "../ram-estimate.js";
import type { ExpansionTerm, FeedbackParameters } from "../ranking/feedback.js";
import {
  type PassageIndexRestore,
  restorePassageIndex,
  snapshotPassageIndex,
} from "../snapshots/passage-snapshot.js";
import type { PassageIndexState } from "../snapshots/passage-state.js";
import type { IndexSnapshot } from "../snapshots/snapshot.js";
import { withoutMarkers } from "../snippets/snippet.js";
import { openPassageConnection, passageDatabaseName, releasePageCache } from "./passage-database.js";
import {
  type IndexedDocument,
  type PassageHit,
  TRAIL_SEPARATOR,
  titleColumnText,
} from "./passage-document.js";
import { schema, writeStateSql } from "./passage-layout.js";
import { FULL_RANKING_ROWS_PER_LIMIT, PassageSearcher } from "./passage-searcher.js";
import { blocksFit, packTextBlocks, type StoredPassage, unpackBlock } from "./passage-text.js";
import { OrderedRanges, UNORDERED_ROWIDS_START } from "./rowids.js";
import type { DocumentEntry } from "./stored-hit.js";

export type { PassageIndexRestore } from "../snapshots/passage-snapshot.js";
export {
  type IndexedDocument,
  type IndexedPassage,
  type PassageHit,
  TRAIL_SEPARATOR,
  titleColumnText,
} from "./passage-document.js";

export interface PassageIndexOptions {
  /** Free rowids after each document (src/index/passages/rowids.ts); only tests change it. */
  rowidGap?: number;
  /** Pseudo-relevance feedback's parameters (FEEDBACK in feedback.ts), or null for none, the default. */
  feedback?: FeedbackParameters | null;
  /**
   * How long a write's commit waits for the searches reading the database on other threads
   * (WRITER_BUSY_TIMEOUT_MS by default).
   */
  writerBusyTimeoutMs?: number;
  /**
   * Rows summed per result up to which this thread's searches skip pruning (FULL_RANKING_ROWS_PER_LIMIT in
   * passage-searcher.ts); 0 prunes every question that matches a row. Only the tests and the bench that set pruning against the full expression
   * change it. The search threads keep the default: either way the answer is the same to the bit.
   */
  fullRankingRowsPerLimit?: number;
}

/** The index database's page size; see the constructor for why not SQLite's default 4 KiB. */
const PAGE_SIZE = 8192;

/** FTS5's own default: merge once 4 segments of one level exist. Kept for everyday writes. */
const DEFAULT_AUTOMERGE = 4;
/**
 * During a build: merge only at 16 segments a level; the rest is merged after the first answer. Measured on
 * 90k passages: 4.72 s to load at the default of 4, 4.20 s at 16.
 */
const BUILD_AUTOMERGE = 16;
/** Pages of merging per step after a build: a few milliseconds, so a search never waits long behind one. */
const MERGE_STEP_PAGES = 64;

/**
 * Passages written since the index was last one segment, past which a quiet index is merged whole
 * (wholeMergeStep): at least this many, and at least WHOLE_MERGE_SHARE of what it holds. FTS5's automerge
 * leaves an index written in batches in several segments, and every search reads each one: 20,024 passages of
 * Debian's manuals written 20 documents at a time searched short questions in 1.46 ms p50 and long ones in
 * 14.1, and 1.31 and 13.1 once merged whole (in 37 steps, 62 ms together, the page count unchanged;
 * docs/decisions/0084-merge-whole-when-quiet.md). A whole merge rewrites the whole index, so a trickle of small
 * writes waits until it adds up: the rewrite then costs at most ten times what was written.
 */
export const WHOLE_MERGE_MIN_PASSAGES = 1000;
const WHOLE_MERGE_SHARE = 0.1;

/**
 * How long a commit waits for the searches that hold the database's read lock on other threads. A search
 * takes milliseconds (tens at the most on 90k passages) and holds its lock no longer; a write that cannot
 * commit within this is given up (the index is then closed and rebuilt, never left half-written), so it is
 * far above any search: the searches of a full queue (MEMORIA_MAX_QUEUE 64) end in well under a second.
 */
export const WRITER_BUSY_TIMEOUT_MS = 10_000;

/** memdb's bound on one database: SQLite's default SQLITE_MEMDB_DEFAULT_MAXSIZE, 1 GiB, which the index's engine keeps (SQLITE_FULL at 1,074 MB). */
export const MAX_INDEX_BYTES = 1024 * 1024 * 1024;

export class PassageIndex {
  readonly #name = passageDatabaseName();
  readonly #db: IndexDatabase;
  readonly #feedbackParameters: FeedbackParameters | null;
  readonly #fullRankingRowsPerLimit: number;
  readonly #documents = new Map<string, DocumentEntry>();
  readonly #insert: IndexStatement;
  readonly #remove: IndexStatement;
  readonly #insertRow: IndexStatement;
  readonly #removeRow: IndexStatement;
  readonly #insertText: IndexStatement;
  readonly #removeText: IndexStatement;
  readonly #documentText: IndexStatement;
  readonly #putDocument: IndexStatement;
  readonly #dropDocument: IndexStatement;
  readonly #writeState: IndexStatement;
  readonly #wholeMergeStep: IndexStatement;
  readonly #levelMergeStep: IndexStatement;
  readonly #totalChanges: IndexStatement;
  /** The searcher over this thread's own connection, made at the first search. */
  #searcher: PassageSearcher | null = null;
  /** Called once when the index closes: the search threads close their connections to its database. */
  readonly #onClose: (() => void)[] = [];
  /** Passages in the index. */
  #passages = 0;
  #nextUnorderedRowid = UNORDERED_ROWIDS_START;
  readonly #ranges: OrderedRanges;
  /** Documents whose rowids do not follow (document id, ordinal) order; zero lets ties be ordered by rowid. */
  #unordered = 0;
  /** Bumped by every write, in its transaction (passage_state): a searcher's caches follow it. */
  #generation = 0;
  /** Passages put, and documents removed, since the index was last found in one segment (needsWholeMerge). */
  #writtenSinceWhole = 0;

  constructor(options: PassageIndexOptions = {}) {
    this.#ranges = new OrderedRanges(options.rowidGap);
    this.#feedbackParameters = options.feedback ?? null;
    this.#fullRankingRowsPerLimit = options.fullRankingRowsPerLimit ?? FULL_RANKING_ROWS_PER_LIMIT;
    this.#db = openPassageConnection(this.#name, {
      busyTimeoutMs: options.writerBusyTimeoutMs ?? WRITER_BUSY_TIMEOUT_MS,
    });
    // Before the first table: a deflated block of up to 8 KiB of text is ~2–4 KB, and two rarely share a
    // 4 KiB page, which left 44% of passage_text's pages empty; at 8 KiB 18% (the bench's ten-section corpus,
    // 20k passages: 15.6 → 10.7 MiB of pages for 8.7 MiB of blocks). FTS5's segment pages pack alike at both.
    this.#db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
    for (const sql of schema) this.#db.exec(sql);
    this.#insert = this.#db.prepare(
      "INSERT INTO passages (rowid, heading, body, title, path) VALUES (?, ?, ?, ?, ?)",
    );
    this.#remove = this.#db.prepare(
      "INSERT INTO passages (passages, rowid, heading, body, title, path) VALUES ('delete', ?, ?, ?, ?, ?)",
    );
    this.#insertRow = this.#db.prepare(
      "INSERT INTO passage_rows (rowid, document_id, ordinal) VALUES (?, ?, ?)",
    );
    this.#removeRow = this.#db.prepare("DELETE FROM passage_rows WHERE rowid = ?");
    this.#insertText = this.#db.prepare("INSERT INTO passage_text (rowid, packed) VALUES (?, ?)");
    this.#documentText = this.#db.prepare(
      "SELECT rowid, packed FROM passage_text WHERE rowid BETWEEN ? AND ?",
    );
    this.#removeText = this.#db.prepare("DELETE FROM passage_text WHERE rowid BETWEEN ? AND ?");
    this.#putDocument = this.#db.prepare(
      "INSERT INTO passage_documents (id, title, path, tags) VALUES (?, ?, ?, ?)",
    );
    this.#dropDocument = this.#db.prepare("DELETE FROM passage_documents WHERE id = ?");
    this.#writeState = this.#db.prepare(writeStateSql);
    // A negative count merges every level's segments together, as 'optimize' does, but in steps; 'optimize'
    // in one statement took 67 ms at 20,024 passages and grew the pages 19.3 → 22.2 MiB (steps: unchanged).
    this.#wholeMergeStep = this.#db.prepare(
      `INSERT INTO passages (passages, rank) VALUES ('merge', -${MERGE_STEP_PAGES})`,
    );
    this.#levelMergeStep = this.#db.prepare(
      `INSERT INTO passages (passages, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`,
    );
    this.#totalChanges = this.#db.prepare("SELECT total_changes() AS n");
  }

  /** The name its search threads open its database by (passage-database.ts); never a path. */
  get databaseName(): string {
    return this.#name;
  }

  /** Feedback's parameters, which a search thread's searcher takes too. */
  get feedback(): FeedbackParameters | null {
    return this.#feedbackParameters;
  }

  /**
   * Replaces whole documents and removes others, in one transaction: a search sees every change or none,
   * and a document's old passages are gone before its new ones are in. A write that fails (memdb's size bound,
   * a commit that waited past WRITER_BUSY_TIMEOUT_MS) leaves this index's own bookkeeping out of step with the
   * rolled-back tables, so the index is closed and the next search rebuilds it.
   */
  apply(put: IndexedDocument[], remove: string[] = []): void {
    try {
      this.#db.transaction(() => {
        for (const id of remove) this.#removeDocument(id);
        for (const doc of put) {
          this.#removeDocument(doc.id);
          this.#addDocument(doc);
          this.#writtenSinceWhole += doc.passages.length;
        }
        this.#writtenSinceWhole += remove.length;
        this.#saveState();
      })();
    } catch (error) {
      this.close();
      if (isFull(error))
        throw new DomainError(
          "payload_too_large",
          `The team's search index would hold more than ${MAX_INDEX_BYTES / 1024 ** 3} GiB, the most one index holds.`,
        );
      throw error;
    }
  }

  /** Writes the counts and a new generation for the searches, inside the caller's transaction. */
  #saveState(): void {
    this.#generation++;
    this.#writeState.run(this.#passages, this.#unordered, this.#generation);
  }

  /** The searcher over this thread's connection (the in-thread search path, and the tests'). */
  #ownSearcher(): PassageSearcher {
    this.#searcher ??= new PassageSearcher(this.#db, this.#feedbackParameters, this.#fullRankingRowsPerLimit);
    return this.#searcher;
  }

  /** A search on this thread (PassageSearcher.find). */
  find(query: MatchQuery, limit: number): PassageHit[] {
    return this.#ownSearcher().find(query, limit);
  }

  /** The words feedback adds to `query` (PassageSearcher.expansionOf). */
  expansionOf(query: MatchQuery): ExpansionTerm[] {
    return this.#ownSearcher().expansionOf(query);
  }

  /** One FTS5 expression's hits (PassageSearcher.search). */
  search(expression: string, limit: number, highlight = expression): PassageHit[] {
    return this.#ownSearcher().search(expression, limit, highlight);
  }

  counts(): { documents: number; chunks: number } {
    return { documents: this.#documents.size, chunks: this.#passages };
  }

  /**
   * Holds FTS5's incremental merging back while a build loads many documents, or restores it; the rest is
   * merged in steps after the first answer (wholeMergeStep). Measurements: docs/decisions/0008-build-merging.md.
   */
  holdMerges(hold: boolean): void {
    const level = hold ? BUILD_AUTOMERGE : DEFAULT_AUTOMERGE;
    this.#db.exec(`INSERT INTO passages (passages, rank) VALUES ('automerge', ${level})`);
  }

  /** Whether enough was written since the index was last one segment for a whole merge to pay. */
  needsWholeMerge(): boolean {
    return this.#writtenSinceWhole >= Math.max(WHOLE_MERGE_MIN_PASSAGES, this.#passages * WHOLE_MERGE_SHARE);
  }

  /**
   * Does one bounded step of merging every segment into one (after a build, the merging it held back too);
   * false once the index is one segment. Each step is short (MERGE_STEP_PAGES pages), so searches run between
   * steps. What was written before the last step is merged then, so the count of what was written starts again.
   */
  wholeMergeStep(): boolean {
    const more = this.#mergeStep(this.#wholeMergeStep);
    if (!more) this.#writtenSinceWhole = 0;
    return more;
  }

  /**
   * One bounded step of FTS5's own merging, which stops at its automerge levels and leaves several segments:
   * what a load's held-back merging does with the whole-merge switch off (src/tuning.ts).
   */
  levelMergeStep(): boolean {
    return this.#mergeStep(this.#levelMergeStep);
  }

  #mergeStep(step: IndexStatement): boolean {
    const before = (this.#totalChanges.get() as { n: number }).n;
    step.run();
    // FTS5's documented test: a merge that did work changes two or more rows.
    return (this.#totalChanges.get() as { n: number }).n - before >= 2;
  }

  /** Documents whose rowids do not follow (document id, ordinal) order; a rebuild puts them in order. */
  unorderedDocuments(): number {
    return this.#unordered;
  }

  /**
   * What this index holds in memory, estimated cheaply for the memory budget: the pages of its in-memory
   * database (every table and FTS5 segment) plus a fixed overhead per index (see INDEX_OVERHEAD_BYTES). The
   * writer's own bookkeeping map is left out: it is small beside the text.
   */
  memoryBytes(): number {
    return databaseBytes(this.#db) + INDEX_OVERHEAD_BYTES;
  }

  /**
   * Gives the writer's page cache back to malloc (releasePageCache), for when the server is idle. A write's
   * transaction keeps every page it changed (cache_spill off), and searches on the main thread fill it too:
   * in process, 3.9 MiB given back after a 20,002-passage build in 2 MiB batches and 1.9 MiB after 300
   * searches; through the server, after that build by the batch route and 300 long questions, 4.4 MiB of the
   * main thread's malloc heap (decision 0082).
   */
  releaseMemory(): void {
    if (this.isOpen()) releasePageCache(this.#db);
  }

  /**
   * The index as a sealed snapshot holds it (passage-snapshot.ts): its tables `pageRows` at a time, and its
   * bookkeeping. The caller keeps writes away until the pages are read (it runs in the team's queue).
   */
  snapshot(pageRows: number): IndexSnapshot<PassageIndexState> {
    return snapshotPassageIndex(this.#db, pageRows, () => ({
      documents: this.#documents,
      nextUnorderedRowid: this.#nextUnorderedRowid,
    }));
  }

  /**
   * A fresh index to fill from a snapshot's pages, then its bookkeeping: nothing reads its FTS5 table before
   * the pages are in (see snapshot.ts for why that matters).
   */
  static restore(options: PassageIndexOptions = {}): PassageIndexRestore<PassageIndex> {
    const index = new PassageIndex(options);
    return restorePassageIndex(index, index.#db, (restored) => {
      for (const [id, doc] of restored.documents) {
        index.#documents.set(id, doc);
        if (!doc.ordered) index.#unordered++;
        index.#passages += doc.rowids.length;
      }
      index.#ranges.restore(restored.ordered);
      index.#nextUnorderedRowid = restored.nextUnorderedRowid;
      index.#db.transaction(() => index.#saveState())();
    });
  }

  /** False once closed (its team was deleted or its index discarded). */
  isOpen(): boolean {
    return this.#db.open;
  }

  /** Calls `listener` once, when the index closes (at once if it is closed already). */
  whenClosed(listener: () => void): void {
    if (!this.#db.open) listener();
    else this.#onClose.push(listener);
  }

  close(): void {
    if (!this.#db.open) return;
    this.#db.close();
    for (const listener of this.#onClose.splice(0)) listener();
  }

  #removeDocument(id: string): void {
    const doc = this.#documents.get(id);
    if (!doc) return;
    // A document's rowids are consecutive and its blocks hold nothing else, so its text is one range.
    const first = doc.rowids[0];
    if (first !== undefined) {
      const last = first + doc.rowids.length - 1;
      const path = doc.path.join(TRAIL_SEPARATOR);
      const title = titleColumnText(doc.title, doc.tags);
      for (const block of this.#documentText.all(first, last) as { rowid: number; packed: ArrayBuffer }[]) {
        for (const [i, p] of unpackBlock(block.packed).entries()) {
          this.#remove.run(block.rowid + i, p.heading, p.body, title, path);
        }
      }
      for (const rowid of doc.rowids) this.#removeRow.run(rowid);
      this.#removeText.run(first, last);
    }
    this.#dropDocument.run(id);
    this.#passages -= doc.rowids.length;
    this.#documents.delete(id);
    if (doc.ordered) this.#ranges.release(id);
    else this.#unordered--;
  }

  #addDocument(doc: IndexedDocument): void {
    const path = doc.path.join(TRAIL_SEPARATOR);
    const tags = doc.tags ?? [];
    const title = titleColumnText(doc.title, tags);
    const inOrder = doc.passages.every((p, i) => i === 0 || p.ordinal > (doc.passages[i - 1]?.ordinal ?? 0));
    const start = inOrder ? this.#ranges.place(doc.id, doc.passages.length) : null;
    const rowids: number[] = [];
    const stored: StoredPassage[] = [];
    for (const [i, p] of doc.passages.entries()) {
      const rowid = start === null ? this.#nextUnorderedRowid++ : start + i;
      const body = withoutMarkers(p.text);
      this.#insert.run(rowid, p.heading, body, title, path);
      this.#insertRow.run(rowid, doc.id, p.ordinal);
      if (!doc.packed) stored.push({ chunkId: p.chunkId, heading: p.heading, body });
      rowids.push(rowid);
    }
    // A block's row is its first passage's rowid: a document's rowids are consecutive (rowids.ts). Packed
    // here, the bodies are the ones just indexed, as packDocumentText would make them.
    const blocks = doc.packed ?? packTextBlocks(stored);
    if (doc.packed && !blocksFit(doc.packed, rowids.length))
      throw new RangeError("a document's packed text blocks do not hold its passages in order");
    for (const block of blocks) this.#insertText.run(rowids[block.first], block.packed);
    this.#putDocument.run(doc.id, JSON.stringify(doc.title), JSON.stringify(doc.path), JSON.stringify(tags));
    if (start === null) this.#unordered++;
    this.#documents.set(doc.id, { title: doc.title, path: doc.path, tags, rowids, ordered: start !== null });
    this.#passages += rowids.length;
  }
}
