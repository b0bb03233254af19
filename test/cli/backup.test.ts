// `memoria export` and `memoria restore` as a user runs them (the real CLI, a child process) against real
// servers on loopback: one over a file database, the other over sqld with another master key.

import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Served as Loopback, serveOnLoopback } from "../http/loopback.js";
import { addDocument, buildTestApp, makeTeam, newMasterKey, type TestApp, tempDir } from "../support/app.js";
import { linesOf, teamContent } from "../support/export.js";
import { needs, outside } from "../support/outside.js";
import { type Sqld, startSqld } from "../support/sqld.js";
import { runCli } from "./harness.js";

/** Real documents in the moved team: enough for varied rankings, few enough to stay cheap on a busy machine. */
const READMES = 16;

/** A cheap scrypt factor for the tests' age files (see src/cli/backup.ts); a restore reads it from the file. */
const TEST_WORK_FACTOR = { MEMORIA_EXPORT_WORK_FACTOR: "10" };

interface Instance {
  app: TestApp;
  served: Loopback;
  imports: () => number;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A memoria server on loopback; counts the requests to /v1/import it was sent. */
async function instance(dbUrl: string): Promise<Instance> {
  const app = await buildTestApp({ dbUrl, masterKey: newMasterKey() });
  let imports = 0;
  const original = app.memoria.app.fetch;
  const counting = {
    ...app,
    memoria: {
      ...app.memoria,
      app: {
        fetch: (req: Request) => {
          if (new URL(req.url).pathname === "/v1/import") imports++;
          return original(req);
        },
      },
    },
  } as unknown as TestApp;
  const served = await serveOnLoopback(counting);
  cleanups.push(() => app.close());
  cleanups.push(() => served.close());
  return { app, served, imports: () => imports };
}

async function fileInstance(): Promise<Instance> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  return instance(tmp.dbUrl);
}

async function sqldInstance(): Promise<Instance> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const sqld: Sqld = await startSqld(tmp.dir);
  cleanups.push(() => sqld.stop());
  return instance(sqld.url);
}

async function fill(app: TestApp, apiKey: string): Promise<void> {
  const { documents, entries } = teamContent(READMES);
  for (const doc of documents) await addDocument(app, apiKey, doc);
  // Churn, so the source's index is not a fresh build: a replaced document and a deleted one.
  const replaced = await addDocument(app, apiKey, {
    title: "Draft",
    content: "first draft of the marmot plan",
  });
  await app.request(`/v1/documents/${replaced.id}`, {
    method: "PUT",
    token: apiKey,
    json: { title: "Draft", content: "# Marmot plan\n\nThe marmot plan, second draft: install the relay." },
  });
  const gone = await addDocument(app, apiKey, { title: "Gone", content: "a wombat note deleted later" });
  await app.request(`/v1/documents/${gone.id}`, { method: "DELETE", token: apiKey });
  for (const entry of entries) {
    const res = await app.request("/v1/entries", { method: "POST", token: apiKey, json: entry });
    expect(res.status).toBe(201);
  }
}

const QUERIES = [
  "install",
  "license MIT",
  "stream parser",
  "wombat relay",
  "quokka desk",
  "options object callback",
  "promise resolve reject",
  "echidna audit",
  "platypus ledger",
  "how do I configure the timeout",
  "marmot plan",
  "browser support node version",
];

const MEMORY_ASKS = [
  "",
  "?q=vitest",
  "?q=relay%20outage&project=ops",
  "?project=web&budget=40",
  "?q=quokka&budget=15",
];

async function answers(base: string, apiKey: string): Promise<{ searches: unknown[]; memory: string[] }> {
  const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  const searches: unknown[] = [];
  for (const q of QUERIES) {
    const res = await get(`/v1/search?limit=100&q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    const { hits, corpus } = (await res.json()) as {
      hits: { chunkId: string; documentId: string; ordinal: number }[];
      corpus: unknown;
    };
    // A chunk id is <document id>.<version>.<ordinal>: a restored document starts again at version 1, so the
    // version is the one part that may differ; the document and ordinal must be the same passage's.
    for (const hit of hits)
      expect(hit.chunkId).toBe(`${hit.documentId}.${hit.chunkId.split(".")[1]}.${hit.ordinal}`);
    searches.push({ q, corpus, hits: hits.map(({ chunkId: _chunkId, ...rest }) => rest) });
  }
  const memory: string[] = [];
  for (const ask of MEMORY_ASKS) {
    const res = await get(`/v1/memory${ask}`);
    expect(res.status).toBe(200);
    memory.push(await res.text());
  }
  return { searches, memory };
}

describe("memoria export and restore", () => {
  needs(outside.sqld).it(
    "a team restored into another instance (another master key, sqld instead of a file) answers every search and its working memory the same",
    async () => {
      const source = await fileInstance();
      const target = await sqldInstance();
      const from = await makeTeam(source.app, "Movers");
      await fill(source.app, from.apiKey);
      const to = await makeTeam(target.app, "Movers");
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const file = join(tmp.dir, "team.ndjson");

      // Exported over HTTP (the CLI's export is run by the tests below), restored by the CLI.
      const exported = await fetch(`${source.served.base}/v1/export`, {
        headers: { authorization: `Bearer ${from.apiKey}` },
      });
      writeFileSync(file, Buffer.from(await exported.arrayBuffer()));
      const { documents, entries } = teamContent(READMES);
      const docCount = documents.length + 1;
      expect(linesOf(readFileSync(file, "utf8")).at(-1)).toEqual({
        end: { documents: docCount, entries: entries.length },
      });

      const restored = await runCli(["restore", file, "--url", target.served.base, "--key", to.apiKey]);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toBe(
        `restored documents: created ${docCount}, updated 0, unchanged 0, renamed 0; entries: created ${entries.length}, unchanged 0, renamed 0\n`,
      );

      const before = await answers(source.served.base, from.apiKey);
      const after = await answers(target.served.base, to.apiKey);
      // The searches found something (the comparison is not of empty answers).
      expect(
        before.searches.filter((s) => (s as { hits: unknown[] }).hits.length > 0).length,
      ).toBeGreaterThan(8);
      expect(after.searches).toEqual(before.searches);
      expect(after.memory).toEqual(before.memory);
      expect(before.memory[1]).toContain("Pin vitest to 4.1");

      // Again (over HTTP: the CLI's run is the one above): nothing changes, and the answers stay the same.
      const again = await fetch(`${target.served.base}/v1/import`, {
        method: "POST",
        headers: { authorization: `Bearer ${to.apiKey}`, "content-type": "application/x-ndjson" },
        body: readFileSync(file),
      });
      expect(await again.json()).toMatchObject({
        documents: { created: 0, updated: 0, unchanged: docCount },
      });
      expect((await answers(target.served.base, to.apiKey)).memory).toEqual(before.memory);
    },
  );

  it("writes an age file under a passphrase, restores it, and a wrong passphrase exits 1 sending nothing", async () => {
    const source = await fileInstance();
    const target = await fileInstance();
    const from = await makeTeam(source.app);
    await addDocument(source.app, from.apiKey, {
      title: "Vault",
      content: "the aardwolf combination is 4-8-15",
    });
    const to = await makeTeam(target.app);
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, "team.age");
    const env = { ...TEST_WORK_FACTOR, MEMORIA_EXPORT_PASSPHRASE: "correct horse battery staple" };

    const exported = await runCli(
      ["export", "--url", source.served.base, "--key", from.apiKey, "--out", file, "--encrypt"],
      env,
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(
      `exported 1 documents and 0 entries to ${file} (age, passphrase-encrypted)\n`,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 21).toString()).toBe("age-encryption.org/v1");
    expect(bytes.includes(Buffer.from("aardwolf"))).toBe(false);

    const restore = ["restore", file, "--url", target.served.base, "--key", to.apiKey];
    const [wrong, none] = await Promise.all([
      runCli(restore, { MEMORIA_EXPORT_PASSPHRASE: "incorrect horse" }),
      runCli(restore),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/wrong passphrase/);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/MEMORIA_EXPORT_PASSPHRASE/);
    expect(target.imports()).toBe(0);

    const right = await runCli(["restore", file, "--url", target.served.base, "--key", to.apiKey], env);
    expect(right.code, right.stderr).toBe(0);
    expect(right.stdout).toContain("restored documents: created 1");
    expect(target.imports()).toBe(1);
    const res = await target.app.request("/v1/search?q=aardwolf", { token: to.apiKey });
    expect(((await res.json()) as { hits: unknown[] }).hits).toHaveLength(1);
  });

  it("exits 1 and leaves no file when the server refuses the key", async () => {
    const source = await fileInstance();
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const file = join(tmp.dir, "nothing.ndjson");
    const run = await runCli([
      "export",
      "--url",
      source.served.base,
      "--key",
      "mem_tnotateam_secret",
      "--out",
      file,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/401 unauthorized/);
    expect(() => statSync(file)).toThrow();
    expect(() => statSync(`${file}.partial`)).toThrow();
  });

  it("restore of a cut file sends its complete lines and exits 1 saying it was truncated", async () => {
    const source = await fileInstance();
    const from = await makeTeam(source.app);
    for (const doc of teamContent(4).documents) await addDocument(source.app, from.apiKey, doc);
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const exported = await source.app.request("/v1/export", { token: from.apiKey });
    const lines = (await exported.text()).split("\n");
    const cut = join(tmp.dir, "cut.ndjson");
    writeFileSync(cut, `${lines.slice(0, 3).join("\n")}\n`);
    const to = await makeTeam(source.app, "Other");
    const run = await runCli(["restore", cut, "--url", source.served.base, "--key", to.apiKey]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/400 invalid_request: .*truncated/);
    const listed = await source.app.request("/v1/documents", { token: to.apiKey });
    expect(((await listed.json()) as { documents: unknown[] }).documents).toHaveLength(2);
  });
});
