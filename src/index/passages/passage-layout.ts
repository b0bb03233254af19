// The passage index's storage layout: its tables and the statements that rank and read them back. The only
// SQL of the passage index besides its writes (passage-index.ts).

import { bm25Weights } from "../ranking/weights.js";

// Column order is load-bearing: bm25() and snippet() address columns by position, so body must stay second
// (the snippet column) and title and path come after it.
//
// The layout (docs/decisions/0023-index-memory-layout.md): FTS5 keeps the postings and the column sizes bm25()
// needs and no text at all (contentless). A passage is removed as an external-content row is, by handing
// FTS5 the text it indexed, read back from passage_text: so FTS5 takes its tokens out of the column totals
// bm25() averages over, exactly as it did when it held the text. (contentless_delete = 1 removes by rowid
// alone, but leaves the totals as they were: scores drift after every replaced document.) Each
// passage's document id and ordinal are one small row of passage_rows, for hits and the tie-break; its chunk
// id, heading and body are held once, deflated, in passage_text, a few consecutive passages of one document a
// row, and read back only for the passages a search returns. Title, path and tags are held once per document,
// in passage_documents: they are indexed into every passage, but never stored there.
//
// Everything a search reads lives in these tables, so a search on any connection of the team's database reads
// one consistent state inside one read transaction (passage-searcher.ts; docs/decisions/0044-search-threads.md).
export const schema = [
  `CREATE VIRTUAL TABLE passages USING fts5(
    heading, body, title, path,
    content = '',
    tokenize = 'porter unicode61'
  )`,
  "CREATE TABLE passage_rows (rowid INTEGER PRIMARY KEY, document_id TEXT NOT NULL, ordinal INTEGER NOT NULL)",
  // rowid: the first passage's rowid. A document's passages hold consecutive rowids (rowids.ts), so the
  // block holding a passage is the one with the greatest rowid not above it. packed: passage-text.ts's
  // layout, whose column name changed with it, so a snapshot of the JSON blocks before it (column
  // `passages`) has another schema fingerprint and is never restored into an index that reads this one.
  "CREATE TABLE passage_text (rowid INTEGER PRIMARY KEY, packed BLOB NOT NULL)",
  // Title, path and tags as JSON (a string, arrays of strings): JSON escapes a lone surrogate, which SQLite's
  // UTF-8 text would turn into U+FFFD. A hit shows them, the snippet and term tables index them.
  "CREATE TABLE passage_documents (id TEXT PRIMARY KEY, title TEXT NOT NULL, path TEXT NOT NULL, tags TEXT NOT NULL)",
  // One row (id 1), written in every apply()'s transaction: the counts a search's ranking needs, and a
  // generation that changes with every write, so a connection's caches of counts know when to forget them.
  `CREATE TABLE passage_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    passages INTEGER NOT NULL,
    unordered INTEGER NOT NULL,
    generation INTEGER NOT NULL
  )`,
];

const weights = bm25Weights.join(", ");
// The ranking statements return rowids and scores only; snippets are cut afterwards for the returned rows
// (snippet-table.ts). Ties: when every document holds ordered rowids (rowids.ts), `ORDER BY rank, rowid` is
// the contract's order (score, then document id, then ordinal). Otherwise the statement ranks by score alone
// and fetches one row past the limit; only when equal scores straddle the cut-off does the one ordering by
// the stored columns run, because reading document_id and ordinal costs every matching row a lookup
// (measured at 90k passages for a word in 5,550 of them: 2.9 ms by score, 15.1 ms by all three).
export const rankSql = `SELECT rowid, bm25(passages, ${weights}) AS rank
  FROM passages WHERE passages MATCH ? ORDER BY rank LIMIT ?`;
export const rankByRowidSql = `SELECT rowid, bm25(passages, ${weights}) AS rank
  FROM passages WHERE passages MATCH ? ORDER BY rank, rowid LIMIT ?`;
export const rankWithTiesSql = `SELECT passages.rowid AS rowid, bm25(passages, ${weights}) AS rank
  FROM passages CROSS JOIN passage_rows r ON r.rowid = passages.rowid
  WHERE passages MATCH ? ORDER BY rank, r.document_id, r.ordinal LIMIT ?`;
// What a search shows of its hits, for a JSON array of rowids, in one statement: each rowid's position in
// the array, its row, its document and the text block holding it (the block with the greatest rowid not
// above it). One row per position, whatever is missing. Against two lookups a hit and one a document (~54
// statements for 20 hits), this is one: each statement costs the driver's crossing and its stepping, ~20 µs
// (docs/decisions/0056-hits-in-one-statement.md). A block shared by several hits comes back with each; it is
// inflated once (passage-searcher.ts).
export const hitsSql = `SELECT j.key AS position, j.value AS rowid, r.document_id, r.ordinal,
    d.title, d.path, d.tags, t.rowid AS block, t.packed
  FROM json_each(?) j
  LEFT JOIN passage_rows r ON r.rowid = j.value
  LEFT JOIN passage_documents d ON d.id = r.document_id
  LEFT JOIN passage_text t ON t.rowid = (
    SELECT b.rowid FROM passage_text b WHERE b.rowid <= j.value ORDER BY b.rowid DESC LIMIT 1)`;
export const stateSql = "SELECT passages, unordered, generation FROM passage_state WHERE id = 1";
export const writeStateSql = `INSERT INTO passage_state (id, passages, unordered, generation) VALUES (1, ?, ?, ?)
  ON CONFLICT (id) DO UPDATE SET passages = excluded.passages, unordered = excluded.unordered,
    generation = excluded.generation`;
