// The memory budget for the in-memory indexes (MEMORIA_INDEX_MEMORY_MB) through whole apps over real libSQL:
// teams touched once stay within it, the least recently used team is the one closed, a closed team's next
// search rebuilds from its sealed rows and answers the same, a search in flight during an eviction still
// answers, and /v1/stats and /metrics show the estimate.

import { describe, expect, it } from "vitest";
import type { Logger } from "../../src/logger.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { expectOk } from "../routes/contract.js";
import {
  ADMIN_TOKEN,
  addDocument,
  buildTestApp,
  makeTeam,
  search,
  type TestApp,
  type TestAppOptions,
} from "../support/app.js";

interface Team {
  teamId: string;
  apiKey: string;
}

async function teamWithDocument(app: TestApp, name: string): Promise<Team> {
  const team = await makeTeam(app, name);
  await addDocument(app, team.apiKey, {
    title: `Ledger ${name}`,
    content: `# Wombat\n\nmarsupial notes of ${name}, burrows and grass`,
  });
  return team;
}

async function indexBytes(app: TestApp, apiKey: string): Promise<number | null> {
  const stats = await expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer);
  return stats.index.memoryBytes;
}

/** What one team with one small document costs in the estimate, measured on an app without a budget. */
async function oneTeamBytes(): Promise<number> {
  const app = await buildTestApp();
  try {
    const team = await teamWithDocument(app, "probe");
    await search(app, team.apiKey, "marsupial");
    const bytes = await indexBytes(app, team.apiKey);
    if (bytes === null) throw new Error("a ready team has no memory estimate");
    return bytes;
  } finally {
    app.close();
  }
}

async function withApp<T>(options: TestAppOptions, body: (app: TestApp) => Promise<T>): Promise<T> {
  const app = await buildTestApp(options);
  try {
    return await body(app);
  } finally {
    app.close();
  }
}

function recordingLogger(lines: { message: string; fields: Record<string, unknown> }[]): Logger {
  const record = (message: string, fields: Record<string, unknown> = {}) => lines.push({ message, fields });
  return { debug: record, info: record, warn: record, error: record };
}

describe("the index memory budget", () => {
  it("keeps 200 teams touched once within the budget, with a bounded number loaded", async () => {
    const perTeam = await oneTeamBytes();
    const budget = Math.floor(perTeam * 5.5);
    await withApp({ config: { indexMemoryBytes: budget } }, async (app) => {
      const { indexes } = app.memoria;
      for (let i = 0; i < 200; i++) {
        const team = await teamWithDocument(app, `team-${i}`);
        const body = await search(app, team.apiKey, "marsupial");
        expect(body.hits.length).toBe(1);
        await indexes.evictionsSettled();
        expect(indexes.memoryBytes()).toBeLessThanOrEqual(budget);
        expect(indexes.loadedTeams().length).toBeLessThanOrEqual(5);
      }
      expect(indexes.loadedTeams().length).toBeGreaterThanOrEqual(1);
    });
  }, 120_000);

  it("closes the least recently used team first, logging counts only", async () => {
    const perTeam = await oneTeamBytes();
    const lines: { message: string; fields: Record<string, unknown> }[] = [];
    await withApp(
      { config: { indexMemoryBytes: Math.floor(perTeam * 3.5) }, logger: recordingLogger(lines) },
      async (app) => {
        const { indexes } = app.memoria;
        const [a, b, c, d] = [
          await teamWithDocument(app, "A"),
          await teamWithDocument(app, "B"),
          await teamWithDocument(app, "C"),
          await teamWithDocument(app, "D"),
        ] as [Team, Team, Team, Team];
        for (const team of [a, b, c, a]) await search(app, team.apiKey, "marsupial");
        await indexes.evictionsSettled();
        expect(indexes.loadedTeams().sort()).toEqual([a.teamId, b.teamId, c.teamId].sort());

        await search(app, d.apiKey, "marsupial");
        await indexes.evictionsSettled();
        expect(indexes.loadedTeams().sort()).toEqual([a.teamId, c.teamId, d.teamId].sort());
        expect(indexes.status(b.teamId).state).toBe("cold");
        expect(await indexBytes(app, b.apiKey)).toBeNull();

        const evictions = lines.filter((l) => l.message === "index evicted");
        expect(evictions.map((l) => l.fields.teamId)).toEqual([b.teamId]);
        const text = JSON.stringify(evictions);
        expect(text).not.toContain("marsupial");
        expect(text).not.toContain("Ledger");
      },
    );
  });

  it("answers an evicted team's next search the same, rebuilt from its sealed rows", async () => {
    const perTeam = await oneTeamBytes();
    await withApp({ config: { indexMemoryBytes: Math.floor(perTeam * 1.5) } }, async (app) => {
      const { indexes } = app.memoria;
      const a = await teamWithDocument(app, "A");
      const b = await teamWithDocument(app, "B");
      const before = await search(app, a.apiKey, "burrows");
      await search(app, b.apiKey, "marsupial");
      await indexes.evictionsSettled();
      expect(indexes.status(a.teamId).state).toBe("cold");

      const after = await search(app, a.apiKey, "burrows");
      expect(after.hits).toEqual(before.hits);
      expect(after.corpus).toEqual(before.corpus);
      await indexes.evictionsSettled();
      expect(indexes.status(a.teamId).state).toBe("ready");
      expect(indexes.status(b.teamId).state).toBe("cold");
    });
  });

  it("lets a search in flight during an eviction answer", async () => {
    const perTeam = await oneTeamBytes();
    await withApp({ config: { indexMemoryBytes: Math.floor(perTeam * 1.5) } }, async (app) => {
      const { indexes } = app.memoria;
      const a = await teamWithDocument(app, "A");
      const b = await teamWithDocument(app, "B");
      await search(app, a.apiKey, "marsupial");
      // B's build queues A's eviction; searches of A started before and after it all answer.
      const searches = [
        search(app, a.apiKey, "burrows"),
        search(app, b.apiKey, "marsupial"),
        search(app, a.apiKey, "grass"),
        search(app, a.apiKey, "wombat"),
      ];
      const answers = await Promise.all(searches);
      for (const answer of answers) expect(answer.hits.length).toBe(1);
      await indexes.evictionsSettled();
      // A search whose index was evicted while it waited for its turn asks the index made ready again, so
      // which team stays loaded depends on the order of turns; only one fits.
      const states = [indexes.status(a.teamId).state, indexes.status(b.teamId).state];
      expect(states.filter((state) => state === "ready")).toHaveLength(1);
      expect(indexes.memoryBytes()).toBeLessThanOrEqual(Math.floor(perTeam * 1.5));
      expect((await search(app, a.apiKey, "burrows")).hits.length).toBe(1);
    });
  });

  it("shows the team's estimate in /v1/stats and the instance's in /metrics", async () => {
    const perTeam = await oneTeamBytes();
    await withApp({ config: { indexMemoryBytes: Math.floor(perTeam * 3.5) } }, async (app) => {
      const a = await teamWithDocument(app, "A");
      const b = await teamWithDocument(app, "B");
      expect(await indexBytes(app, a.apiKey)).toBeNull();
      await search(app, a.apiKey, "marsupial");
      await search(app, b.apiKey, "marsupial");
      const bytesA = await indexBytes(app, a.apiKey);
      const bytesB = await indexBytes(app, b.apiKey);
      expect(bytesA).toBeGreaterThan(0);
      expect(bytesB).toBeGreaterThan(0);

      const res = await app.request("/metrics", { token: ADMIN_TOKEN });
      const text = await res.text();
      const sample = (name: string) =>
        Number(
          text
            .split("\n")
            .find((l) => l.startsWith(`${name} `))
            ?.slice(name.length + 1),
        );
      expect(sample("memoria_teams_loaded")).toBe(2);
      expect(sample("memoria_index_memory_bytes")).toBe((bytesA ?? 0) + (bytesB ?? 0));
      expect(sample("memoria_index_memory_budget_bytes")).toBe(Math.floor(perTeam * 3.5));
    });
  });
});
