// Sealed index snapshots through the whole app over a temp-file database: a restart restores the snapshot
// instead of rebuilding, and answers exactly as a rebuild from rows does (after writes made since the snapshot
// too); a snapshot tampered with, swapped between teams, rebound to another seq or of another format is
// ignored and the team rebuilt with the same answers; nothing of the text is readable in the file; reindex
// refreshes the snapshot and deleting the team deletes it.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, type Logger } from "../../src/logger.js";
import {
  ADMIN_TOKEN,
  addDocument,
  buildTestApp,
  CRON_TOKEN,
  makeTeam,
  type TestApp,
  tempDir,
} from "../support/app.js";

const VOCABULARY = [
  "okapi",
  "ledger",
  "harbour",
  "quartz",
  "lantern",
  "meadow",
  "invoice",
  "glacier",
  "copper",
  "orchard",
  "tundra",
  "saffron",
  "beacon",
  "willow",
  "cobalt",
  "falcon",
  "migration",
  "rollback",
  "budget",
  "pipeline",
];

/** Deterministic words: the same seed gives the same text in every run. */
function words(seed: number, count: number): string {
  let x = seed * 2654435761;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(VOCABULARY[x % VOCABULARY.length] as string);
  }
  return out.join(" ");
}

function documentOf(i: number): { title: string; content: string; path: string[] } {
  const sections = Array.from(
    { length: 1 + (i % 4) },
    (_, s) => `## Part ${s} ${words(i * 10 + s, 2)}\n\n${words(i * 100 + s, 60)} zorblaxword${i % 7}.`,
  );
  return {
    title: `Doc ${i} ${words(i, 2)}`,
    content: sections.join("\n\n"),
    path: ["Handbook", `Area ${i % 3}`],
  };
}

const QUERIES = [
  ...VOCABULARY,
  "okapi ledger",
  "quartz harbour lantern",
  "migration rollback budget pipeline",
  "zorblaxword3",
  "Part 2",
  "copper orchard falcon willow beacon saffron",
  "handbook area",
  "nothinglikethis",
];

/** Every answer the team gives that an index shapes: search hits over many queries, entries, memory. */
async function answers(app: TestApp, apiKey: string): Promise<string> {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    for (const limit of [3, 20]) {
      const res = await app.request(`/v1/search?${new URLSearchParams({ q, limit: String(limit) })}`, {
        token: apiKey,
      });
      const { tookMs: _, ...body } = (await res.json()) as Record<string, unknown>;
      out.push(res.status, body);
    }
    const memory = await app.request(`/v1/memory?${new URLSearchParams({ q, budget: "300" })}`, {
      token: apiKey,
    });
    out.push(memory.status, await memory.json());
  }
  const project = await app.request("/v1/memory?project=alpha&budget=500", { token: apiKey });
  out.push(await project.json());
  return JSON.stringify(out);
}

/** A logger whose lines a test reads. */
function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { logger: createLogger("debug", (line) => lines.push(JSON.parse(line))), lines };
}

async function addEntry(app: TestApp, apiKey: string, i: number): Promise<string> {
  const res = await app.request("/v1/entries", {
    method: "POST",
    token: apiKey,
    json: {
      title: `Entry ${words(i, 3)}`,
      impact: words(i + 1, 4),
      project: i % 2 ? "alpha" : "beta",
      body: words(i + 2, 12),
    },
  });
  if (res.status !== 201) throw new Error(`entry creation answered ${res.status}`);
  return ((await res.json()) as { entry: { id: string } }).entry.id;
}

interface Fixture {
  tmp: ReturnType<typeof tempDir>;
  masterKey: Uint8Array<ArrayBuffer>;
  apiKey: string;
  teamId: string;
}

/** A team with documents and entries, its index built, its snapshot written, and the app closed. */
async function snapshotted(documents = 40): Promise<Fixture> {
  const tmp = tempDir();
  const app = await buildTestApp({ dbUrl: tmp.dbUrl, config: { snapshotMinChunks: 0 } });
  const { apiKey, teamId } = await makeTeam(app);
  for (let i = 0; i < documents; i++) await addDocument(app, apiKey, documentOf(i));
  for (let i = 0; i < 12; i++) await addEntry(app, apiKey, i);
  await app.request("/v1/search?q=okapi", { token: apiKey });
  await app.memoria.indexes.snapshotsSettled();
  expect(app.memoria.indexes.snapshotCounts()).toMatchObject({ written: 1, restored: 0 });
  app.close();
  return { tmp, masterKey: app.masterKey, apiKey, teamId };
}

async function reopen(f: Fixture, logger?: Logger): Promise<TestApp> {
  return buildTestApp({
    dbUrl: f.tmp.dbUrl,
    masterKey: f.masterKey,
    config: { snapshotMinChunks: 0 },
    ...(logger ? { logger } : {}),
  });
}

/** What a rebuild from rows answers: the same database with its snapshot gone. */
async function rebuiltAnswers(f: Fixture): Promise<string> {
  const app = await reopen(f);
  try {
    await app.storage.snapshots.delete(f.teamId);
    const got = await answers(app, f.apiKey);
    expect(app.memoria.indexes.snapshotCounts().restored).toBe(0);
    return got;
  } finally {
    app.close();
  }
}

describe("a restart over a snapshotted team", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("restores the snapshot rather than rebuilding, and answers exactly as a rebuild does", async () => {
    const f = await snapshotted();
    cleanups.push(f.tmp.cleanup);
    const { logger, lines } = recordingLogger();
    const app = await reopen(f, logger);
    cleanups.push(() => app.close());
    const restored = await answers(app, f.apiKey);
    // Answers worth comparing: hits with marked snippets, and working memory with lines.
    expect(restored).toContain("<mark>");
    expect(restored).toMatch(/"included":[1-9]/);
    expect(app.memoria.indexes.snapshotCounts()).toMatchObject({ restored: 1, ignored: 0 });
    expect(app.memoria.indexes.status(f.teamId)).toMatchObject({
      source: "snapshot",
      loadMs: expect.any(Number),
    });
    expect(lines.some((l) => l.message === "index restored from snapshot")).toBe(true);
    expect(lines.some((l) => l.message === "index built")).toBe(false);
    app.close();
    expect(restored).toBe(await rebuiltAnswers(f));
  });

  it("catches up on writes and deletes made after the snapshot, and answers as a rebuild does", async () => {
    const f = await snapshotted();
    cleanups.push(f.tmp.cleanup);
    // Writes by an instance that writes no snapshot (its threshold is out of reach), after the snapshot.
    const writer = await buildTestApp({
      dbUrl: f.tmp.dbUrl,
      masterKey: f.masterKey,
      config: { snapshotMinChunks: 1_000_000 },
    });
    const docs = (await (await writer.request("/v1/documents?limit=200", { token: f.apiKey })).json()) as {
      documents: { id: string }[];
    };
    for (const doc of docs.documents.slice(0, 5)) {
      expect(
        (await writer.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: f.apiKey })).status,
      ).toBe(204);
    }
    const replaced = docs.documents[6]?.id as string;
    const put = await writer.request(`/v1/documents/${replaced}`, {
      method: "PUT",
      token: f.apiKey,
      json: { title: "Replaced okapi", content: `# Replaced\n\n${words(999, 80)} zorblaxword3` },
    });
    expect(put.status).toBe(200);
    for (let i = 100; i < 108; i++) await addDocument(writer, f.apiKey, documentOf(i));
    const entries = (await (await writer.request("/v1/entries?limit=5", { token: f.apiKey })).json()) as {
      entries: { id: string }[];
    };
    await writer.request(`/v1/entries/${entries.entries[0]?.id}`, { method: "DELETE", token: f.apiKey });
    for (let i = 50; i < 55; i++) await addEntry(writer, f.apiKey, i);
    writer.close();

    const app = await reopen(f);
    const restored = await answers(app, f.apiKey);
    expect(app.memoria.indexes.snapshotCounts().restored).toBe(1);
    app.close();
    expect(restored).toBe(await rebuiltAnswers(f));
  });

  it("leaves no plaintext word of a document in the database file", async () => {
    const f = await snapshotted();
    cleanups.push(f.tmp.cleanup);
    const app = await reopen(f);
    expect((await app.storage.snapshots.head(f.teamId))?.parts).toBeGreaterThan(0);
    app.close();
    for (const name of readdirSync(f.tmp.dir)) {
      const bytes = readFileSync(join(f.tmp.dir, name)).toString("latin1");
      for (const word of ["zorblaxword", "okapi", "harbour", "saffron", "Handbook"]) {
        expect(bytes.includes(word), `${word} in ${name}`).toBe(false);
      }
    }
  });
});

describe("a snapshot that must not be trusted", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  /** Alters storage, restarts, and checks the snapshot was ignored, the answers rebuilt, a fresh one written. */
  async function ignoredAfter(
    alter: (app: TestApp, f: Fixture) => Promise<void>,
    reason?: string,
  ): Promise<void> {
    const f = await snapshotted(16);
    cleanups.push(f.tmp.cleanup);
    const expected = await rebuiltAnswers(f);
    // rebuiltAnswers deleted the snapshot: write it again from a fresh build.
    const writer = await reopen(f);
    await writer.request("/v1/search?q=okapi", { token: f.apiKey });
    await writer.memoria.indexes.snapshotsSettled();
    await alter(writer, f);
    writer.close();

    const { logger, lines } = recordingLogger();
    const app = await reopen(f, logger);
    cleanups.push(() => app.close());
    expect(await answers(app, f.apiKey)).toBe(expected);
    expect(app.memoria.indexes.snapshotCounts()).toMatchObject({ restored: 0, ignored: 1 });
    expect(app.memoria.indexes.status(f.teamId).source).toBe("rows");
    const ignored = lines.find((l) => l.message === "index snapshot ignored; rebuilding from rows");
    expect(ignored).toBeDefined();
    if (reason) expect(ignored?.reason).toBe(reason);
    // Counts and reasons only: no word of the corpus in any line.
    expect(JSON.stringify(lines)).not.toMatch(/okapi|zorblax|harbour/);
    await app.memoria.indexes.snapshotsSettled();
    expect(app.memoria.indexes.snapshotCounts().written).toBe(1);
    app.close();

    const again = await reopen(f);
    cleanups.push(() => again.close());
    expect(await answers(again, f.apiKey)).toBe(expected);
    expect(again.memoria.indexes.snapshotCounts()).toMatchObject({ restored: 1, ignored: 0 });
  }

  it("ignores a part with a flipped byte", async () => {
    await ignoredAfter(async (app, f) => {
      const head = await app.storage.snapshots.head(f.teamId);
      const part = (await app.storage.snapshots.part(f.teamId, head?.snapshotId ?? "", 0)) as Uint8Array;
      const tampered = new Uint8Array(part);
      const at = Math.floor(tampered.length / 2);
      tampered[at] = (tampered[at] ?? 0) ^ 1;
      await app.storage.snapshots.putPart(f.teamId, head?.snapshotId ?? "", 0, tampered);
    }, "unreadable");
  });

  it("ignores a snapshot cut short: its last part missing, or the head claiming fewer parts", async () => {
    await ignoredAfter(async (app, f) => {
      const head = await app.storage.snapshots.head(f.teamId);
      if (!head) throw new Error("no snapshot");
      await app.storage.client.execute({
        sql: "DELETE FROM index_snapshot_parts WHERE team_id = ? AND part = ?",
        args: [f.teamId, head.parts - 1],
      });
    }, "unreadable");
  });

  it("ignores a head whose seq was rewritten (the parts are bound to the seq they reflect)", async () => {
    await ignoredAfter(async (app, f) => {
      await app.storage.client.execute({
        sql: "UPDATE index_snapshots SET seq = seq - 1 WHERE team_id = ?",
        args: [f.teamId],
      });
    }, "unreadable");
  });

  it("ignores a snapshot of another format or SQLite version", async () => {
    await ignoredAfter(async (app, f) => {
      await app.storage.client.execute({
        sql: "UPDATE index_snapshots SET format = '1/3.0.0/0000/0000' WHERE team_id = ?",
        args: [f.teamId],
      });
    }, "format");
  });

  it("ignores a part swapped in from another team's snapshot", async () => {
    await ignoredAfter(async (app, f) => {
      const other = await makeTeam(app, "Other");
      for (let i = 0; i < 3; i++) await addDocument(app, other.apiKey, documentOf(i));
      await app.request("/v1/search?q=okapi", { token: other.apiKey });
      await app.memoria.indexes.snapshotsSettled();
      const theirs = await app.storage.snapshots.head(other.teamId);
      const ours = await app.storage.snapshots.head(f.teamId);
      const part = await app.storage.snapshots.part(other.teamId, theirs?.snapshotId ?? "", 0);
      if (!part || !ours) throw new Error("no snapshot");
      await app.storage.snapshots.putPart(f.teamId, ours.snapshotId, 0, part);
    }, "unreadable");
  });
});

describe("reindex and delete", () => {
  it("reindex refreshes a snapshot that is behind; deleting the team deletes its snapshot", async () => {
    const tmp = tempDir();
    const app = await buildTestApp({ dbUrl: tmp.dbUrl, config: { snapshotMinChunks: 0 } });
    try {
      const { apiKey, teamId } = await makeTeam(app);
      for (let i = 0; i < 5; i++) await addDocument(app, apiKey, documentOf(i));
      await app.request("/v1/search?q=okapi", { token: apiKey });
      await app.memoria.indexes.snapshotsSettled();
      const first = await app.storage.snapshots.head(teamId);
      expect(first).not.toBeNull();

      await addDocument(app, apiKey, documentOf(50));
      const ping = await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN, json: {} });
      expect(ping.status).toBe(200);
      const { teams } = (await ping.json()) as { teams: { teamId: string; appliedSeq: number }[] };
      const refreshed = await app.storage.snapshots.head(teamId);
      expect(refreshed?.seq).toBeGreaterThan(first?.seq ?? 0);
      expect(refreshed?.seq).toBe(teams.find((t) => t.teamId === teamId)?.appliedSeq);

      // Level already: a second ping writes nothing.
      const written = app.memoria.indexes.snapshotCounts().written;
      await app.request("/v1/reindex", { method: "POST", token: CRON_TOKEN, json: {} });
      expect(app.memoria.indexes.snapshotCounts().written).toBe(written);

      const deleted = await app.request(`/v1/teams/${teamId}`, { method: "DELETE", token: ADMIN_TOKEN });
      expect(deleted.status).toBe(204);
      expect(await app.storage.snapshots.head(teamId)).toBeNull();
      const parts = await app.storage.client.execute("SELECT count(*) AS n FROM index_snapshot_parts");
      expect(Number(parts.rows[0]?.n)).toBe(0);
    } finally {
      app.close();
      tmp.cleanup();
    }
  });

  it("counts a snapshot being written as background work until it is stored", async () => {
    const app = await buildTestApp({ config: { snapshotMinChunks: 0 } });
    try {
      const { apiKey, teamId } = await makeTeam(app);
      await addDocument(app, apiKey, documentOf(1));
      expect(app.memoria.indexes.backgroundBusy()).toBe(false);
      await app.request("/v1/search?q=okapi", { token: apiKey });
      expect(app.memoria.indexes.backgroundBusy()).toBe(true);
      await app.memoria.indexes.snapshotsSettled();
      expect(await app.storage.snapshots.head(teamId)).not.toBeNull();
      // The write's promise settles a turn after the pending task that waited on it.
      await new Promise((resolve) => setImmediate(resolve));
      expect(app.memoria.indexes.backgroundBusy()).toBe(false);
    } finally {
      app.close();
    }
  });

  it("writes no snapshot for a team under the threshold", async () => {
    const app = await buildTestApp({ config: { snapshotMinChunks: 1000 } });
    try {
      const { apiKey, teamId } = await makeTeam(app);
      await addDocument(app, apiKey, documentOf(1));
      await app.request("/v1/search?q=okapi", { token: apiKey });
      await app.memoria.indexes.snapshotsSettled();
      expect(await app.storage.snapshots.head(teamId)).toBeNull();
      expect(app.memoria.indexes.snapshotCounts().written).toBe(0);
    } finally {
      app.close();
    }
  });
});
