// The one rule for the passage databases (src/index/passages/passage-database.ts): a team's index, which FTS5 keeps in
// plaintext, never reaches a file, on the writer's connection or on a search thread's, during large writes
// or searches; and the watcher that proves it can see a journal file where one is written.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { heldOutSentences, indexedDocuments, readDebianManuals } from "../../../bench/debian-docs.js";
import { IndexDatabase } from "../../../src/index/engine.js";
import {
  isPassageDatabaseName,
  openPassageConnection,
  passageDatabaseName,
  UnsafeConnectionError,
} from "../../../src/index/passages/passage-database.js";
import { type IndexedDocument, PassageIndex } from "../../../src/index/passages/passage-index.js";
import { matchQuery } from "../../../src/index/query.js";
import { chunkDocument } from "../../../src/ingest/chunk.js";
import { SearchThreads } from "../../../src/runtime/search-threads.js";
import { mallocInUse } from "../../support/malloc-in-use.js";
import { databaseFiles, watchOpenFiles } from "../../support/open-files.js";
import { needs, outside } from "../../support/outside.js";
import { backingFile, temporaryStorage } from "../../support/passage-probe.js";

describe("passage databases", () => {
  it("are named by 128 random bits, and a connection opens nothing else", () => {
    const a = passageDatabaseName();
    const b = passageDatabaseName();
    expect(a).not.toBe(b);
    expect(isPassageDatabaseName(a)).toBe(true);
    expect(() => openPassageConnection("file:/etc/passwd", { busyTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => openPassageConnection(":memory:", { busyTimeoutMs: 0 })).toThrow(RangeError);
  });

  it("keeps every connection's journal and temporary store in memory, and the database itself", () => {
    const index = new PassageIndex();
    try {
      expect(backingFile(index)).toBe("");
      expect(temporaryStorage(index)).toEqual({ tempStore: "memory", journal: "memory" });
    } finally {
      index.close();
    }
    expect(UnsafeConnectionError.name).toBe("UnsafeConnectionError");
  });

  needs(outside.debianManuals).it(
    "a writer's page cache goes back to malloc when released, and the index answers as before",
    () => {
      if (mallocInUse() === null) return;
      const corpus = readDebianManuals(6000);
      const index = new PassageIndex();
      try {
        // One transaction of megabytes: the writer keeps every page it changed (cache_spill off).
        index.apply(indexedDocuments(corpus));
        const questions = heldOutSentences(corpus, 20).map((q) => matchQuery(q));
        const before = questions.map((q) => index.find(q, 20));
        const held = mallocInUse() ?? 0;
        index.releaseMemory();
        const released = held - (mallocInUse() ?? 0);
        expect(released).toBeGreaterThan(2 * 1024 * 1024);
        // A second release right after finds (next to) nothing cached: the first one's drop was the cache's.
        const again = mallocInUse() ?? 0;
        index.releaseMemory();
        expect(again - (mallocInUse() ?? 0)).toBeLessThan(released / 8);
        // The pages were copies of memdb's: read again, they give the same answers.
        expect(questions.map((q) => index.find(q, 20))).toEqual(before);
        expect(before.some((hits) => hits.length > 0)).toBe(true);
      } finally {
        index.close();
      }
    },
  );

  describe("never on disk", () => {
    const threads = new SearchThreads({ threads: 2, busyTimeoutMs: 5000, minPassages: 0, inlineMaxTerms: 0 });
    afterAll(() => threads.close());

    it("the watcher sees a rollback journal where a connection writes one (the control)", async () => {
      const dir = mkdtempSync(join(tmpdir(), "memoria-journal-"));
      const db = new IndexDatabase(join(dir, "control.db"));
      try {
        db.exec("PRAGMA journal_mode = DELETE");
        db.exec("CREATE TABLE t (x BLOB)");
        db.exec(
          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO t SELECT randomblob(4096) FROM n",
        );
        const watcher = await watchOpenFiles();
        // Rewriting every page journals each one first: the journal is open for the whole transaction.
        for (let i = 0; i < 3; i++) db.exec("UPDATE t SET x = randomblob(4096)");
        const { seen } = await watcher.stop();
        expect(databaseFiles(seen)).toContain(join(dir, "control.db-journal"));
      } finally {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    needs(outside.debianManuals).it("a large write and searches on threads open no file", async () => {
      const corpus = readDebianManuals(2000);
      const documents = corpus.indexed.map(
        (doc, d): IndexedDocument => ({
          id: `doc${d}`,
          title: doc.title,
          path: [],
          passages: chunkDocument(doc).map((p) => ({ chunkId: `doc${d}#${p.ordinal}`, ...p })),
        }),
      );
      const questions = heldOutSentences(corpus, 20);
      const index = new PassageIndex();
      const watcher = await watchOpenFiles();
      try {
        // Megabytes in one transaction (the writer never spills its cache early: cache_spill off), then more.
        index.apply(documents);
        const searches = questions.map((q) => threads.find(index, matchQuery(q), 20));
        // A write while the threads search: the commit waits for them, in memory too.
        index.apply(
          [],
          documents.slice(0, 50).map((d) => d.id),
        );
        const answers = await Promise.all(searches);
        expect(answers.some((hits) => (hits?.length ?? 0) > 0)).toBe(true);
        expect(index.memoryBytes()).toBeGreaterThan(1024 * 1024);
      } finally {
        const { seen, polls } = await watcher.stop();
        index.close();
        expect(polls).toBeGreaterThan(10);
        expect(databaseFiles(seen)).toEqual([]);
      }
    });
  });
});
