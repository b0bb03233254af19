// Remote storage against a real sqld on loopback — the server Turso runs — reached the ways memoria's
// configuration offers: over HTTP with and without a token, and as an embedded replica syncing from it.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { migrations } from "../../src/store/migrations/index.js";
import { openStorage } from "../../src/store/storage.js";
import { tickingClock } from "../routes/contract.js";
import {
  ADMIN_TOKEN,
  addDocument,
  buildTestApp,
  makeTeam,
  masterKeyText,
  newMasterKey,
  search,
  type TestApp,
  tempDir,
} from "../support/app.js";
import { brief, changesSinceMade } from "../support/audit.js";
import { makeKey } from "../support/keys.js";
import { needs, outside } from "../support/outside.js";
import { finished, startNode } from "../support/processes.js";
import { jwtKeys, type Sqld, startSqld } from "../support/sqld.js";

needs(outside.sqld).describe("storage on sqld", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function server(options: { jwt?: boolean } = {}) {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const keys = options.jwt ? jwtKeys(tmp.dir) : null;
    const sqld: Sqld = await startSqld(tmp.dir, keys ? { jwtKeyFile: keys.keyFile } : {});
    cleanups.push(() => sqld.stop());
    return { sqld, keys, dir: tmp.dir };
  }

  /** Runs the Node entry to its exit; killed at the end of the test if a refusal did not come. */
  function exitOf(env: Record<string, string>) {
    const child = startNode(env);
    cleanups.push(() => {
      child.kill("SIGKILL");
    });
    return finished(child);
  }

  async function app(...args: Parameters<typeof buildTestApp>): Promise<TestApp> {
    const built = await buildTestApp(...args);
    cleanups.push(() => built.close());
    return built;
  }

  it("migrates once when four instances start at the same moment", async () => {
    const { sqld } = await server();
    const storages = await Promise.all([1, 2, 3, 4].map(() => openStorage({ url: sqld.url })));
    for (const storage of storages) cleanups.push(() => storage.close());
    const rs = await storages[0]?.client.execute("SELECT version FROM schema_migrations ORDER BY version");
    // Every version this code knows, each once (versions may skip: a branch may hold a later one alone).
    expect(rs?.rows.map((r) => Number(r.version))).toEqual(migrations.map((m) => m.version));
  });

  it("serves a team end to end: documents, search, entries and memory", async () => {
    const { sqld } = await server();
    const memoria = await app({ dbUrl: sqld.url });
    const { apiKey } = await makeTeam(memoria);
    const doc = await memoria.request("/v1/documents", {
      method: "POST",
      token: apiKey,
      json: { title: "Runbook", content: "# Runbook\n\nRestart the ingest worker when the queue stalls." },
    });
    expect(doc.status).toBe(201);
    expect((await search(memoria, apiKey, "ingest queue")).hits[0]?.title).toBe("Runbook");
    const entry = await memoria.request("/v1/entries", {
      method: "POST",
      token: apiKey,
      json: { title: "Queue stalls after deploys", impact: "restart the worker", project: "ingest" },
    });
    expect(entry.status).toBe(201);
    const memory = (await (await memoria.request("/v1/memory?q=queue", { token: apiKey })).json()) as {
      text: string;
    };
    expect(memory.text).toContain("Queue stalls after deploys — restart the worker");
    // A second instance over the same server builds the same team from the sealed rows.
    const other = await app({ dbUrl: sqld.url, masterKey: memoria.masterKey });
    expect((await search(other, apiKey, "ingest queue")).hits[0]?.title).toBe("Runbook");
  });

  it("keeps the audit trail on sqld: events in their change's transaction and after it, paged newest first, append-only", async () => {
    const { sqld } = await server();
    const memoria = await app({ dbUrl: sqld.url, clock: tickingClock() });
    const { apiKey } = await makeTeam(memoria);
    const agent = await makeKey(memoria, apiKey, "write", { name: "Sync agent" });
    const batch = await memoria.request("/v1/documents/batch", {
      method: "POST",
      token: agent.apiKey,
      json: {
        documents: [
          { title: "One", content: "First note." },
          { title: "Two", content: "Second note." },
          { title: "Three", content: "Third note." },
        ],
      },
    });
    const { results } = (await batch.json()) as { results: { document: { id: string } }[] };
    const ids = results.map((r) => r.document.id);
    await memoria.request(`/v1/documents/${ids[1]}`, { method: "DELETE", token: apiKey });
    const expected = [
      { who: "key", action: "document.deleted", target: `document ${ids[1]}` },
      { who: "Sync agent", action: "document.created", target: `document ${ids[2]}` },
      { who: "Sync agent", action: "document.created", target: `document ${ids[1]}` },
      { who: "Sync agent", action: "document.created", target: `document ${ids[0]}` },
      { who: "key", action: "key.made", target: `key ${agent.keyId}` },
    ];
    // Two at a time: the keyset of (time, id) pages the same on sqld as on a file.
    const seen: ReturnType<typeof brief>[] = [];
    let cursor: string | null = null;
    do {
      const query = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = (await (await memoria.request(`/v1/audit${query}`, { token: apiKey })).json()) as {
        events: Parameters<typeof brief>[0][];
        nextCursor: string | null;
      };
      seen.push(...page.events.map(brief));
      cursor = page.nextCursor;
    } while (cursor !== null && seen.length < 20);
    // The two oldest are the admin token's: the team's first key and its first owner's invite.
    expect(seen.slice(0, -2)).toEqual(expected);
    expect(seen.slice(-2).map((event) => event.who)).toEqual(["admin", "admin"]);
    // A second instance reads the same trail; the server refuses to change it.
    const other = await app({ dbUrl: sqld.url, masterKey: memoria.masterKey });
    expect(await changesSinceMade(other, apiKey)).toEqual(expected);
    await expect(other.storage.client.execute("DELETE FROM audit_events")).rejects.toThrow(/append-only/);
  });

  it("rebuilds a team of several pages from its rows over ws:// and http:// alike, every document and entry in", async () => {
    const { sqld } = await server();
    const first = await app({ dbUrl: sqld.url });
    const { apiKey } = await makeTeam(first);
    // Past BUILD_PAGE_ROWS (32) runs twice over, so several pages are read ahead; entries too, in one page.
    const documents = 70;
    for (let i = 0; i < documents; i++)
      await addDocument(first, apiKey, { title: `Note ${i}`, content: `The okapi zq${i}x grazes at dawn.` });
    for (let i = 0; i < 5; i++) {
      const res = await first.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        json: { title: `Giraffe fact yk${i}w`, project: "zoo" },
      });
      expect(res.status).toBe(201);
    }
    for (const url of [sqld.url.replace(/^http/, "ws"), sqld.url]) {
      const other = await app({ dbUrl: url, masterKey: first.masterKey });
      for (let i = 0; i < documents; i++)
        expect((await search(other, apiKey, `zq${i}x`)).hits.map((hit) => hit.title)).toEqual([`Note ${i}`]);
      const memory = (await (await other.request("/v1/memory?q=giraffe", { token: apiKey })).json()) as {
        text: string;
      };
      for (let i = 0; i < 5; i++) expect(memory.text).toContain(`yk${i}w`);
      const stats = (await (await other.request("/v1/stats", { token: apiKey })).json()) as {
        unreadable: unknown;
        index: { source: string };
      };
      expect(stats.unreadable).toEqual({ documents: 0, entries: 0 });
      expect(stats.index.source).toBe("rows");
    }
  });

  it("accepts the libsql:// form of the same server's URL", async () => {
    const { sqld } = await server();
    // Turso's URLs are libsql://; without TLS on loopback the client is told so in the query string.
    const storage = await openStorage({ url: `${sqld.url.replace("http://", "libsql://")}?tls=0` });
    cleanups.push(() => storage.close());
    expect(await storage.changes.latestSeq("t-none")).toBe(0);
  });

  it("needs the token when the server asks for one, and never echoes it", async () => {
    const { sqld, keys } = await server({ jwt: true });
    const token = keys?.token() ?? "";
    const storage = await openStorage({ url: sqld.url, authToken: token });
    cleanups.push(() => storage.close());
    await storage.ping();
    const wrong = jwtKeys(tempDir().dir).token();
    const failure = await openStorage({ url: sqld.url, authToken: wrong }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).not.toContain(wrong);
    const none = await openStorage({ url: sqld.url }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(none).toBeInstanceOf(Error);
  });

  // An embedded replica is libSQL's native client, which loads the system's CA certificates when it connects.
  needs(outside.caCertificates).it(
    "as an embedded replica: its own writes read at once, the primary's within the sync interval",
    async () => {
      const { sqld } = await server();
      const replicaDir = tempDir();
      cleanups.push(replicaDir.cleanup);
      const primary = await app({ dbUrl: sqld.url, config: { catchupMs: 0 } });
      const replica = await app({
        dbUrl: `file:${replicaDir.dir}/replica.db`,
        db: { syncUrl: sqld.url, syncIntervalSeconds: 1 },
        masterKey: primary.masterKey,
        config: { catchupMs: 0 },
      });
      // Its copy takes over from the primary once pulled: what follows is read from the copy.
      for (let i = 0; i < 300 && !replica.storage.inProcess; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(replica.storage.inProcess).toBe(true);
      // A team made through the replica is written to the primary and readable on the replica at once.
      const { apiKey } = await makeTeam(replica);
      const own = await replica.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        json: { title: "Written through the replica" },
      });
      expect(own.status).toBe(201);
      const seen = (await (await replica.request("/v1/memory", { token: apiKey })).json()) as {
        text: string;
      };
      expect(seen.text).toContain("Written through the replica");
      const onPrimary = (await (await primary.request("/v1/memory", { token: apiKey })).json()) as {
        text: string;
      };
      expect(onPrimary.text).toContain("Written through the replica");
      // A write made on the primary reaches the replica's reads after a sync: poll, never assert a time.
      const other = await primary.request("/v1/entries", {
        method: "POST",
        token: apiKey,
        json: { title: "Written on the primary" },
      });
      expect(other.status).toBe(201);
      let text = "";
      for (let i = 0; i < 100 && !text.includes("Written on the primary"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        text = ((await (await replica.request("/v1/memory", { token: apiKey })).json()) as { text: string })
          .text;
      }
      expect(text).toContain("Written on the primary");
    },
    60_000,
  );

  it("an embedded replica on a system without CA certificates exits 1 saying so, not by the error's name", async () => {
    const { sqld } = await server();
    const replicaDir = tempDir();
    cleanups.push(replicaDir.cleanup);
    // libSQL's native client reads the bundle SSL_CERT_FILE names: an empty one is a system with none.
    writeFileSync(join(replicaDir.dir, "none.pem"), "");
    const exit = await exitOf({
      PORT: "0",
      MEMORIA_DB_URL: `file:${replicaDir.dir}/replica.db`,
      MEMORIA_DB_SYNC_URL: sqld.url,
      MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
      MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      SSL_CERT_FILE: join(replicaDir.dir, "none.pem"),
    });
    expect(exit.code).toBe(1);
    expect(exit.stderr.trim()).toBe(
      `memoria failed to start: storage at file:${replicaDir.dir}/replica.db, an embedded replica of ${sqld.url} ` +
        "could not be opened: the system has no CA certificates for libSQL's native client to check the server " +
        "with (an embedded replica needs them: apt-get install ca-certificates, or set SSL_CERT_FILE).",
    );
  }, 60_000);

  /** A server holding one team, and everything a start could write to it, as text. */
  async function serverWithTeam() {
    const { sqld } = await server();
    const memoria = await app({ dbUrl: sqld.url });
    await makeTeam(memoria, "Remote");
    const contents = async () => {
      const tables = await memoria.storage.client.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
      );
      const dump: Record<string, string> = {};
      for (const row of tables.rows) {
        const name = String(row.name);
        const rows = await memoria.storage.client.execute(`SELECT * FROM "${name}" ORDER BY rowid`);
        dump[name] = JSON.stringify(rows.rows, (_, v) =>
          v instanceof ArrayBuffer ? Buffer.from(v).toString("hex") : v,
        );
      }
      return dump;
    };
    return { sqld, contents };
  }

  it("a start whose master key opens none of the server's teams exits 1 naming it and writes nothing", async () => {
    const { sqld, contents } = await serverWithTeam();
    const before = await contents();
    expect(JSON.parse(before.teams ?? "[]")).toHaveLength(1);
    const exit = await exitOf({
      NODE_ENV: "production",
      PORT: "0",
      MEMORIA_DB_URL: sqld.url,
      MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
      MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    expect(exit.code).toBe(1);
    expect(exit.stderr.trim()).toMatch(
      /^Invalid configuration: MEMORIA_MASTER_KEY does not open the team keys/,
    );
    expect(await contents()).toEqual(before);
  }, 60_000);

  needs(outside.caCertificates).it(
    "a fresh embedded replica checks its primary, so it refuses that master key too and writes nothing",
    async () => {
      const { sqld, contents } = await serverWithTeam();
      const before = await contents();
      const replicaDir = tempDir();
      cleanups.push(replicaDir.cleanup);
      const replica = await exitOf({
        NODE_ENV: "production",
        PORT: "0",
        MEMORIA_DB_URL: `file:${replicaDir.dir}/replica.db`,
        MEMORIA_DB_SYNC_URL: sqld.url,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      expect(replica.code).toBe(1);
      expect(replica.stderr.trim()).toMatch(/^Invalid configuration: MEMORIA_MASTER_KEY does not open/);
      expect(await contents()).toEqual(before);
    },
    60_000,
  );
});
