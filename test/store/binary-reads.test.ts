// A wake's bulk reads over Hrana 3 (src/store/binary-reads.ts): which URLs take them, that they bring the same
// rows as the storage client from a real sqld over both transports and answer at version 3, and that storage
// away is answered "unavailable" and read again once it is back.

import { randomBytes } from "node:crypto";
import * as hrana from "@libsql/hrana-client";
import { afterEach, describe, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import { BinaryReads, binaryReadsTarget, ConnectionDropped } from "../../src/store/binary-reads.js";
import { storageFetch } from "../../src/store/client.js";
import { DocumentRows } from "../../src/store/documents.js";
import { isStorageAway } from "../../src/store/guarded-client.js";
import { SnapshotRows } from "../../src/store/snapshots.js";
import { openStorage, type Storage } from "../../src/store/storage.js";
import { addDocument, buildTestApp, makeTeam, tempDir } from "../support/app.js";
import { needs, outside } from "../support/outside.js";
import { startPathProxy } from "../support/path-proxy.js";
import { startSqld } from "../support/sqld.js";

describe("binaryReadsTarget", () => {
  it("reads libsql:// over HTTPS unless tls=0, as the client does, and ws, wss, http and https as they are", () => {
    const taken: [string, string, "ws" | "http"][] = [
      ["libsql://db.example.turso.io", "https://db.example.turso.io", "http"],
      ["libsql://127.0.0.1:8080?tls=0", "http://127.0.0.1:8080", "http"],
      ["ws://127.0.0.1:8080", "ws://127.0.0.1:8080", "ws"],
      ["wss://h.example/base", "wss://h.example/base", "ws"],
      ["http://127.0.0.1:8080/", "http://127.0.0.1:8080", "http"],
      ["https://h.example", "https://h.example", "http"],
    ];
    for (const [given, url, transport] of taken)
      expect(binaryReadsTarget(given), given).toEqual({ url, transport });
  });

  it("leaves to the client what it does not know: local files, other schemes, a token or anything else in the query", () => {
    for (const url of [
      "file:/tmp/x.db",
      ":memory:",
      "ftp://h.example",
      "libsql://h.example?authToken=secret",
      "http://h.example?tls=maybe",
      "libsql://h.example?tls=0",
      "libsql://h.example:8080?tls=0&tls=1",
      "ws://user:secret@127.0.0.1:8080",
      "not a url",
    ])
      expect(binaryReadsTarget(url), url).toBeNull();
  });
});

describe("what the bulk reads' errors say of storage", () => {
  it("judges the Hrana library's own errors as the client judges them wrapped", () => {
    const refused = new hrana.ResponseError("token refused", {
      message: "token refused",
      code: "AUTH",
    } as never);
    const busy = new hrana.ResponseError("busy", { message: "busy", code: "SQLITE_BUSY" } as never);
    const judged: [string, unknown, boolean][] = [
      ["a WebSocket failure", new hrana.WebSocketError("socket closed"), true],
      ["a connection dropped under the read", new ConnectionDropped("dropped"), true],
      ["closed for no named reason", new hrana.ClosedError("closed", undefined), true],
      [
        "closed by a failure to reach storage",
        new hrana.ClosedError("closed", new hrana.WebSocketError("x")),
        true,
      ],
      ["closed by storage's refusal", new hrana.ClosedError("closed", refused), false],
      [
        "closed, twice, by storage's refusal",
        new hrana.ClosedError("stream", new hrana.ClosedError("client", refused)),
        false,
      ],
      [
        "closed by an answer it cannot read",
        new hrana.ClosedError("closed", new hrana.ProtoError("bad")),
        false,
      ],
      ["an HTTP 503", new hrana.HttpServerError("unavailable", 503), true],
      ["an HTTP 429", new hrana.HttpServerError("slow down", 429), true],
      ["an HTTP 401", new hrana.HttpServerError("unauthorized", 401), false],
      ["a statement's own error", refused, false],
      ["storage busy past its timeout", busy, true],
    ];
    for (const [what, error, away] of judged) expect(isStorageAway(error), what).toBe(away);
  });
});

needs(outside.sqld).describe("bulk reads on sqld", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function sqldStorage(scheme: "ws" | "http") {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const sqld = await startSqld(tmp.dir);
    cleanups.push(() => sqld.stop());
    const url = sqld.url.replace(/^http/, scheme);
    const storage = await openStorage({ url, timeoutMs: 2000 });
    cleanups.push(() => storage.close());
    return { sqld, url, storage, dir: tmp.dir };
  }

  async function putPart(storage: Storage, teamId: string, bytes: Uint8Array) {
    await storage.snapshots.putPart(teamId, "s1", 0, bytes);
  }

  for (const scheme of ["ws", "http"] as const) {
    it(`over ${scheme}://, answers at version 3 with the bytes of a 4 MiB part and the rows of a page the client reads`, async () => {
      const { url, storage } = await sqldStorage(scheme);
      const app = await buildTestApp({ dbUrl: url });
      cleanups.push(() => app.close());
      const team = await makeTeam(app);
      for (let i = 0; i < 3; i++)
        await addDocument(app, team.apiKey, {
          title: `Part ${i}`,
          content: `# Part ${i}\n\n${"A passage about sealed storage and binary reads. ".repeat(40)}`,
        });
      const teamId = team.teamId;

      const reads = new BinaryReads({
        ...(binaryReadsTarget(url) as { url: string; transport: "ws" | "http" }),
        fetch: storageFetch({}),
      });
      cleanups.push(() => reads.close());
      expect(await reads.version()).toBe(3);

      const part = new Uint8Array(randomBytes(4 * 1024 * 1024 - 64));
      await putPart(storage, teamId, part);
      const overClient = await new SnapshotRows(storage.client).part(teamId, "s1", 0);
      const overBinary = await new SnapshotRows(storage.client, reads).part(teamId, "s1", 0);
      expect(Buffer.compare(Buffer.from(overBinary as Uint8Array), Buffer.from(part))).toBe(0);
      expect(
        Buffer.compare(Buffer.from(overBinary as Uint8Array), Buffer.from(overClient as Uint8Array)),
      ).toBe(0);
      expect(await new SnapshotRows(storage.client, reads).part(teamId, "s1", 1)).toBeNull();

      const [first] = await storage.documents.chunkRunPageStarts(teamId, 100);
      if (!first) throw new Error("the team holds no chunk runs");
      const range = { from: first, fromIncluded: true, before: null };
      const runsOverClient = await new DocumentRows(storage.client).chunkRunsBetween(teamId, range, 100);
      const runsOverBinary = await new DocumentRows(storage.client, reads).chunkRunsBetween(
        teamId,
        range,
        100,
      );
      expect(runsOverClient.length).toBeGreaterThanOrEqual(3);
      expect(runsOverBinary).toEqual(runsOverClient);
      // What openStorage hands the row modules reads the same way.
      expect(await storage.documents.chunkRunsBetween(teamId, range, 100)).toEqual(runsOverClient);
    });
  }

  it("answers unavailable while sqld is away, opens a fresh connection once it is back, and a SQL error passes as it is", async () => {
    const { sqld, storage, dir } = await sqldStorage("ws");
    const part = new Uint8Array(randomBytes(1024));
    await putPart(storage, "t1", part);
    expect(Buffer.from((await storage.snapshots.part("t1", "s1", 0)) as Uint8Array)).toEqual(
      Buffer.from(part),
    );

    await sqld.stop();
    const away = await storage.snapshots.part("t1", "s1", 0).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isDomainError(away, "unavailable")).toBe(true);

    const restarted = await startSqld(dir, { port: sqld.port });
    cleanups.push(() => restarted.stop());
    let back: Uint8Array | null = null;
    const deadline = Date.now() + 15_000;
    while (back === null && Date.now() < deadline) {
      back = await storage.snapshots.part("t1", "s1", 0).catch(() => null);
      if (back === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Buffer.from(back as Uint8Array)).toEqual(Buffer.from(part));

    const reads = new BinaryReads({
      url: `ws://127.0.0.1:${sqld.port}`,
      transport: "ws",
      fetch: storageFetch({}),
    });
    cleanups.push(() => reads.close());
    const refused = await reads.execute("SELECT * FROM no_such_table").then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(refused?.name).toBe("ResponseError");
    // The connection outlives a statement's own error.
    expect((await reads.execute({ sql: "SELECT ? AS x", args: [7] })).rows[0]?.x).toBe(7);
  });

  it("a stalled sqld answers every read in flight unavailable, and the next read after it resumes is answered", async () => {
    const { sqld, storage } = await sqldStorage("ws");
    await putPart(storage, "t1", new Uint8Array([1, 2, 3]));
    expect(await storage.snapshots.part("t1", "s1", 0)).toEqual(new Uint8Array([1, 2, 3]));
    await sqld.stall();
    try {
      // Two parts in flight, as a restore keeps them: the first to time out drops the connection under the
      // other, which must be answered as storage away too, not as an error of its own.
      const first = storage.snapshots.part("t1", "s1", 0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = storage.snapshots.part("t1", "s1", 0);
      const stalled = await Promise.all(
        [first, second].map((read) =>
          read.then(
            () => null,
            (error: unknown) => error,
          ),
        ),
      );
      for (const error of stalled) expect(isDomainError(error, "unavailable"), String(error)).toBe(true);
    } finally {
      sqld.signal("SIGCONT");
    }
    expect(await storage.snapshots.part("t1", "s1", 0)).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("openStorage over http:// reads parts and pages over Hrana 3 and everything else through the client", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const sqld = await startSqld(tmp.dir);
    cleanups.push(() => sqld.stop());
    const proxy = await startPathProxy(sqld.port);
    cleanups.push(() => proxy.close());
    const paths = proxy.paths;
    const storage = await openStorage({ url: proxy.url, timeoutMs: 5000 });
    cleanups.push(() => storage.close());
    await putPart(storage, "t1", new Uint8Array([4, 5, 6]));
    await proxy.settled();
    const written = paths.length;
    expect(paths.some((path) => path.includes("v3-protobuf"))).toBe(false);

    expect(await storage.snapshots.part("t1", "s1", 0)).toEqual(new Uint8Array([4, 5, 6]));
    await proxy.settled();
    const reads = paths.slice(written);
    expect(reads).toContain("POST /v3-protobuf/pipeline");
    expect(reads.filter((path) => path.includes("/v2/"))).toEqual([]);
    // A read that is not a bulk one stays on the client.
    const before = paths.length;
    await storage.snapshots.head("t1");
    await proxy.settled();
    expect(paths.slice(before).length).toBeGreaterThan(0);
    expect(paths.slice(before).every((path) => path.includes("/v2/"))).toBe(true);
  });

  it("a reset drops only the connection it names, and the next read opens a fresh one", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const sqld = await startSqld(tmp.dir);
    cleanups.push(() => sqld.stop());
    const reads = new BinaryReads({
      url: `ws://127.0.0.1:${sqld.port}`,
      transport: "ws",
      fetch: storageFetch({}),
    });
    cleanups.push(() => reads.close());
    const generationOf = async () => {
      let used = -1;
      await reads.execute("SELECT 1", (generation) => {
        used = generation;
      });
      return used;
    };
    const first = await generationOf();
    expect(first).toBeGreaterThan(0);
    reads.reset(first - 1);
    expect(await generationOf()).toBe(first);
    reads.reset(first);
    const second = await generationOf();
    expect(second).toBe(first + 1);
    // A stale name, now that a newer connection is in use, drops nothing.
    reads.reset(first);
    expect(await generationOf()).toBe(second);
  });
});
