// The stop both entries make (start.ts stopOnce): the entry's housekeeping is quieted before anything drains
// or closes, and the stop runs once whatever signals follow. Over a real start on a temporary database.

import { describe, expect, it } from "vitest";
import { startMemoria, stopOnce } from "../../src/runtime/start.js";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";

describe("a stop", () => {
  it("quiets the housekeeping before the drain, closes, exits 0, and runs once for two signals", async () => {
    const tmp = tempDir();
    // startMemoria sets the process's umask for what it creates; this worker's other files keep their own.
    const umask = process.umask(0o022);
    process.umask(umask);
    try {
      const started = await startMemoria({
        MEMORIA_DB_URL: tmp.dbUrl,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
        MEMORIA_LOG_LEVEL: "error",
        MEMORIA_SEARCH_THREADS: "1",
      });
      const order: string[] = [];
      let exited: (code: number) => void = () => {};
      const exit = new Promise<number>((resolve) => {
        exited = resolve;
      });
      const stop = stopOnce(
        started,
        async () => {
          order.push("drain");
        },
        (code) => {
          order.push(`exit ${code}`);
          exited(code);
        },
        () => order.push("quiet"),
      );
      stop("SIGTERM");
      stop("SIGINT");
      expect(await exit).toBe(0);
      expect(order).toEqual(["quiet", "drain", "exit 0"]);
      // Closed: storage refuses what it would have answered before.
      await expect(started.storage.teams.get("t_none")).rejects.toThrow();
    } finally {
      process.umask(umask);
      tmp.cleanup();
    }
  });
});
