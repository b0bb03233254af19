// Sealed index snapshots on a real sqld, the server Turso runs, which refuses a value of 5,000,000 bytes. A
// team above the snapshot threshold, filled with node_modules' markdown and the manuals in its type
// declarations (real text nobody here wrote, several MiB), has its snapshot written in parts storage takes,
// and a restart restores it and answers exactly as a rebuild from rows does. Before parts were cut at their
// size, a part was as large as the record that crossed 4 MiB let it be, sqld refused it, and every wake
// rebuilt from rows.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { createLogger } from "../../src/logger.js";
import { SNAPSHOT_PART_BYTES } from "../../src/sealed-rows/snapshots.js";
import { STORED_VALUE_MAX_BYTES } from "../../src/store/value-limit.js";
import { buildTestApp, makeTeam, newMasterKey, search, type TestApp, tempDir } from "../support/app.js";
import { needs, outside } from "../support/outside.js";
import { type Sqld, startSqld } from "../support/sqld.js";

/**
 * Real text nobody here wrote, several MiB of it: every markdown file under node_modules of 1 KiB to 1 MiB,
 * and the type declarations of Node's API and of TypeScript's library, whose comments are their manuals.
 */
function nodeModulesText(): { title: string; content: string; format: "markdown" | "text" }[] {
  const modules = join(import.meta.dirname, "../../node_modules");
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && /\.md$/i.test(entry.name)) {
        const size = statSync(path).size;
        if (size >= 1024 && size <= 1024 * 1024) files.push(path);
      }
    }
  };
  walk(modules);
  for (const dir of ["@types/node", "typescript/lib"]) {
    for (const name of readdirSync(join(modules, dir))) {
      if (name.endsWith(".d.ts")) files.push(join(modules, dir, name));
    }
  }
  return files.sort().map((path) => ({
    title: path.slice(path.indexOf("node_modules")),
    content: readFileSync(path, "utf8"),
    format: path.endsWith(".md") ? ("markdown" as const) : ("text" as const),
  }));
}

const QUESTIONS = [
  "install",
  "license",
  "configuration options",
  "breaking change",
  "typescript types",
  "zod",
];

async function answers(app: TestApp, apiKey: string): Promise<string> {
  const out: unknown[] = [];
  for (const q of QUESTIONS) {
    const res = await app.request(`/v1/search?${new URLSearchParams({ q, limit: "20" })}`, { token: apiKey });
    const { tookMs: _, ...body } = (await res.json()) as Record<string, unknown>;
    out.push(res.status, body);
  }
  return JSON.stringify(out);
}

describe("index snapshots on sqld", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  needs(outside.sqld).it(
    "writes a team's snapshot in parts sqld takes, and a restart restores it and answers as a rebuild does",
    async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const sqld: Sqld = await startSqld(tmp.dir);
      cleanups.push(() => sqld.stop());
      const masterKey = newMasterKey();
      const documents = nodeModulesText();
      const textBytes = documents.reduce((n, d) => n + Buffer.byteLength(d.content), 0);
      expect(textBytes).toBeGreaterThan(2 * SNAPSHOT_PART_BYTES);

      // The writing instance writes no snapshot of its own (its threshold is out of reach): one still being
      // written when it closed could land after the next instance's and point the head at parts it deleted.
      const first = await buildTestApp({
        dbUrl: sqld.url,
        masterKey,
        config: { snapshotMinChunks: Number.MAX_SAFE_INTEGER },
      });
      cleanups.push(() => first.close());
      const { apiKey, teamId } = await makeTeam(first);
      for (let i = 0; i < documents.length; i += 100) {
        const res = await first.request("/v1/documents/batch", {
          method: "POST",
          token: apiKey,
          json: { documents: documents.slice(i, i + 100) },
        });
        expect(res.status).toBe(200);
      }
      // Half the passages the team holds, so it is well above its threshold; the default (10,000) would need
      // more real text than node_modules ships.
      const { chunks } = (await search(first, apiKey, "install")).corpus;
      const snapshotMinChunks = Math.floor(chunks / 2);
      expect(snapshotMinChunks).toBeGreaterThan(1000);
      await first.memoria.indexes.snapshotsSettled();
      expect(first.memoria.indexes.snapshotCounts().written).toBe(0);
      first.close();

      // A start over the stored rows builds the index and writes its snapshot, as a wake without one does.
      const building = await buildTestApp({ dbUrl: sqld.url, masterKey, config: { snapshotMinChunks } });
      cleanups.push(() => building.close());
      const rebuilt = await answers(building, apiKey);
      expect(building.memoria.indexes.status(teamId).source).toBe("rows");
      await building.memoria.indexes.snapshotsSettled();
      expect(building.memoria.indexes.snapshotCounts()).toMatchObject({ written: 1 });
      const head = await building.storage.snapshots.head(teamId);
      expect(head?.parts).toBeGreaterThan(1);
      const sizes = await building.storage.client.execute({
        sql: "SELECT length(sealed) AS n FROM index_snapshot_parts WHERE team_id = ? ORDER BY part",
        args: [teamId],
      });
      const stored = sizes.rows.map((row) => Number(row.n));
      expect(stored).toHaveLength(head?.parts ?? 0);
      expect(Math.max(...stored)).toBeLessThanOrEqual(STORED_VALUE_MAX_BYTES);
      // Every part but the last is full: the stream is cut at the part size, whatever its records.
      expect(stored.slice(0, -1).every((n) => n === stored[0])).toBe(true);
      building.close();

      const lines: Record<string, unknown>[] = [];
      const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
      const woken = await buildTestApp({ dbUrl: sqld.url, masterKey, config: { snapshotMinChunks }, logger });
      cleanups.push(() => woken.close());
      const restored = await answers(woken, apiKey);
      // On failure, the log's warning says why the snapshot was not restored.
      expect(woken.memoria.indexes.snapshotCounts(), JSON.stringify(lines)).toMatchObject({
        restored: 1,
        ignored: 0,
      });
      const stats = (await (await woken.request("/v1/stats", { token: apiKey })).json()) as {
        index: { source: string | null; loadMs: number | null };
      };
      expect(stats.index).toMatchObject({ source: "snapshot", loadMs: expect.any(Number) });
      expect(restored).toContain("<mark>");
      expect(restored).toBe(rebuilt);
    },
    240_000,
  );
});
