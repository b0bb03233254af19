// One team's passages in an in-memory FTS5 table. The only code that speaks FTS5.
//
// FTS5 keeps its term postings in plaintext, so this database must never be a file: it is opened as
// ":memory:" and nothing else, and backingFile() lets a test prove it. It uses libSQL's synchronous engine
// (the one @libsql/client itself runs on) rather than the async client: loading 90k passages through the
// client's batch() measured ~1.6× the engine's own time, from per-call overhead, and a synchronous
// transaction can never be interleaved with a search (docs/decisions/0002-index-engine.md).

import Database from "libsql";
import {
  MATCH_CLOSE,
  MATCH_OPEN,
  renderSnippet,
  SNIPPET_ELLIPSIS,
  SNIPPET_TOKENS,
  withoutMarkers,
} from "./snippet.js";
import { bm25Weights } from "./weights.js";

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
  passages: IndexedPassage[];
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

interface DocumentEntry {
  title: string;
  path: string[];
  rowids: number[];
}

// Column order is load-bearing: bm25() and snippet() address columns by position, so body must stay second
// (the snippet column) and title and path come after it.
const schema = `CREATE VIRTUAL TABLE passages USING fts5(
  heading, body, title, path,
  chunk_id UNINDEXED, document_id UNINDEXED, ordinal UNINDEXED,
  tokenize = 'porter unicode61'
)`;

const weights = bm25Weights.join(", ");
// Equal scores fall back to document id, then ordinal, so the same data answers in the same order every
// time, a rebuilt index included.
const searchSql = `SELECT chunk_id, document_id, ordinal, heading,
    snippet(passages, 1, '${MATCH_OPEN}', '${MATCH_CLOSE}', '${SNIPPET_ELLIPSIS}', ${SNIPPET_TOKENS}) AS snippet,
    bm25(passages, ${weights}) AS rank
  FROM passages WHERE passages MATCH ?
  ORDER BY rank, document_id, ordinal LIMIT ?`;

export class PassageIndex {
  readonly #db: Database.Database;
  readonly #documents = new Map<string, DocumentEntry>();
  readonly #insert: Database.Statement;
  readonly #remove: Database.Statement;
  readonly #search: Database.Statement;
  #passages = 0;
  #nextRowid = 1;

  constructor() {
    this.#db = new Database(":memory:");
    this.#db.exec(schema);
    this.#insert = this.#db.prepare(
      "INSERT INTO passages (rowid, heading, body, title, path, chunk_id, document_id, ordinal) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#remove = this.#db.prepare("DELETE FROM passages WHERE rowid = ?");
    this.#search = this.#db.prepare(searchSql);
  }

  /**
   * Replaces whole documents and removes others, in one transaction: a search sees every change or none,
   * and a document's old passages are gone before its new ones are in.
   */
  apply(put: IndexedDocument[], remove: string[] = []): void {
    this.#db.transaction(() => {
      for (const id of remove) this.#removeDocument(id);
      for (const doc of put) {
        this.#removeDocument(doc.id);
        this.#addDocument(doc);
      }
    })();
  }

  search(expression: string, limit: number): PassageHit[] {
    if (expression === "") return [];
    const rows = this.#search.all(expression, limit) as {
      chunk_id: string;
      document_id: string;
      ordinal: number;
      heading: string;
      snippet: string;
      rank: number;
    }[];
    return rows.map((row) => {
      const doc = this.#documents.get(row.document_id);
      return {
        chunkId: row.chunk_id,
        documentId: row.document_id,
        ordinal: row.ordinal,
        title: doc?.title ?? "",
        heading: row.heading,
        path: doc?.path ?? [],
        snippet: renderSnippet(row.snippet),
        score: -row.rank,
      };
    });
  }

  counts(): { documents: number; chunks: number } {
    return { documents: this.#documents.size, chunks: this.#passages };
  }

  /** The file SQLite has behind this index: always "" (in memory). A test asks, rather than trusting the code. */
  backingFile(): string {
    const rows = this.#db.prepare("PRAGMA database_list").all() as { name: string; file: string }[];
    return rows.find((r) => r.name === "main")?.file ?? "";
  }

  close(): void {
    this.#db.close();
  }

  #removeDocument(id: string): void {
    const doc = this.#documents.get(id);
    if (!doc) return;
    for (const rowid of doc.rowids) this.#remove.run(rowid);
    this.#passages -= doc.rowids.length;
    this.#documents.delete(id);
  }

  #addDocument(doc: IndexedDocument): void {
    const path = doc.path.join(TRAIL_SEPARATOR);
    const rowids: number[] = [];
    for (const p of doc.passages) {
      const rowid = this.#nextRowid++;
      this.#insert.run(
        rowid,
        p.heading,
        withoutMarkers(p.text),
        doc.title,
        path,
        p.chunkId,
        doc.id,
        p.ordinal,
      );
      rowids.push(rowid);
    }
    this.#documents.set(doc.id, { title: doc.title, path: doc.path, rowids });
    this.#passages += rowids.length;
  }
}
