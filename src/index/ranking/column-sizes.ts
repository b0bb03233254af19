// The token counts FTS5 keeps for bm25(): each row's length and the table's average, read from FTS5's own
// records, so a score computed outside FTS5 (feedback's rescoring, feedback.ts) normalises by exactly the
// lengths bm25() does. No text is read, only counts.
//
// The records, as fts5_storage.c writes them: `<table>_docsize` holds one row per row of the table, its `sz`
// the token count of each column as varints; `<table>_data` row 1 (the averages record) holds the number of
// rows, then each column's total tokens, as varints. Both are FTS5's on-disk format, stable across releases
// because databases written by old releases must open in new ones; test/index/ranking/column-sizes.test.ts checks
// the numbers against bm25() itself.

import type { IndexDatabase, IndexStatement } from "../engine.js";

/** FTS5's averages record lives at this rowid of `<table>_data` (FTS5_AVERAGES_ROWID in fts5Int.h). */
const AVERAGES_ROWID = 1;

/** The varints of an FTS5 record (SQLite's format: 7 bits a byte, high bit set on all but the last; the ninth byte whole). */
export function readVarints(bytes: Uint8Array): number[] {
  const values: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let value = 0;
    let n = 0;
    for (;;) {
      const byte = bytes[i++] ?? 0;
      n++;
      if (n === 9) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0 || i >= bytes.length) break;
    }
    values.push(value);
  }
  return values;
}

export class ColumnSizes {
  readonly #lengths: IndexStatement;
  readonly #averages: IndexStatement;

  /** `table` is the FTS5 table's name, which the caller owns (never user input). */
  constructor(db: IndexDatabase, table: string) {
    this.#lengths = db.prepare(
      `SELECT id, sz FROM ${table}_docsize WHERE id IN (SELECT value FROM json_each(?))`,
    );
    this.#averages = db.prepare(`SELECT block FROM ${table}_data WHERE id = ${AVERAGES_ROWID}`);
  }

  /** Each row's length in tokens, all columns together (what bm25() calls D). Rows not in the table are absent. */
  lengths(rowids: readonly number[]): Map<number, number> {
    const lengths = new Map<number, number>();
    for (const row of this.#lengths.all(JSON.stringify(rowids)) as {
      id: number;
      sz: Uint8Array;
    }[]) {
      lengths.set(
        row.id,
        readVarints(row.sz).reduce((sum, n) => sum + n, 0),
      );
    }
    return lengths;
  }

  /** The table's rows and their average length in tokens (bm25()'s N and avgdl). */
  averages(): { rows: number; averageLength: number } {
    const row = this.#averages.get() as { block: Uint8Array } | undefined;
    const [rows = 0, ...totals] = row ? readVarints(row.block) : [];
    const tokens = totals.reduce((sum, n) => sum + n, 0);
    return { rows, averageLength: rows > 0 ? tokens / rows : 0 };
  }
}
