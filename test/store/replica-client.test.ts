// An embedded replica against a real sqld on loopback: the primary answers while another process pulls the copy,
// the copy takes over with every write the primary acknowledged, and a pull that fails is tried again.

import { randomBytes } from "node:crypto";
import { createClient } from "@libsql/client";
import { expandConfig } from "@libsql/core/config";
import { afterEach, expect, it } from "vitest";
import {
  pullReplica,
  type ReplicaPull,
  replicaPath,
  replicaUrlProblem,
} from "../../src/store/replica-pull.js";
import { openStorage, type Storage } from "../../src/store/storage.js";
import { tempDir } from "../support/app.js";
import { needs, outside } from "../support/outside.js";
import { startPathProxy } from "../support/path-proxy.js";
import { type Sqld, startSqld } from "../support/sqld.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function primary(): Promise<{ sqld: Sqld; dir: string }> {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  const sqld = await startSqld(tmp.dir);
  cleanups.push(() => sqld.stop());
  return { sqld, dir: tmp.dir };
}

/** For tests of anything but the copy's timing: no first read is waited for (quiet-reads.ts). */
const COPY_AT_ONCE = { withoutReadsMs: 0 };

/** Ends sqld at once: a graceful stop waits ~30 s for a replica's open connection to go. */
async function killed(sqld: Sqld): Promise<void> {
  sqld.signal("SIGKILL");
  await sqld.exited;
}

/** The probe table's numbers, read with the primary killed: what the copy holds on its own. */
async function probeOnCopy(storage: Storage, sqld: Sqld): Promise<number[]> {
  await killed(sqld);
  const rows = await storage.client.execute("SELECT n FROM probe ORDER BY n");
  return rows.rows.map((row) => Number(row.n));
}

/** A snapshot part read with the primary killed: what the copy holds on its own. */
async function probeOnCopyParts(storage: Storage, sqld: Sqld): Promise<Uint8Array | null> {
  await killed(sqld);
  return storage.snapshots.part("t1", "s1", 0);
}

/** Real pulls whose end the replica hears only once `held` resolves; each is shown to `started` first. */
function pullsHeldBy(
  held: Promise<void>,
  started: (pull: ReplicaPull) => void = () => undefined,
): (url: string, syncUrl: string, token: string | null) => ReplicaPull {
  return (url, syncUrl, token) => {
    const real = pullReplica(url, syncUrl, token);
    started(real);
    return { ...real, pulled: held.then(() => real.pulled) };
  };
}

function signal(): { promise: Promise<void>; fire: () => void } {
  let fire: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

async function insert(storage: Storage, n: number): Promise<void> {
  await storage.client.execute({ sql: "INSERT INTO probe (n) VALUES (?)", args: [n] });
}

function upTo(n: number, from = 0): number[] {
  return Array.from({ length: n - from }, (_, i) => from + i);
}

it("opens the path libSQL's client opens for each form of file: URL a replica takes, and refuses the rest", () => {
  for (const url of [
    "file:/data/replica.db",
    "file:///data/replica.db",
    "file://localhost/data/r.db",
    "file:r.db",
  ]) {
    expect(replicaUrlProblem(url)).toBeNull();
    expect(replicaPath(url)).toBe(expandConfig({ url }, false).path);
  }
  expect(replicaPath("file:/data/my%20replica.db")).toBe("/data/my replica.db");
  // What the client that reads the copy refuses, or would open as another file than the pull's.
  for (const url of ["file:r.db?mode=rwc", "file:r.db#f", "file::memory:", "file://host/r.db", "file:"]) {
    expect(replicaUrlProblem(url)).not.toBeNull();
  }
});

it("refuses a replica URL the copy's client would refuse, before it opens anything", async () => {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  let pulls = 0;
  const refused = openStorage(
    // Nothing listens on port 9: a refusal that tried to reach the primary would say it cannot be reached.
    { url: `file:${tmp.dir}/replica.db?mode=rwc`, syncUrl: "http://127.0.0.1:9" },
    {
      pullReplica: (url, syncUrl, token) => {
        pulls++;
        return pullReplica(url, syncUrl, token);
      },
    },
  );
  await expect(refused).rejects.toThrow(
    "Invalid configuration: MEMORIA_DB_URL cannot be an embedded replica's file: it has a query or a fragment",
  );
  expect(pulls).toBe(0);
});

needs(outside.sqld, outside.caCertificates).describe("an embedded replica", () => {
  it("answers from its primary until its pull is done, then from its own copy, with every acknowledged write", async () => {
    const { sqld, dir } = await primary();
    const release = signal();
    const tookOver = signal();
    let realPulled: Promise<void> | null = null;
    const storage = await openStorage(
      // No periodic pull during the test: the takeover's own pull is the one that must bring the writes.
      { url: `file:${dir}/replica.db`, syncUrl: sqld.url, syncIntervalSeconds: 3600 },
      {
        pullReplica: pullsHeldBy(release.promise, (real) => {
          realPulled = real.pulled;
        }),
        replica: { tookOver: () => tookOver.fire() },
        copyAfter: COPY_AT_ONCE,
      },
    );
    cleanups.push(() => storage.close());
    expect(storage.inProcess).toBe(false);
    await storage.client.execute("CREATE TABLE probe (n INTEGER NOT NULL)");
    await Promise.all(upTo(20).map((n) => insert(storage, n)));
    expect(storage.inProcess).toBe(false);
    // The pull itself is over: only the release below holds the takeover back.
    expect(realPulled).not.toBeNull();
    await realPulled;

    // A transaction open on the primary holds the takeover until it ends; what it commits after the copy was
    // opened is brought by the takeover's own pull.
    const tx = await storage.client.transaction("write");
    await tx.execute({ sql: "INSERT INTO probe (n) VALUES (?)", args: [61] });
    // Sent before the takeover begins, so on the primary while the copy takes over: it waits for them.
    release.fire();
    const during = upTo(60, 20).map((n) => insert(storage, n));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Sent once the takeover began: it waits for the takeover, however long the transaction holds it.
    let counted = false;
    const fenced = storage.client.execute("SELECT count(*) AS n FROM probe").then((rs) => {
      counted = true;
      return Number(rs.rows[0]?.n);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(storage.inProcess).toBe(false);
    expect(counted).toBe(false);
    await tx.commit();
    await Promise.all(during);
    // Read from the copy once it took over, with everything the primary had acknowledged.
    expect(await fenced).toBe(61);
    await tookOver.promise;
    expect(storage.inProcess).toBe(true);

    // With the primary gone, the copy answers on its own, and holds everything acknowledged.
    expect(await probeOnCopy(storage, sqld)).toEqual([...upTo(60), 61]);
  }, 60_000);

  it("reads a wake's snapshot parts from its primary over Hrana 3 while it pulls, and from its copy once it took over", async () => {
    const { sqld, dir } = await primary();
    const proxy = await startPathProxy(sqld.port);
    cleanups.push(() => proxy.close());
    const release = signal();
    const tookOver = signal();
    const storage = await openStorage(
      { url: `file:${dir}/replica.db`, syncUrl: proxy.url, syncIntervalSeconds: 3600 },
      { pullReplica: pullsHeldBy(release.promise), replica: { tookOver: () => tookOver.fire() } },
    );
    cleanups.push(() => storage.close());
    const part = new Uint8Array(randomBytes(256 * 1024));
    await storage.snapshots.putPart("t1", "s1", 0, part);
    await proxy.settled();
    const before = proxy.paths.length;
    expect(await storage.snapshots.part("t1", "s1", 0)).toEqual(part);
    await proxy.settled();
    expect(proxy.paths.slice(before)).toContain("POST /v3-protobuf/pipeline");
    expect(storage.inProcess).toBe(false);

    release.fire();
    await tookOver.promise;
    // With the primary gone, only the copy can answer.
    await killed(sqld);
    expect(await storage.snapshots.part("t1", "s1", 0)).toEqual(part);
  }, 60_000);

  it("begins its copy only once the wake's bulk reads from its primary have gone quiet", async () => {
    const { sqld, dir } = await primary();
    const tookOver = signal();
    const events: string[] = [];
    const storage = await openStorage(
      { url: `file:${dir}/replica.db`, syncUrl: sqld.url, syncIntervalSeconds: 3600 },
      {
        pullReplica: (url, syncUrl, token) => {
          const real = pullReplica(url, syncUrl, token);
          return {
            ...real,
            begin: () => {
              events.push("copy began");
              real.begin();
            },
          };
        },
        replica: { tookOver: () => tookOver.fire() },
        copyAfter: { quietMs: 800, withoutReadsMs: 60_000, heldAtMostMs: 60_000 },
      },
    );
    cleanups.push(() => storage.close());
    const part = new Uint8Array(randomBytes(64 * 1024));
    await storage.snapshots.putPart("t1", "s1", 0, part);
    // Nothing read in bulk yet: however long the start and the write took, the copy waits.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Reads back to back for longer than the quiet time, two in flight as a restore keeps them.
    const until = performance.now() + 2000;
    await Promise.all(
      [0, 1].map(async () => {
        while (performance.now() < until) expect(await storage.snapshots.part("t1", "s1", 0)).toEqual(part);
      }),
    );
    events.push("reads ended");
    await tookOver.promise;
    expect(events).toEqual(["reads ended", "copy began"]);
    expect(await probeOnCopyParts(storage, sqld)).toEqual(part);
  }, 60_000);

  it("tries a pull that failed again, the primary answering meanwhile", async () => {
    const { sqld, dir } = await primary();
    const failures: unknown[] = [];
    const tookOver = signal();
    let pulls = 0;
    const storage = await openStorage(
      { url: `file:${dir}/replica.db`, syncUrl: sqld.url, syncIntervalSeconds: 3600 },
      {
        pullReplica: (url, syncUrl, token): ReplicaPull => {
          pulls++;
          const real = pullReplica(url, syncUrl, token);
          if (pulls > 1) return real;
          // The first pull is cut off after it reached the primary, as a dropped connection would.
          return {
            ...real,
            pulled: real.pulled.then(() => Promise.reject(new Error("connection dropped mid-pull"))),
          };
        },
        replica: { failed: (error) => failures.push(error), tookOver: () => tookOver.fire(), retryMs: 50 },
        copyAfter: COPY_AT_ONCE,
      },
    );
    cleanups.push(() => storage.close());
    await storage.client.execute("CREATE TABLE probe (n INTEGER NOT NULL)");
    await insert(storage, 1);
    await tookOver.promise;
    expect(pulls).toBe(2);
    expect(failures.map((error) => (error as Error).message)).toEqual(["connection dropped mid-pull"]);
    expect(await probeOnCopy(storage, sqld)).toEqual([1]);
  }, 60_000);

  it("tries a takeover held past the storage timeout again with the copy it opened, never with a second pull", async () => {
    const { sqld, dir } = await primary();
    const release = signal();
    const tookOver = signal();
    const failures: string[] = [];
    let pulls = 0;
    const storage = await openStorage(
      { url: `file:${dir}/replica.db`, syncUrl: sqld.url, syncIntervalSeconds: 3600, timeoutMs: 300 },
      {
        pullReplica: pullsHeldBy(release.promise, () => {
          pulls++;
        }),
        copyAfter: COPY_AT_ONCE,
        replica: {
          failed: (error) => failures.push((error as Error).message),
          tookOver: () => tookOver.fire(),
          retryMs: 100,
        },
      },
    );
    cleanups.push(() => storage.close());
    await storage.client.execute("CREATE TABLE probe (n INTEGER NOT NULL)");
    const tx = await storage.client.transaction("write");
    await tx.execute({ sql: "INSERT INTO probe (n) VALUES (?)", args: [7] });
    release.fire();
    for (let i = 0; i < 100 && failures.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(failures[0]).toBe("calls on the primary did not finish within the storage timeout");
    expect(storage.inProcess).toBe(false);
    await tx.commit();
    await tookOver.promise;
    expect(pulls).toBe(1);
    expect(await probeOnCopy(storage, sqld)).toEqual([7]);
  }, 60_000);

  it("a pull opens the replica's file at once and copies only once it is let begin", async () => {
    const { sqld, dir } = await primary();
    const seed = await openStorage({ url: sqld.url });
    await seed.client.execute("CREATE TABLE probe (n INTEGER NOT NULL)");
    await insert(seed, 5);
    seed.close();
    const pull = pullReplica(`file:${dir}/replica.db`, sqld.url, null);
    cleanups.push(() => pull.stop());
    await pull.opened;
    let pulled = false;
    pull.pulled.then(() => {
      pulled = true;
    });
    // Long past what the copy of a one-row database takes when let go at once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(pulled).toBe(false);
    pull.begin();
    await pull.pulled;
    const copy = createClient({ url: `file:${dir}/replica.db` });
    cleanups.push(() => copy.close());
    expect((await copy.execute("SELECT n FROM probe")).rows.map((row) => Number(row.n))).toEqual([5]);
  }, 60_000);

  it("ends a pull stalled on its primary when stopped, rather than waiting for it", async () => {
    const { sqld, dir } = await primary();
    await sqld.stall();
    cleanups.push(() => sqld.signal("SIGCONT"));
    const pull = pullReplica(`file:${dir}/replica.db`, sqld.url, null);
    pull.begin();
    // Long past the child's start, so it is inside the driver, waiting on the primary, when stopped.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    pull.stop();
    await expect(pull.pulled).rejects.toThrow("the replica's pull ended before it finished (signal SIGKILL)");
  }, 60_000);

  it("closed before its copy took over, never takes over and answers nothing more", async () => {
    const { sqld, dir } = await primary();
    const never = signal();
    const tookOver: number[] = [];
    const storage = await openStorage(
      { url: `file:${dir}/replica.db`, syncUrl: sqld.url, syncIntervalSeconds: 3600 },
      {
        pullReplica: pullsHeldBy(never.promise),
        replica: { tookOver: (ms) => tookOver.push(ms) },
      },
    );
    storage.close();
    expect(storage.client.closed).toBe(true);
    never.fire();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tookOver).toEqual([]);
    await expect(storage.client.execute("SELECT 1")).rejects.toThrow();
  }, 60_000);
});
