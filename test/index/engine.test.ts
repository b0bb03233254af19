import { describe, expect, it } from "vitest";
import { IndexDatabase, isBusy, isFull } from "../../src/index/engine.js";
import { passageDatabaseName } from "../../src/index/passages/passage-database.js";

function compileOptions(db: IndexDatabase): string[] {
  return (db.prepare("PRAGMA compile_options").all() as { compile_options: string }[]).map(
    (r) => r.compile_options,
  );
}

/** What `act` threw (it must throw). */
function thrownBy(act: () => void): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error("it did not throw");
}

function values(db: IndexDatabase): number[] {
  return (db.prepare("SELECT x FROM t ORDER BY x").all() as { x: number }[]).map((r) => r.x);
}

describe("the indexes' SQL engine", () => {
  it("is built with its memory statistics off, URI filenames on and FTS5, the reasons it was chosen", () => {
    const db = new IndexDatabase(":memory:");
    try {
      const options = compileOptions(db);
      expect(options).toContain("DEFAULT_MEMSTATUS=0");
      expect(options).toContain("USE_URI");
      expect(options).toContain("ENABLE_FTS5");
      expect(options).toContain("THREADSAFE=1");
    } finally {
      db.close();
    }
  });

  it("keeps every connection's temporary tables and sort space in memory, where this build defaults to a file", () => {
    const db = new IndexDatabase(":memory:");
    try {
      expect(compileOptions(db)).toContain("TEMP_STORE=1");
      expect((db.prepare("PRAGMA temp_store").get() as { temp_store: number }).temp_store).toBe(2);
    } finally {
      db.close();
    }
  });

  it("lets two connections of the process read one named in-memory database", () => {
    const name = passageDatabaseName();
    const writer = new IndexDatabase(name);
    const reader = new IndexDatabase(name);
    try {
      writer.exec("CREATE TABLE t (x INTEGER)");
      writer.exec("INSERT INTO t VALUES (7)");
      expect(values(reader)).toEqual([7]);
      expect(reader.prepare("PRAGMA database_list").all()).toEqual([expect.objectContaining({ file: "" })]);
    } finally {
      reader.close();
      writer.close();
    }
  });

  describe("transaction", () => {
    it("commits what the function wrote when it returns, and hands back its value", () => {
      const db = new IndexDatabase(":memory:");
      db.exec("CREATE TABLE t (x INTEGER)");
      const add = db.transaction((a: number, b: number) => {
        db.prepare("INSERT INTO t VALUES (?), (?)").run(a, b);
        return a + b;
      });
      expect(add(1, 2)).toBe(3);
      expect(db.inTransaction).toBe(false);
      expect(values(db)).toEqual([1, 2]);
      db.close();
    });

    it("rolls everything back when the function throws, and rethrows", () => {
      const db = new IndexDatabase(":memory:");
      db.exec("CREATE TABLE t (x INTEGER)");
      const failing = db.transaction(() => {
        db.exec("INSERT INTO t VALUES (1)");
        throw new Error("stop");
      });
      expect(failing).toThrow("stop");
      expect(db.inTransaction).toBe(false);
      expect(values(db)).toEqual([]);
      db.close();
    });

    it("undoes only an inner transaction's writes when it throws inside an outer one", () => {
      const db = new IndexDatabase(":memory:");
      db.exec("CREATE TABLE t (x INTEGER)");
      db.transaction(() => {
        db.exec("INSERT INTO t VALUES (1)");
        expect(() =>
          db.transaction(() => {
            db.exec("INSERT INTO t VALUES (2)");
            throw new Error("inner");
          })(),
        ).toThrow("inner");
        db.transaction(() => db.exec("INSERT INTO t VALUES (3)"))();
        expect(db.inTransaction).toBe(true);
      })();
      expect(values(db)).toEqual([1, 3]);
      db.close();
    });
  });

  it("tells a lock held past the busy timeout, and only that, as busy", () => {
    const name = passageDatabaseName();
    const writer = new IndexDatabase(name);
    const other = new IndexDatabase(name);
    try {
      writer.exec("CREATE TABLE t (x INTEGER)");
      other.exec("PRAGMA busy_timeout = 0");
      writer.exec("BEGIN IMMEDIATE");
      writer.exec("INSERT INTO t VALUES (1)");
      const busy = thrownBy(() => other.exec("INSERT INTO t VALUES (2)"));
      expect(busy).toBeInstanceOf(Error);
      expect(isBusy(busy)).toBe(true);
      expect(isFull(busy)).toBe(false);
      writer.exec("COMMIT");
      expect(isBusy(thrownBy(() => other.exec("INSERT INTO")))).toBe(false);
      expect(isBusy(new Error("SQLITE_BUSY"))).toBe(false);
    } finally {
      other.close();
      writer.close();
    }
  });

  it("tells a database at its size bound as full", () => {
    const db = new IndexDatabase(passageDatabaseName());
    try {
      db.exec("CREATE TABLE t (x BLOB)");
      // memdb's bound for one database, lowered for the test (SQLite's max_page_count).
      db.exec("PRAGMA max_page_count = 8");
      const full = thrownBy(() => {
        for (let i = 0; i < 100; i++) db.exec("INSERT INTO t VALUES (randomblob(4000))");
      });
      expect(isFull(full)).toBe(true);
      expect(isBusy(full)).toBe(false);
    } finally {
      db.close();
    }
  });
});
