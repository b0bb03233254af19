// One team's passages in an in-memory FTS5 table. The only code that speaks FTS5.
//
// FTS5 keeps its term postings in plaintext, so this database must never be a file: it is opened as
// ":memory:" and nothing else, and backingFile() lets a test prove it. Why the synchronous engine:
// docs/decisions/0002-index-engine.md.

import Database from "libsql";
import { ColumnSizes } from "./column-sizes.js";
import type { ExpansionTerm, FeedbackParameters } from "./feedback.js";
import { FeedbackRescoring } from "./feedback-rescoring.js";
import { databaseBytes, INDEX_OVERHEAD_BYTES } from "./memory-accounting.js";
import {
  passageSql,
  rankByRowidSql,
  rankSql,
  rankWithTiesSql,
  schema,
  textBlockSql,
} from "./passage-layout.js";
import { type PassageIndexState, passageIndexStateSchema } from "./passage-state.js";
import { packBlock, type StoredPassage, textBlocks, unpackBlock } from "./passage-text.js";
import { canonicalOrder, prunedRanking, type RankedRow, type RowTermCounts } from "./pruned-ranking.js";
import { type MatchQuery, orExpression } from "./query.js";
import { OrderedRanges, UNORDERED_ROWIDS_START } from "./rowids.js";
import {
  exportTables,
  type IndexSnapshot,
  SnapshotMismatchError,
  schemaFingerprint,
  TableRestore,
} from "./snapshot.js";
import { withoutMarkers } from "./snippet.js";
import { SnippetTable } from "./snippet-table.js";
import { contractOrder, type DocumentEntry, type StoredHit } from "./stored-hit.js";
import { TermTable } from "./term-table.js";

/** Joins a heading trail or an ancestry path into one indexed string. */
export const TRAIL_SEPARATOR = " › ";

export interface IndexedPassage {
  chunkId: string;
  ordinal: number;
  heading: string;
  text: string;
}

export interface IndexedDocument {
  id: string;
  title: string;
  path: string[];
  /** Front matter tags, searched as words of the title (absent: none). */
  tags?: readonly string[];
  passages: IndexedPassage[];
}

/**
 * What the title column indexes: the title, then the document's tags. A tag names what a document is
 * about as its title does, so it weighs as a title word (weights.ts), in every passage of the document;
 * the hit still shows the title alone. Decision 0033.
 */
export function titleColumnText(title: string, tags: readonly string[] = []): string {
  return tags.length === 0 ? title : [title, ...tags].join(TRAIL_SEPARATOR);
}

export interface PassageIndexOptions {
  /** Free rowids after each document (src/index/rowids.ts); only tests change it. */
  rowidGap?: number;
  /** Pseudo-relevance feedback's parameters (FEEDBACK in feedback.ts), or null for none, the default. */
  feedback?: FeedbackParameters | null;
}

export interface PassageHit {
  chunkId: string;
  documentId: string;
  ordinal: number;
  title: string;
  heading: string;
  path: string[];
  snippet: string;
  /** BM25 negated, so larger is better everywhere outside this file. */
  score: number;
}

/** A passage index being filled from a snapshot (see PassageIndex.restore). */
export interface PassageIndexRestore {
  /** The fresh index's fingerprint: a snapshot with another one must not be restored into it. */
  fingerprint: string;
  write: TableRestore["write"];
  /** Takes the snapshot's bookkeeping and hands over the index; throws SnapshotMismatchError on bad state. */
  finish(state: unknown): PassageIndex;
  /** Closes the half-filled index. */
  abort(): void;
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

// How many passages a quoted term matches: bm25()'s own document count for the phrase, which pruning's
// bounds need. It counts what the query matches: the term stemmed as FTS5 stems a query (feedback counts a
// stored token itself, through an fts5vocab table: see #tokenCount).
const termCountSql = "SELECT count(*) AS n FROM passages WHERE passages MATCH ?";

export class PassageIndex {
  readonly #db: Database.Database;
  readonly #documents = new Map<string, DocumentEntry>();
  readonly #insert: Database.Statement;
  readonly #remove: Database.Statement;
  readonly #rank: Database.Statement;
  readonly #rankWithTies: Database.Statement;
  readonly #rankByRowid: Database.Statement;
  readonly #passage: Database.Statement;
  readonly #insertRow: Database.Statement;
  readonly #removeRow: Database.Statement;
  readonly #insertText: Database.Statement;
  readonly #removeText: Database.Statement;
  readonly #documentText: Database.Statement;
  readonly #textBlock: Database.Statement;
  readonly #snippets: SnippetTable;
  readonly #terms: TermTable;
  readonly #columnSizes: ColumnSizes;
  /** Feedback's rescoring, or null when it is off. */
  readonly #feedback: FeedbackRescoring | null;
  /**
   * Exact passage counts of query terms, forgotten on every change. Counts
   * kept across writes as lower bounds were tried (they spare the first search after a write ~1.2 ms p50 of
   * recounting at 20k passages) and given up: pruning's split, and with it the order in which a score's
   * shares are summed, then depended on the index's history, so the same data could answer a restarted
   * server with scores different in the last bits, and feedback could weigh its words differently.
   */
  readonly #exactCounts = new Map<string, number>();
  readonly #termCount: Database.Statement;
  readonly #mergeStep: Database.Statement;
  readonly #totalChanges: Database.Statement;
  /** Passages in the index. */
  #passages = 0;
  #nextUnorderedRowid = UNORDERED_ROWIDS_START;
  readonly #ranges: OrderedRanges;
  /** Documents whose rowids do not follow (document id, ordinal) order; zero lets ties be ordered by rowid. */
  #unordered = 0;

  constructor(options: PassageIndexOptions = {}) {
    this.#ranges = new OrderedRanges(options.rowidGap);
    this.#db = new Database(":memory:");
    // A large sort may otherwise spill to a temporary file, and here every row is plaintext.
    this.#db.exec("PRAGMA temp_store = MEMORY");
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
    this.#insertText = this.#db.prepare("INSERT INTO passage_text (rowid, passages) VALUES (?, ?)");
    this.#documentText = this.#db.prepare(
      "SELECT rowid, passages FROM passage_text WHERE rowid BETWEEN ? AND ?",
    );
    this.#removeText = this.#db.prepare("DELETE FROM passage_text WHERE rowid BETWEEN ? AND ?");
    this.#textBlock = this.#db.prepare(textBlockSql);
    this.#rank = this.#db.prepare(rankSql);
    this.#rankWithTies = this.#db.prepare(rankWithTiesSql);
    this.#rankByRowid = this.#db.prepare(rankByRowidSql);
    this.#passage = this.#db.prepare(passageSql);
    this.#snippets = new SnippetTable(this.#db);
    this.#terms = new TermTable(this.#db);
    this.#columnSizes = new ColumnSizes(this.#db, "passages");
    this.#termCount = this.#db.prepare(termCountSql);
    this.#feedback = options.feedback
      ? new FeedbackRescoring(this.#db, options.feedback, {
          rank: (query, count) => this.#rankQuery(query, count),
          stored: (rowids) => this.#storedPassages(rowids),
          terms: this.#terms,
          columnSizes: this.#columnSizes,
        })
      : null;
    this.#mergeStep = this.#db.prepare(
      `INSERT INTO passages (passages, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`,
    );
    this.#totalChanges = this.#db.prepare("SELECT total_changes() AS n");
  }

  /**
   * Replaces whole documents and removes others, in one transaction: a search sees every change or none,
   * and a document's old passages are gone before its new ones are in.
   */
  apply(put: IndexedDocument[], remove: string[] = []): void {
    this.#exactCounts.clear();
    this.#feedback?.forgetCounts();
    this.#db.transaction(() => {
      for (const id of remove) this.#removeDocument(id);
      for (const doc of put) {
        this.#removeDocument(doc.id);
        this.#addDocument(doc);
      }
    })();
  }

  /**
   * Answers a query as its full expression would, without scoring the passages that can only hold terms too
   * weak to reach the top `limit` (pruned-ranking.ts; docs/decisions/0022-long-query-pruning.md). With
   * feedback, the first pass's best candidates are scored again with the expansion (feedback-rescoring.ts;
   * docs/decisions/0027-feedback-rescoring.md, 0036-feedback-by-length.md). Snippets highlight with what was
   * typed.
   */
  find(query: MatchQuery, limit: number): PassageHit[] {
    const rescored = this.#feedback?.rescore(query, limit, this.#passages) ?? null;
    // Highlighted with what the person typed: the expansion words rank, but nobody asked for them.
    if (rescored) return this.#answer(rescored.rows, query.expression, rescored.stored);
    return this.#answer(this.#rankQuery(query, limit), query.expression);
  }

  /**
   * The words pseudo-relevance feedback adds to `query` (feedback.ts): drawn from the query's best passages,
   * none when feedback is off, the index is small, the question is short or no word qualifies.
   */
  expansionOf(query: MatchQuery): ExpansionTerm[] {
    return this.#feedback?.expansionOf(query, this.#passages) ?? [];
  }

  #exactCount(term: string): number {
    let n = this.#exactCounts.get(term);
    if (n === undefined) {
      n = (this.#termCount.get(`"${term}"`) as { n: number }).n;
      this.#exactCounts.set(term, n);
    }
    return n;
  }

  /**
   * The query's top `limit` rows as its full expression (its terms ORed and the NEAR group of them all) ranks
   * them, pruned (pruned-ranking.ts; docs/decisions/0022-long-query-pruning.md).
   */
  #rankQuery(query: MatchQuery, limit: number): RankedRow[] {
    if (query.expression === "") return [];
    const terms = query.terms;
    if (this.#unordered > 0) {
      // Pruning merges lists by rowid for ties, which is the contract's order only while every document's
      // rowids are ordered (rowids.ts); until a rebuild restores that, the full expression answers. Its
      // phrases in pruning's order, so the scores are the ones a pruned search of the same data gives, to the
      // last bit.
      const ordered =
        terms.length < 2 ? terms : canonicalOrder(terms, new Map(terms.map((t) => [t, this.#exactCount(t)])));
      return this.#rankExpression(orExpression(ordered, ordered), limit);
    }
    return prunedRanking(terms, limit, {
      rank: (expression, n) => this.#rankByRowid.all(expression, n) as RankedRow[],
      matchingAtLeast: (term) => this.#exactCount(term),
      passages: this.#passages,
      termCounts: (rowids, words) => this.#termCounts(rowids, words),
    });
  }

  /** What bm25() reads of some rows for some one-token terms: pruning adds the clamped shares with it. */
  #termCounts(rowids: readonly number[], words: readonly string[]): RowTermCounts | null {
    const frequencies = this.#terms.frequenciesOf(this.#storedPassages(rowids), words);
    if (frequencies === null) return null;
    return { ...this.#columnSizes.averages(), lengths: this.#columnSizes.lengths(rowids), frequencies };
  }

  /**
   * Runs one FTS5 expression. `highlight` is the expression whose matches the snippets mark (by default the
   * same one), so a search that ranked with fewer terms still highlights every word the person typed.
   */
  search(expression: string, limit: number, highlight = expression): PassageHit[] {
    return this.#answer(this.#rankExpression(expression, limit), highlight);
  }

  /** One expression's top `limit` rows in the contract's order (score, then document id, then ordinal). */
  #rankExpression(expression: string, limit: number): RankedRow[] {
    if (expression === "") return [];
    let ranked: RankedRow[];
    if (this.#unordered === 0) {
      ranked = this.#rankByRowid.all(expression, limit) as RankedRow[];
    } else {
      ranked = this.#rank.all(expression, limit + 1) as RankedRow[];
      if (ranked.length > limit) {
        ranked =
          ranked[limit]?.rank === ranked[limit - 1]?.rank
            ? (this.#rankWithTies.all(expression, limit) as RankedRow[])
            : ranked.slice(0, limit);
      }
    }
    return ranked;
  }

  /**
   * The hits for ranked rows: their stored columns (`stored`, when the caller has read them already), snippets
   * marking what `highlight` matches, sorted.
   */
  #answer(
    ranked: readonly RankedRow[],
    highlight: string,
    stored: readonly StoredHit[] = this.#storedPassages(ranked.map((r) => r.rowid)),
  ): PassageHit[] {
    if (ranked.length === 0) return [];
    const snippets = this.#snippets.cut(stored, highlight);
    const hits = ranked.map((row, i): PassageHit => {
      const detail = stored[i];
      return {
        chunkId: detail?.chunkId ?? "",
        documentId: detail?.documentId ?? "",
        ordinal: detail?.ordinal ?? 0,
        title: detail?.document?.title ?? "",
        heading: detail?.heading ?? "",
        path: detail?.document?.path ?? [],
        snippet: snippets[i] ?? "",
        score: -row.rank,
      };
    });
    return hits.sort((a, b) => b.score - a.score || contractOrder(a, b));
  }

  /**
   * What a hit shows of each passage, in the given order: its row, its block's text (each block inflated once
   * however many of its passages were returned) and its document's title and path from the map.
   */
  #storedPassages(rowids: readonly number[]): StoredHit[] {
    const blocks = new Map<number, StoredPassage[]>();
    return rowids.map((rowid) => {
      const row = this.#passage.get(rowid) as { document_id: string; ordinal: number } | undefined;
      const block = this.#textBlock.get(rowid) as { rowid: number; passages: Uint8Array } | undefined;
      let text: StoredPassage | undefined;
      if (block) {
        let passages = blocks.get(block.rowid);
        if (!passages) {
          passages = unpackBlock(block.passages);
          blocks.set(block.rowid, passages);
        }
        text = passages[rowid - block.rowid];
      }
      const documentId = row?.document_id ?? "";
      const document = this.#documents.get(documentId);
      return {
        chunkId: text?.chunkId ?? "",
        documentId,
        ordinal: row?.ordinal ?? 0,
        document,
        heading: text?.heading ?? "",
        body: text?.body ?? "",
        title: document ? titleColumnText(document.title, document.tags) : "",
        path: document?.path.join(TRAIL_SEPARATOR) ?? "",
      };
    });
  }

  counts(): { documents: number; chunks: number } {
    return { documents: this.#documents.size, chunks: this.#passages };
  }

  /** Rows of passage_rows and of passage_text: a test counts them to see a removed document's text gone. */
  storedRows(): { passages: number; textBlocks: number } {
    const count = (table: string) =>
      (this.#db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { passages: count("passage_rows"), textBlocks: count("passage_text") };
  }

  /** The file SQLite has behind this index: always "" (in memory). A test asks, rather than trusting the code. */
  backingFile(): string {
    const rows = this.#db.prepare("PRAGMA database_list").all() as { name: string; file: string }[];
    return rows.find((r) => r.name === "main")?.file ?? "";
  }

  /**
   * Holds FTS5's incremental merging back while a build loads many documents, or restores it; the rest is
   * merged in steps after the first answer (mergeStep). Measurements: docs/decisions/0008-build-merging.md.
   */
  holdMerges(hold: boolean): void {
    const level = hold ? BUILD_AUTOMERGE : DEFAULT_AUTOMERGE;
    this.#db.exec(`INSERT INTO passages (passages, rank) VALUES ('automerge', ${level})`);
  }

  /**
   * Does one bounded step of the segment merging a build held back; false once there is nothing left to
   * merge. Each step is short (MERGE_STEP_PAGES pages), so searches run between steps.
   */
  mergeStep(): boolean {
    const before = (this.#totalChanges.get() as { n: number }).n;
    this.#mergeStep.run();
    // FTS5's documented test: a merge that did work changes two or more rows.
    return (this.#totalChanges.get() as { n: number }).n - before >= 2;
  }

  /** Where SQLite keeps temporary tables and sort space: "memory", or a test fails. */
  temporaryStore(): "memory" | "file" | "default" {
    const mode = (this.#db.prepare("PRAGMA temp_store").get() as { temp_store: number }).temp_store;
    return mode === 2 ? "memory" : mode === 1 ? "file" : "default";
  }

  /** Documents whose rowids do not follow (document id, ordinal) order; a rebuild puts them in order. */
  unorderedDocuments(): number {
    return this.#unordered;
  }

  /**
   * What this index holds in memory, estimated cheaply for the memory budget: the pages of its in-memory
   * database (every table, FTS5 segments and the scratch snippet table included) plus a fixed overhead per
   * index (see INDEX_OVERHEAD_BYTES). The per-document map is left out: it is small beside the text.
   */
  memoryBytes(): number {
    return databaseBytes(this.#db) + INDEX_OVERHEAD_BYTES;
  }

  /**
   * The index as a sealed snapshot holds it (src/index/snapshot.ts): its tables `pageRows` at a time, and its
   * bookkeeping. The caller keeps writes away until the pages are read (it runs in the team's queue).
   */
  snapshot(pageRows: number): IndexSnapshot<PassageIndexState> {
    return {
      fingerprint: schemaFingerprint(this.#db),
      pages: exportTables(this.#db, pageRows),
      state: () => ({
        documents: [...this.#documents].map(([id, doc]) =>
          doc.ordered
            ? {
                id,
                title: doc.title,
                path: doc.path,
                ...(doc.tags.length > 0 ? { tags: [...doc.tags] } : {}),
                first: doc.rowids[0] ?? 0,
                count: doc.rowids.length,
              }
            : {
                id,
                title: doc.title,
                path: doc.path,
                ...(doc.tags.length > 0 ? { tags: [...doc.tags] } : {}),
                rowids: doc.rowids,
              },
        ),
        nextUnorderedRowid: this.#nextUnorderedRowid,
      }),
    };
  }

  /**
   * A fresh index to fill from a snapshot's pages, then its bookkeeping: nothing reads its FTS5 table before
   * the pages are in (see snapshot.ts for why that matters).
   */
  static restore(options: PassageIndexOptions = {}): PassageIndexRestore {
    const index = new PassageIndex(options);
    const tables = new TableRestore(index.#db);
    return {
      fingerprint: schemaFingerprint(index.#db),
      write: (page) => tables.write(page),
      finish: (raw) => {
        const parsed = passageIndexStateSchema.safeParse(raw);
        if (!parsed.success)
          throw new SnapshotMismatchError("the passage index's bookkeeping is not in its shape");
        const ordered: { id: string; first: number; count: number }[] = [];
        for (const doc of parsed.data.documents) {
          if ("rowids" in doc) {
            index.#documents.set(doc.id, {
              title: doc.title,
              path: doc.path,
              tags: doc.tags ?? [],
              rowids: doc.rowids,
              ordered: false,
            });
            index.#unordered++;
            index.#passages += doc.rowids.length;
          } else {
            const rowids = Array.from({ length: doc.count }, (_, i) => doc.first + i);
            index.#documents.set(doc.id, {
              title: doc.title,
              path: doc.path,
              tags: doc.tags ?? [],
              rowids,
              ordered: true,
            });
            ordered.push(doc);
            index.#passages += doc.count;
          }
        }
        index.#ranges.restore(ordered);
        index.#nextUnorderedRowid = parsed.data.nextUnorderedRowid;
        return index;
      },
      abort: () => index.close(),
    };
  }

  /** False once closed (its team was deleted or its index discarded). */
  isOpen(): boolean {
    return this.#db.open;
  }

  close(): void {
    this.#db.close();
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
      for (const block of this.#documentText.all(first, last) as { rowid: number; passages: Uint8Array }[]) {
        for (const [i, p] of unpackBlock(block.passages).entries()) {
          this.#remove.run(block.rowid + i, p.heading, p.body, title, path);
        }
      }
      for (const rowid of doc.rowids) this.#removeRow.run(rowid);
      this.#removeText.run(first, last);
    }
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
    const stored: (StoredPassage & { rowid: number })[] = [];
    for (const [i, p] of doc.passages.entries()) {
      const rowid = start === null ? this.#nextUnorderedRowid++ : start + i;
      const body = withoutMarkers(p.text);
      this.#insert.run(rowid, p.heading, body, title, path);
      this.#insertRow.run(rowid, doc.id, p.ordinal);
      stored.push({ rowid, chunkId: p.chunkId, heading: p.heading, body });
      rowids.push(rowid);
    }
    for (const block of textBlocks(stored)) {
      this.#insertText.run(block[0]?.rowid, packBlock(block));
    }
    if (start === null) this.#unordered++;
    this.#documents.set(doc.id, { title: doc.title, path: doc.path, tags, rowids, ordered: start !== null });
    this.#passages += rowids.length;
  }
}
