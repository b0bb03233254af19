// An in-memory index copied out as its own tables' rows, and copied back into a fresh one: what a sealed index
// snapshot holds (src/sealed-rows/snapshots.ts seals it, src/live/snapshot.ts decides when). Generic on purpose:
// the tables are read off sqlite_master — FTS5's shadow tables (`<name>_data`, `_idx`, `_docsize`, `_config`,
// `_content`) and any plain table — never named here, so a change to an index's schema needs no change here,
// and changes the fingerprint instead, so a snapshot of the old layout is ignored rather than misread.
//
// Why rows of the shadow tables rather than the passages themselves: inserting them back skips tokenizing,
// which is most of a build. Measured when the design was made: 90k passages restored in ~0.24× the time of
// loading them through the same synchronous engine, with identical answers. FTS5 allows its shadow tables to
// be written directly; the fresh index must not have been read through its FTS5 table before (FTS5 caches
// its structure record per connection), which restore() guarantees by filling the tables before anything
// else touches them.

import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import type { IndexDatabase, IndexStatement } from "../engine.js";
import { SCRATCH_PREFIX } from "../scratch-table.js";

/**
 * Text as its UTF-8 bytes, as a decoded page holds it: bound straight back as `CAST(? AS TEXT)`, which SQLite
 * reads as text in the database's encoding, byte for byte. Decoding every passage into a JS string only for
 * the engine to encode it again cost ~40% of a restore (measured at 20k SciFact passages: decoding 218 ms and
 * inserting 272 ms of an 878 ms restore, the passages' text most of both).
 */
export class Utf8Text {
  constructor(readonly bytes: Uint8Array) {}

  toString(): string {
    return decoder.decode(this.bytes);
  }
}

/** A value as SQLite holds it; integers as bigint, so a 64-bit rowid survives the copy exactly. */
export type SqlValue = null | bigint | number | string | Utf8Text | Uint8Array;

/** Some rows of one of an index's tables, in the table's column order. */
export interface TablePage {
  table: string;
  columns: string[];
  rows: SqlValue[][];
}

/** What an index hands a snapshot: its tables page by page, what must match to restore, and its bookkeeping. */
export interface IndexSnapshot<State> {
  /** The SQLite version and a hash of the index's CREATE statements; a restore needs an equal one. */
  fingerprint: string;
  /** Reads one page per step, so the caller can yield between pages and other work keeps running. */
  pages: Generator<TablePage>;
  /** The JS bookkeeping the index keeps beside its tables (read once the pages are done). */
  state(): State;
}

/**
 * Rows per INSERT statement on restore. Measured at 20k SciFact passages: inserting FTS5's _docsize rows
 * (tiny blobs) one statement each cost about as much as their content rows; bound 64 at a time, the calls
 * into the engine stop mattering. Within SQLite's 32,766 bound variables for any table here.
 */
const ROWS_PER_INSERT = 64;
const MAX_VARIABLES = 32_766;

// The scratch tables a search fills and empties (scratch-table.ts): never part of what an index holds.
const SCRATCH = new RegExp(`^${SCRATCH_PREFIX}`);

interface CopiedTable {
  name: string;
  /** The columns as stored, with a leading "rowid" where the table has no column aliasing it. */
  columns: string[];
  /** Rowid tables are read in rowid order a page at a time; a WITHOUT ROWID one (FTS5's small _idx and
   * _config) at once. */
  withRowid: boolean;
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The index's own tables that hold its rows: every plain table, FTS5 shadow tables included. */
function copiedTables(db: IndexDatabase): CopiedTable[] {
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all() as { name: string; sql: string }[];
  return tables
    .filter((t) => !t.name.startsWith("sqlite_") && !SCRATCH.test(t.name))
    .filter((t) => !/^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(t.sql))
    .map((t) => {
      const withRowid = !/WITHOUT\s+ROWID\s*$/i.test(t.sql.trim());
      const info = db.prepare(`PRAGMA table_info(${quoted(t.name)})`).all() as {
        name: string;
        type: string;
        pk: number;
      }[];
      const keys = info.filter((c) => c.pk > 0);
      const aliased = keys.length === 1 && keys[0]?.type.toUpperCase() === "INTEGER";
      const columns = info.map((c) => c.name);
      return { name: t.name, columns: withRowid && !aliased ? ["rowid", ...columns] : columns, withRowid };
    });
}

/**
 * What a snapshot must match to be restored into this database: SQLite's version (FTS5's record formats are
 * its own) and a hash of every CREATE statement of the index, scratch tables left out.
 */
export function schemaFingerprint(db: IndexDatabase): string {
  const version = (db.prepare("SELECT sqlite_version() AS v").all() as { v: string }[])[0]?.v ?? "";
  const statements = db
    .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name")
    .all() as { type: string; name: string; sql: string }[];
  const hash = createHash("sha256");
  for (const s of statements) if (!SCRATCH.test(s.name)) hash.update(`${s.type}\0${s.name}\0${s.sql}\0`);
  return `${version}/${hash.digest("hex").slice(0, 32)}`;
}

/** Every row of the index's tables, `pageRows` at a time (one storage-free read per step). */
export function* exportTables(db: IndexDatabase, pageRows: number): Generator<TablePage> {
  for (const table of copiedTables(db)) {
    const columns = table.columns.map(quoted).join(", ");
    if (!table.withRowid) {
      const all = db.prepareRaw(`SELECT ${columns} FROM ${quoted(table.name)}`);
      yield { table: table.name, columns: table.columns, rows: all.all() as SqlValue[][] };
      continue;
    }
    // `_rowid_` names the rowid even where a column is called rowid (entry_meta's alias is).
    const page = db.prepareRaw(
      `SELECT _rowid_, ${columns} FROM ${quoted(table.name)} WHERE _rowid_ > ? ORDER BY _rowid_ LIMIT ?`,
    );
    let after: bigint = -(2n ** 63n);
    for (;;) {
      const rows = page.all(after, pageRows) as SqlValue[][];
      if (rows.length === 0) break;
      after = rows.at(-1)?.[0] as bigint;
      yield { table: table.name, columns: table.columns, rows: rows.map((row) => row.slice(1)) };
      if (rows.length < pageRows) break;
    }
  }
}

/**
 * Fills a fresh index's tables from a snapshot's pages. Construction empties them (FTS5 writes its initial
 * config and structure rows at CREATE); each page is one transaction. Only tables this database has, with
 * exactly the columns it has, are written: a page naming anything else fails the restore.
 */
export class TableRestore {
  readonly #db: IndexDatabase;
  readonly #tables = new Map<string, CopiedTable>();
  /** Per table, one insert per pattern of text columns in a row (few: a column holds one type as a rule). */
  readonly #inserts = new Map<string, Map<string, IndexStatement>>();

  constructor(db: IndexDatabase) {
    this.#db = db;
    for (const table of copiedTables(db)) {
      this.#tables.set(table.name, table);
      db.exec(`DELETE FROM ${quoted(table.name)}`);
    }
  }

  write(page: TablePage): void {
    const table = this.#tables.get(page.table);
    if (!table || table.columns.join("\0") !== page.columns.join("\0")) {
      throw new SnapshotMismatchError(`a page of table ${page.table} does not match this index's tables`);
    }
    let inserts = this.#inserts.get(table.name);
    if (!inserts) {
      inserts = new Map();
      this.#inserts.set(table.name, inserts);
    }
    const statements = inserts;
    const width = table.columns.length;
    const names = table.columns.map(quoted).join(", ");
    const insertFor = (texts: string, rows: number): IndexStatement => {
      const name = `${texts}/${rows}`;
      let insert = statements.get(name);
      if (!insert) {
        const one = `(${[...texts].map((t) => (t === "t" ? "CAST(? AS TEXT)" : "?")).join(", ")})`;
        const values = Array.from({ length: rows }, () => one).join(", ");
        insert = this.#db.prepare(`INSERT INTO ${quoted(table.name)} (${names}) VALUES ${values}`);
        statements.set(name, insert);
      }
      return insert;
    };
    // Rows go in ROWS_PER_INSERT at a time while they share a pattern of text columns: one call into the
    // engine per row was most of inserting FTS5's small _docsize rows.
    const perInsert = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(MAX_VARIABLES / Math.max(1, width))));
    this.#db.transaction(() => {
      let batch: unknown[] = [];
      let batchTexts = "";
      let batchRows = 0;
      const flush = () => {
        if (batchRows === 0) return;
        if (batchRows === perInsert) insertFor(batchTexts, batchRows).run(...batch);
        else {
          // A short tail goes a row at a time, so at most two statements a pattern are ever prepared.
          for (let r = 0; r < batchRows; r++)
            insertFor(batchTexts, 1).run(...batch.slice(r * width, (r + 1) * width));
        }
        batch = [];
        batchRows = 0;
      };
      for (const row of page.rows) {
        if (row.length !== width) {
          throw new SnapshotMismatchError(`a row of ${page.table} has ${row.length} values`);
        }
        let texts = "";
        for (let i = 0; i < width; i++) texts += row[i] instanceof Utf8Text ? "t" : "v";
        if (texts !== batchTexts) {
          flush();
          batchTexts = texts;
        }
        for (let i = 0; i < width; i++) {
          const value = row[i];
          batch.push(value instanceof Utf8Text ? value.bytes : value);
        }
        batchRows++;
        if (batchRows === perInsert) flush();
      }
      flush();
    })();
  }
}

/** A snapshot that does not fit the index it is restored into: the caller ignores it and rebuilds. */
export class SnapshotMismatchError extends Error {
  override readonly name = "SnapshotMismatchError";
}

// Pages travel as bytes: [u16 name length][name][u16 columns]([u16 length][column])*[u32 rows] then each
// value as a tag and its bytes. Little-endian throughout. Binary rather than JSON because most of an index is
// blobs (FTS5's segments), which JSON would have to base64.
const TAG_NULL = 0;
const TAG_INTEGER = 1;
const TAG_REAL = 2;
const TAG_TEXT = 3;
const TAG_BLOB = 4;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * `bytes` when they are UTF-8, checked without making a string (SQLite would take invalid UTF-8 as text as
 * it is). Defence in depth: the bytes were encoded from SQLite's own text, and a snapshot altered since does
 * not open.
 */
function utf8(bytes: Uint8Array): Uint8Array {
  if (!isUtf8(bytes)) throw new SnapshotMismatchError("a snapshot page holds text that is not UTF-8");
  return bytes;
}

/** A growing byte buffer for encodePage. */
class Bytes {
  #buffer = new Uint8Array(64 * 1024);
  #view = new DataView(this.#buffer.buffer);
  length = 0;

  #room(n: number): void {
    if (this.length + n <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#buffer.subarray(0, this.length));
    this.#buffer = grown;
    this.#view = new DataView(grown.buffer);
  }

  u8(n: number): void {
    this.#room(1);
    this.#buffer[this.length++] = n;
  }

  u16(n: number): void {
    this.#room(2);
    this.#view.setUint16(this.length, n, true);
    this.length += 2;
  }

  u32(n: number): void {
    this.#room(4);
    this.#view.setUint32(this.length, n, true);
    this.length += 4;
  }

  i64(n: bigint): void {
    this.#room(8);
    this.#view.setBigInt64(this.length, n, true);
    this.length += 8;
  }

  f64(n: number): void {
    this.#room(8);
    this.#view.setFloat64(this.length, n, true);
    this.length += 8;
  }

  /** A length-prefixed (u32) UTF-8 string. */
  text(s: string, prefix: "u16" | "u32" = "u32"): void {
    // encodeInto writes at most 3 bytes per UTF-16 unit.
    this.#room(4 + s.length * 3);
    const at = this.length + (prefix === "u16" ? 2 : 4);
    const { written } = encoder.encodeInto(s, this.#buffer.subarray(at));
    if (prefix === "u16") this.#view.setUint16(this.length, written, true);
    else this.#view.setUint32(this.length, written, true);
    this.length = at + written;
  }

  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.#room(b.length);
    this.#buffer.set(b, this.length);
    this.length += b.length;
  }

  done(): Uint8Array {
    return this.#buffer.subarray(0, this.length);
  }
}

export function encodePage(page: TablePage): Uint8Array {
  const out = new Bytes();
  out.text(page.table, "u16");
  out.u16(page.columns.length);
  for (const column of page.columns) out.text(column, "u16");
  out.u32(page.rows.length);
  for (const row of page.rows) {
    for (const value of row) {
      if (value === null) out.u8(TAG_NULL);
      else if (typeof value === "bigint") {
        out.u8(TAG_INTEGER);
        out.i64(value);
      } else if (typeof value === "number") {
        out.u8(TAG_REAL);
        out.f64(value);
      } else if (typeof value === "string") {
        out.u8(TAG_TEXT);
        out.text(value);
      } else if (value instanceof Utf8Text) {
        out.u8(TAG_TEXT);
        out.bytes(value.bytes);
      } else {
        out.u8(TAG_BLOB);
        out.bytes(value);
      }
    }
  }
  return out.done();
}

/**
 * The inverse of encodePage, with text as Utf8Text; text and blobs are views into `bytes`, not copies. Throws
 * on anything malformed, and on text that is not UTF-8.
 */
export function decodePage(bytes: Uint8Array): TablePage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new SnapshotMismatchError("a snapshot page ends early");
  };
  const u16 = () => {
    need(2);
    const n = view.getUint16(at, true);
    at += 2;
    return n;
  };
  const u32 = () => {
    need(4);
    const n = view.getUint32(at, true);
    at += 4;
    return n;
  };
  const slice = (n: number) => {
    need(n);
    const part = bytes.subarray(at, at + n);
    at += n;
    return part;
  };
  const table = decoder.decode(slice(u16()));
  const columns = Array.from({ length: u16() }, () => decoder.decode(slice(u16())));
  const count = u32();
  const rows: SqlValue[][] = [];
  for (let r = 0; r < count; r++) {
    const row: SqlValue[] = [];
    for (let c = 0; c < columns.length; c++) {
      need(1);
      const tag = bytes[at++];
      if (tag === TAG_NULL) row.push(null);
      else if (tag === TAG_INTEGER) {
        need(8);
        row.push(view.getBigInt64(at, true));
        at += 8;
      } else if (tag === TAG_REAL) {
        need(8);
        row.push(view.getFloat64(at, true));
        at += 8;
      } else if (tag === TAG_TEXT) row.push(new Utf8Text(utf8(slice(u32()))));
      else if (tag === TAG_BLOB) row.push(slice(u32()));
      else throw new SnapshotMismatchError("a snapshot page holds an unknown value tag");
    }
    rows.push(row);
  }
  if (at !== bytes.length) throw new SnapshotMismatchError("a snapshot page has bytes past its rows");
  return { table, columns, rows };
}
