// One team's memory entries in memory: an FTS5 table over title, impact and body for the match read, and a
// plain table of id, created_at, project and type for the recency and project reads. Like the passage index
// it is opened as ":memory:" and nothing else, since FTS5 keeps its postings in plaintext.

import Database from "libsql";
import type { MatchQuery } from "./query.js";

export interface IndexedEntry {
  id: string;
  createdAt: string;
  project: string | null;
  type: string | null;
  title: string;
  impact: string | null;
  body: string | null;
}

/** An entry as the reads return it: everything a working-memory line shows, without the body. */
export type EntrySummary = Omit<IndexedEntry, "body">;

// The two tables share rowids: a row of entry_meta and the row of entry_text with the same rowid are one
// entry. The indexes serve the recency read and the project read in their order, so each reads only the rows
// it returns.
const schema = [
  `CREATE TABLE entry_meta (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    project TEXT,
    type TEXT
  )`,
  "CREATE INDEX entry_newest ON entry_meta (created_at, id)",
  "CREATE INDEX entry_of_project ON entry_meta (project, created_at, id)",
  "CREATE VIRTUAL TABLE entry_text USING fts5(title, impact, body, tokenize = 'porter unicode61')",
];

const summaryColumns = "m.rowid AS rowid, m.id, m.created_at, m.project, m.type, t.title, t.impact";
const newestSql = `SELECT ${summaryColumns} FROM entry_meta m JOIN entry_text t ON t.rowid = m.rowid
  ORDER BY m.created_at DESC, m.id DESC LIMIT ?`;
const newestOfProjectSql = `SELECT ${summaryColumns} FROM entry_meta m JOIN entry_text t ON t.rowid = m.rowid
  WHERE m.project = ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?`;
const summarySql = `SELECT ${summaryColumns} FROM entry_meta m JOIN entry_text t ON t.rowid = m.rowid
  WHERE m.rowid = ?`;
// Ranking reads rowids and scores only; the summaries of the few returned are looked up afterwards. Only when
// equal ranks straddle the cut-off does the statement that orders ties by recency run, since it reads the
// metadata of every matching entry.
const rankSql = "SELECT rowid, rank FROM entry_text WHERE entry_text MATCH ? ORDER BY rank LIMIT ?";
const rankWithTiesSql = `SELECT t.rowid AS rowid, t.rank AS rank FROM entry_text t
  JOIN entry_meta m ON m.rowid = t.rowid
  WHERE entry_text MATCH ? ORDER BY t.rank, m.created_at DESC, m.id DESC LIMIT ?`;

interface SummaryRow {
  rowid: number;
  id: string;
  created_at: string;
  project: string | null;
  type: string | null;
  title: string;
  impact: string | null;
}

const summary = (row: SummaryRow): EntrySummary => ({
  id: row.id,
  createdAt: row.created_at,
  project: row.project,
  type: row.type,
  title: row.title,
  impact: row.impact,
});

export class EntryIndex {
  readonly #db: Database.Database;
  readonly #rowids = new Map<string, number>();
  readonly #insertMeta: Database.Statement;
  readonly #insertText: Database.Statement;
  readonly #removeMeta: Database.Statement;
  readonly #removeText: Database.Statement;
  readonly #newest: Database.Statement;
  readonly #newestOfProject: Database.Statement;
  readonly #summary: Database.Statement;
  readonly #rank: Database.Statement;
  readonly #rankWithTies: Database.Statement;

  constructor() {
    this.#db = new Database(":memory:");
    // A large sort may otherwise spill to a temporary file, and every row here is plaintext.
    this.#db.exec("PRAGMA temp_store = MEMORY");
    for (const statement of schema) this.#db.exec(statement);
    this.#insertMeta = this.#db.prepare(
      "INSERT INTO entry_meta (id, created_at, project, type) VALUES (?, ?, ?, ?)",
    );
    this.#insertText = this.#db.prepare(
      "INSERT INTO entry_text (rowid, title, impact, body) VALUES (?, ?, ?, ?)",
    );
    this.#removeMeta = this.#db.prepare("DELETE FROM entry_meta WHERE rowid = ?");
    this.#removeText = this.#db.prepare("DELETE FROM entry_text WHERE rowid = ?");
    this.#newest = this.#db.prepare(newestSql);
    this.#newestOfProject = this.#db.prepare(newestOfProjectSql);
    this.#summary = this.#db.prepare(summarySql);
    this.#rank = this.#db.prepare(rankSql);
    this.#rankWithTies = this.#db.prepare(rankWithTiesSql);
  }

  /** Adds or replaces entries and removes others, in one transaction. */
  apply(put: readonly IndexedEntry[], remove: readonly string[] = []): void {
    this.#db.transaction(() => {
      for (const id of remove) this.#remove(id);
      for (const entry of put) {
        this.#remove(entry.id);
        const { lastInsertRowid } = this.#insertMeta.run(
          entry.id,
          entry.createdAt,
          entry.project,
          entry.type,
        );
        const rowid = Number(lastInsertRowid);
        this.#insertText.run(rowid, entry.title, entry.impact, entry.body);
        this.#rowids.set(entry.id, rowid);
      }
    })();
  }

  /** The newest entries: createdAt, then id, descending. */
  newest(limit: number): EntrySummary[] {
    return (this.#newest.all(limit) as SummaryRow[]).map(summary);
  }

  /** The newest entries of one project. */
  newestOfProject(project: string, limit: number): EntrySummary[] {
    return (this.#newestOfProject.all(project, limit) as SummaryRow[]).map(summary);
  }

  /** Entries matching the query, best FTS5 rank first, newest first among equal ranks. */
  matching(query: MatchQuery, limit: number): EntrySummary[] {
    if (query.expression === "" || limit <= 0) return [];
    type Ranked = { rowid: number; rank: number };
    let ranked = this.#rank.all(query.expression, limit + 1) as Ranked[];
    if (ranked.length > limit) {
      ranked =
        ranked[limit]?.rank === ranked[limit - 1]?.rank
          ? (this.#rankWithTies.all(query.expression, limit) as Ranked[])
          : ranked.slice(0, limit);
    }
    const found = ranked.map((r) => ({ rank: r.rank, row: this.#summary.get(r.rowid) as SummaryRow }));
    found.sort(
      (a, b) =>
        a.rank - b.rank ||
        (a.row.created_at !== b.row.created_at
          ? a.row.created_at < b.row.created_at
            ? 1
            : -1
          : a.row.id < b.row.id
            ? 1
            : a.row.id > b.row.id
              ? -1
              : 0),
    );
    return found.map((f) => summary(f.row));
  }

  has(id: string): boolean {
    return this.#rowids.has(id);
  }

  count(): number {
    return this.#rowids.size;
  }

  /** The file SQLite has behind this index: always "" (in memory). */
  backingFile(): string {
    const rows = this.#db.prepare("PRAGMA database_list").all() as { name: string; file: string }[];
    return rows.find((r) => r.name === "main")?.file ?? "";
  }

  isOpen(): boolean {
    return this.#db.open;
  }

  close(): void {
    this.#db.close();
  }

  #remove(id: string): void {
    const rowid = this.#rowids.get(id);
    if (rowid === undefined) return;
    this.#removeText.run(rowid);
    this.#removeMeta.run(rowid);
    this.#rowids.delete(id);
  }
}
