// A graceful stop of the Node entry writes the sealed index snapshot of a loaded team whose stored one is
// behind, and the next start over the same database restores it instead of rebuilding: a real process, real
// HTTP on loopback, then the database read back through storage.

import { describe, expect, it } from "vitest";
import { openStorage } from "../../src/store/storage.js";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { finished, listening, startNode } from "../support/processes.js";

describe("a graceful stop", () => {
  it("refreshes a stale snapshot of a loaded team, and the next start restores it", async () => {
    const tmp = tempDir();
    try {
      const env = {
        PORT: "0",
        MEMORIA_DB_URL: tmp.dbUrl,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
        MEMORIA_SNAPSHOT_MIN_CHUNKS: "0",
      };
      const first = startNode(env);
      const done = finished(first);
      const base = `http://127.0.0.1:${await listening(first)}`;
      const call = (path: string, token: string, json?: unknown) =>
        fetch(`${base}${path}`, {
          method: json === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        });
      const made = (await (await call("/v1/teams", ADMIN_TOKEN, { name: "Acme" })).json()) as {
        team: { id: string };
        apiKey: string;
      };
      const key = made.apiKey;
      expect((await call("/v1/documents", key, { title: "One", content: "The okapi ledger." })).status).toBe(
        201,
      );
      expect((await call("/v1/search?q=okapi", key)).status).toBe(200);
      // Written after the build, in the background: wait for it, then make it stale with a write.
      const storage = await openStorage({ url: tmp.dbUrl });
      let written = await storage.snapshots.head(made.team.id);
      for (let i = 0; i < 200 && !written; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        written = await storage.snapshots.head(made.team.id);
      }
      expect(written).not.toBeNull();
      expect(
        (await call("/v1/documents", key, { title: "Two", content: "The quartz harbour." })).status,
      ).toBe(201);
      expect(await storage.changes.latestSeq(made.team.id)).toBeGreaterThan(written?.seq ?? 0);
      first.kill("SIGTERM");
      const exit = await done;
      expect(exit.code).toBe(0);
      expect(exit.stdout).toContain("index snapshot written");

      const head = await storage.snapshots.head(made.team.id);
      const latest = await storage.changes.latestSeq(made.team.id);
      storage.close();
      expect(head?.seq).toBe(latest);

      const second = startNode(env);
      const again = finished(second);
      const base2 = `http://127.0.0.1:${await listening(second)}`;
      const res = await fetch(`${base2}/v1/search?q=quartz`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await res.json()) as { hits: unknown[] }).hits).toHaveLength(1);
      second.kill("SIGTERM");
      const out = await again;
      expect(out.stdout).toContain("index restored from snapshot");
      expect(out.stdout).not.toContain('"message":"index built"');
    } finally {
      tmp.cleanup();
    }
  });
});
