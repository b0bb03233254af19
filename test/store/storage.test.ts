// The storage connection's own upkeep (src/store/storage.ts): releasing its page cache gives a local file's
// cached pages back to malloc and loses nothing the database holds.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStorage } from "../../src/store/storage.js";
import { mallocInUse } from "../support/malloc-in-use.js";

describe("storage", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("gives a local file's page cache back to malloc when released, and keeps every row", async () => {
    if (mallocInUse() === null) return;
    const dir = mkdtempSync(join(tmpdir(), "memoria-storage-"));
    dirs.push(dir);
    const storage = await openStorage({ url: `file:${join(dir, "memoria.db")}` });
    try {
      // Writes and reads of several MiB fill the connection's cache.
      await storage.client.execute("CREATE TABLE filler (n INTEGER PRIMARY KEY, bytes BLOB)");
      for (let i = 0; i < 8; i++)
        await storage.client.execute({
          sql: "INSERT INTO filler (bytes) SELECT randomblob(900) FROM generate_series(1, ?)",
          args: [1000],
        });
      const sum = async () =>
        (await storage.client.execute("SELECT count(*) AS n, sum(length(bytes)) AS bytes FROM filler"))
          .rows[0];
      const rows = await sum();
      const held = mallocInUse() ?? 0;
      await storage.releaseMemory();
      expect(held - (mallocInUse() ?? 0)).toBeGreaterThan(1024 * 1024);
      expect(await sum()).toEqual(rows);
      expect(rows?.n).toBe(8000);
    } finally {
      storage.close();
    }
  });
});
