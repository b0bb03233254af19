// What tests ask of a passage index's storage, read through its one narrow hook, the database's name: a probe
// connection opened as every connection is (openPassageConnection) reads what SQLite itself says, rather than
// trusting the index's code. The probe closes before returning, so it never keeps a closed index's database
// alive.

import type { IndexDatabase } from "../../src/index/engine.js";
import { openPassageConnection } from "../../src/index/passages/passage-database.js";
import type { PassageIndex } from "../../src/index/passages/passage-index.js";

function probe<T>(index: PassageIndex, read: (db: IndexDatabase) => T): T {
  const db = openPassageConnection(index.databaseName, { busyTimeoutMs: 1000 });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Rows of passage_rows and of passage_text: a test counts them to see a removed document's text gone. */
export function storedRows(index: PassageIndex): { passages: number; textBlocks: number } {
  return probe(index, (db) => {
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { passages: count("passage_rows"), textBlocks: count("passage_text") };
  });
}

/** The file SQLite has behind the index's database: "" when it is in memory. */
export function backingFile(index: PassageIndex): string {
  return probe(index, (db) => {
    const rows = db.prepare("PRAGMA database_list").all() as { name: string; file: string }[];
    return rows.find((r) => r.name === "main")?.file ?? "";
  });
}

/** Where a connection to the index keeps temporary tables and sort space, and its rollback journal. */
export function temporaryStorage(index: PassageIndex): { tempStore: string; journal: string } {
  return probe(index, (db) => {
    const mode = (db.prepare("PRAGMA temp_store").get() as { temp_store: number }).temp_store;
    const journal = (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
    return { tempStore: mode === 2 ? "memory" : mode === 1 ? "file" : "default", journal };
  });
}

/**
 * FTS5's record of the index's totals (row count and each column's token count, which bm25() averages), as
 * hex, after its own integrity check has passed: two indexes of the same passages hold the same one, however
 * each got there.
 */
export function checkedTotals(index: PassageIndex): string {
  return probe(index, (db) => {
    db.exec("INSERT INTO passages (passages) VALUES ('integrity-check')");
    return (
      db.prepare("SELECT hex(block) AS totals FROM passages_data WHERE id = 1").get() as { totals: string }
    ).totals;
  });
}
