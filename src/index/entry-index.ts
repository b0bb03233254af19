// One team's memory entries in memory: an FTS5 table over title, impact and body for the match read, and a
// plain table of id, created_at, project and type for the recency and project reads. Like the passage index
// it is opened as ":memory:" and nothing else, since FTS5 keeps its postings in plaintext.

import { z } from "zod";
import type { MemoryEntry } from "../memory/entry.js";
import type { EntrySource } from "../memory/gather.js";
import { IndexDatabase, type IndexStatement } from "./engine.js";
import { type MatchQuery, matchQuery } from "./query.js";
import { databaseBytes, INDEX_OVERHEAD_BYTES } from "./ram-estimate.js";
import {
  exportTables,
  type IndexSnapshot,
  SnapshotMismatchError,
  schemaFingerprint,
  TableRestore,
} from "./snapshots/snapshot.js";

export interface IndexedEntry extends MemoryEntry {
  body: string | null;
}

export type EntrySummary = Omit<IndexedEntry, "body">;

// entry_meta holds every entry's fields; entry_text indexes title, impact and body with entry_meta as its
// external content, so the text is held once and the reads never touch the FTS5 table. That matters: reading
// 200 summaries through FTS5 rowid lookups cost 166 ms at 100k entries when SQLite planned the join from the
// FTS5 side, and ~0.9 ms when it did not; from the plain table alone it is ~0.1 ms. The two indexes serve the
// recency read and the project read in their order, so each reads only the rows it returns.
const schema = [
  `CREATE TABLE entry_meta (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    project TEXT,
    type TEXT,
    title TEXT NOT NULL,
    impact TEXT,
    body TEXT
  )`,
  "CREATE INDEX entry_newest ON entry_meta (created_at, id)",
  "CREATE INDEX entry_of_project ON entry_meta (project, created_at, id)",
  `CREATE VIRTUAL TABLE entry_text USING fts5(
    title, impact, body,
    content = 'entry_meta', content_rowid = 'rowid',
    tokenize = 'porter unicode61'
  )`,
];

// Named as EntrySummary's fields, so a row is handed on as it comes, without a copy per entry.
const summaryColumns = "id, created_at AS createdAt, project, type, title, impact";
const newestSql = `SELECT ${summaryColumns} FROM entry_meta ORDER BY created_at DESC, id DESC LIMIT ?`;
const newestOfProjectSql = `SELECT ${summaryColumns} FROM entry_meta WHERE project = ?
  ORDER BY created_at DESC, id DESC LIMIT ?`;
const summarySql = `SELECT ${summaryColumns} FROM entry_meta WHERE rowid = ?`;
// Ranking reads rowids and scores only; the summaries of the few returned are looked up afterwards. Entries
// short enough to score alike tie often (one word once in a title of the same length), so ties need a cheap
// order: while rowids follow (createdAt, id) — entries are inserted oldest first and new ones are newer —
// `rowid DESC` is newest first. An entry inserted out of that order (another instance's, with an older clock)
// switches to ranking by score alone, and only when equal ranks straddle the cut-off does the statement that
// reads every matching entry's metadata run. Measured at 100k entries on the benchmark's asks: ordering ties
// through the metadata cost a median 12.4 ms per match read, by rowid 3.5 ms.
const matchByRowidSql = `SELECT m.id, m.created_at AS createdAt, m.project, m.type, m.title, m.impact
  FROM (SELECT rowid, rank FROM entry_text WHERE entry_text MATCH ? ORDER BY rank, rowid DESC LIMIT ?) r
  CROSS JOIN entry_meta m ON m.rowid = r.rowid
  ORDER BY r.rank, r.rowid DESC`;
const rankSql = "SELECT rowid, rank FROM entry_text WHERE entry_text MATCH ? ORDER BY rank LIMIT ?";
const rankWithTiesSql = `SELECT t.rowid AS rowid, t.rank AS rank FROM entry_text t
  JOIN entry_meta m ON m.rowid = t.rowid
  WHERE entry_text MATCH ? ORDER BY t.rank, m.created_at DESC, m.id DESC LIMIT ?`;

/** Whether `a` sorts after `b` in recency order (createdAt, then id). */
const isNewer = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
  a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);

/**
 * Projects whose newest entries are kept between writes. Agents ask about a handful of projects over and
 * over; a team with more than this many in play simply reads the rest each time.
 */
const CACHED_PROJECTS = 64;

/** The bookkeeping a snapshot carries beside the entry index's tables (see EntryIndex.snapshot). */
export const entryIndexStateSchema = z.object({
  /** [entry id, rowid] for every entry held. */
  rowids: z.array(z.tuple([z.string(), z.number().int()])),
  latest: z.object({ createdAt: z.string(), id: z.string() }).nullable(),
  unordered: z.array(z.string()),
});
export type EntryIndexState = z.infer<typeof entryIndexStateSchema>;

/** An entry index being filled from a snapshot (see EntryIndex.restore). */
export interface EntryIndexRestore {
  fingerprint: string;
  write: TableRestore["write"];
  finish(state: unknown): EntryIndex;
  abort(): void;
}

/** A team's entries as working memory reads them (EntrySource), held in FTS5. */
export class EntryIndex implements EntrySource<MatchQuery> {
  readonly #db: IndexDatabase;
  readonly #rowids = new Map<string, number>();
  readonly #insertMeta: IndexStatement;
  readonly #insertText: IndexStatement;
  readonly #removeMeta: IndexStatement;
  readonly #removeText: IndexStatement;
  readonly #stored: IndexStatement;
  readonly #newest: IndexStatement;
  readonly #newestOfProject: IndexStatement;
  readonly #summary: IndexStatement;
  readonly #rank: IndexStatement;
  readonly #matchByRowid: IndexStatement;
  readonly #rankWithTies: IndexStatement;
  /** The newest entry ever inserted; one older than it, inserted after it, breaks rowid order. */
  #latest: { createdAt: string; id: string } | null = null;
  /** Entries inserted out of recency order; while there are none, rowid order is recency order. */
  readonly #unordered = new Set<string>();
  // The recency and project reads answer the same until the next write, and every memory request makes the
  // first; so their answers are kept until apply() changes anything. Measured at 100k entries: ~0.4 ms per
  // read saved, of a ~5.7 ms memory request.
  #newestCache: { limit: number; entries: readonly EntrySummary[] } | null = null;
  readonly #projectCache = new Map<string, { limit: number; entries: readonly EntrySummary[] }>();

  constructor() {
    // Its temporary tables and sort space are in memory, as on every index connection (engine.ts).
    this.#db = new IndexDatabase(":memory:");
    for (const statement of schema) this.#db.exec(statement);
    this.#insertMeta = this.#db.prepare(
      "INSERT INTO entry_meta (id, created_at, project, type, title, impact, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#insertText = this.#db.prepare(
      "INSERT INTO entry_text (rowid, title, impact, body) VALUES (?, ?, ?, ?)",
    );
    this.#removeMeta = this.#db.prepare("DELETE FROM entry_meta WHERE rowid = ?");
    // An external-content table forgets a row by being told the text it indexed, which entry_meta still holds.
    this.#removeText = this.#db.prepare(
      "INSERT INTO entry_text (entry_text, rowid, title, impact, body) VALUES ('delete', ?, ?, ?, ?)",
    );
    this.#stored = this.#db.prepare(
      "SELECT created_at AS createdAt, project, type, title, impact, body FROM entry_meta WHERE rowid = ?",
    );
    this.#newest = this.#db.prepare(newestSql);
    this.#newestOfProject = this.#db.prepare(newestOfProjectSql);
    this.#summary = this.#db.prepare(summarySql);
    this.#rank = this.#db.prepare(rankSql);
    this.#matchByRowid = this.#db.prepare(matchByRowidSql);
    this.#rankWithTies = this.#db.prepare(rankWithTiesSql);
  }

  /** Adds or replaces entries and removes others, in one transaction. */
  apply(put: readonly IndexedEntry[], remove: readonly string[] = []): void {
    // Oldest first, so a batch keeps rowids in recency order by itself.
    const ordered = [...put].sort((a, b) => (isNewer(a, b) ? 1 : isNewer(b, a) ? -1 : 0));
    this.#newestCache = null;
    this.#projectCache.clear();
    this.#db.transaction(() => {
      for (const id of remove) this.#remove(id);
      for (const entry of ordered) {
        // A catch-up replays entries the index may hold already (a repack's shadow starts from an older seq).
        // Re-inserting one would give it a new rowid out of recency order, and every later match read would
        // take the slow path; so an entry already held as it is stays where it is.
        if (this.#holds(entry)) continue;
        this.#remove(entry.id);
        if (this.#latest === null || isNewer(entry, this.#latest)) this.#latest = entry;
        else this.#unordered.add(entry.id);
        const { lastInsertRowid } = this.#insertMeta.run(
          entry.id,
          entry.createdAt,
          entry.project,
          entry.type,
          entry.title,
          entry.impact,
          entry.body,
        );
        const rowid = Number(lastInsertRowid);
        this.#insertText.run(rowid, entry.title, entry.impact, entry.body);
        this.#rowids.set(entry.id, rowid);
      }
    })();
  }

  /** The newest entries: createdAt, then id, descending. */
  newest(limit: number): readonly EntrySummary[] {
    if (this.#newestCache?.limit !== limit) {
      this.#newestCache = { limit, entries: this.#newest.all(limit) as EntrySummary[] };
    }
    return this.#newestCache.entries;
  }

  /** The newest entries of one project. */
  newestOfProject(project: string, limit: number): readonly EntrySummary[] {
    const cached = this.#projectCache.get(project);
    if (cached?.limit === limit) return cached.entries;
    const entries = this.#newestOfProject.all(project, limit) as EntrySummary[];
    if (this.#projectCache.size >= CACHED_PROJECTS) this.#projectCache.clear();
    this.#projectCache.set(project, { limit, entries });
    return entries;
  }

  /** What someone asked, as matching() reads it: the FTS5 expression of src/index/query.ts. */
  parseQuery(text: string): MatchQuery {
    return matchQuery(text);
  }

  /** Entries matching the query, best FTS5 rank first, newest first among equal ranks. */
  matching(query: MatchQuery, limit: number): EntrySummary[] {
    if (query.expression === "" || limit <= 0) return [];
    type Ranked = { rowid: number; rank: number };
    if (this.#unordered.size === 0) return this.#matchByRowid.all(query.expression, limit) as EntrySummary[];
    let ranked = this.#rank.all(query.expression, limit + 1) as Ranked[];
    if (ranked.length > limit) {
      ranked =
        ranked[limit]?.rank === ranked[limit - 1]?.rank
          ? (this.#rankWithTies.all(query.expression, limit) as Ranked[])
          : ranked.slice(0, limit);
    }
    const found = ranked.map((r) => ({ rank: r.rank, entry: this.#summary.get(r.rowid) as EntrySummary }));
    found.sort(
      (a, b) => a.rank - b.rank || (isNewer(a.entry, b.entry) ? -1 : isNewer(b.entry, a.entry) ? 1 : 0),
    );
    return found.map((f) => f.entry);
  }

  /** Merges the FTS5 index into one segment: for after a build, when many batches left many segments. */
  optimize(): void {
    this.#db.exec("INSERT INTO entry_text (entry_text) VALUES ('optimize')");
  }

  /** Entries inserted out of recency order; while there are none, ties are ordered by rowid (fast). */
  unorderedEntries(): number {
    return this.#unordered.size;
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

  /** What this index holds in memory, estimated as PassageIndex.memoryBytes() estimates it. */
  memoryBytes(): number {
    return databaseBytes(this.#db) + INDEX_OVERHEAD_BYTES;
  }

  /** The index as a sealed snapshot holds it, as PassageIndex.snapshot gives it. */
  snapshot(pageRows: number): IndexSnapshot<EntryIndexState> {
    return {
      fingerprint: schemaFingerprint(this.#db),
      pages: exportTables(this.#db, pageRows),
      state: () => ({
        rowids: [...this.#rowids],
        latest: this.#latest && { createdAt: this.#latest.createdAt, id: this.#latest.id },
        unordered: [...this.#unordered],
      }),
    };
  }

  /** A fresh index to fill from a snapshot, as PassageIndex.restore makes one. */
  static restore(): EntryIndexRestore {
    const index = new EntryIndex();
    const tables = new TableRestore(index.#db);
    return {
      fingerprint: schemaFingerprint(index.#db),
      write: (page) => tables.write(page),
      finish: (raw) => {
        const parsed = entryIndexStateSchema.safeParse(raw);
        if (!parsed.success)
          throw new SnapshotMismatchError("the entry index's bookkeeping is not in its shape");
        for (const [id, rowid] of parsed.data.rowids) index.#rowids.set(id, rowid);
        index.#latest = parsed.data.latest;
        for (const id of parsed.data.unordered) index.#unordered.add(id);
        return index;
      },
      abort: () => index.close(),
    };
  }

  isOpen(): boolean {
    return this.#db.open;
  }

  close(): void {
    this.#db.close();
  }

  /** Whether the index holds this entry with every field as given. */
  #holds(entry: IndexedEntry): boolean {
    const rowid = this.#rowids.get(entry.id);
    if (rowid === undefined) return false;
    const stored = (this.#stored.all(rowid) as Omit<IndexedEntry, "id">[])[0];
    return (
      stored !== undefined &&
      stored.createdAt === entry.createdAt &&
      stored.project === entry.project &&
      stored.type === entry.type &&
      stored.title === entry.title &&
      stored.impact === entry.impact &&
      stored.body === entry.body
    );
  }

  #remove(id: string): void {
    const rowid = this.#rowids.get(id);
    if (rowid === undefined) return;
    const stored = (this.#stored.all(rowid) as Omit<IndexedEntry, "id">[])[0] as Omit<IndexedEntry, "id">;
    this.#removeText.run(rowid, stored.title, stored.impact, stored.body);
    this.#removeMeta.run(rowid);
    this.#rowids.delete(id);
    this.#unordered.delete(id);
  }
}
