import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openClient } from "../../src/store/client.js";
import { isStorageAway } from "../../src/store/guarded-client.js";
import { wholeBodyFetch as fetchFor } from "../../src/store/whole-body-fetch.js";
import { needs, outside } from "../support/outside.js";
import { startSqld } from "../support/sqld.js";

const wholeBodyFetch = fetchFor(60_000);
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("wholeBodyFetch", () => {
  it("an answer written in tiny pieces arrives whole, in order, as one chunk of its body", async () => {
    // As sqld writes a large value: many small writes of one answer.
    const pieces = Array.from({ length: 4000 }, (_, i) => `${String(i).padStart(6, "0")}|`.repeat(12));
    const base = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      for (const piece of pieces) res.write(piece);
      res.end();
    });
    const answer = await wholeBodyFetch(new Request(`${base}/v3/pipeline`, { method: "POST", body: "{}" }));
    const chunks: Uint8Array[] = [];
    // What libSQL's cursor reads: the body's async iterator.
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    expect(chunks).toHaveLength(1);
    expect(Buffer.concat(chunks).toString()).toBe(pieces.join(""));
  });

  it("sends the method, headers and body, and hands back status, text and every header", async () => {
    const base = await serve(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      res.statusCode = 418;
      res.statusMessage = "Short And Stout";
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.setHeader("x-seen", `${req.method} ${req.url} ${req.headers.authorization} ${body}`);
      res.end("brewed");
    });
    const answer = await wholeBodyFetch(`${base}/path?q=1`, {
      method: "PUT",
      headers: { authorization: "Bearer t" },
      body: "sent",
    });
    expect(answer.status).toBe(418);
    expect(answer.statusText).toBe("Short And Stout");
    expect(answer.headers.get("x-seen")).toBe("PUT /path?q=1 Bearer t sent");
    expect(answer.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await answer.text()).toBe("brewed");
  });

  it("an answer with no body is one, and a request with none sends none", async () => {
    const base = await serve((req, res) => {
      res.statusCode = 204;
      res.setHeader("x-length", String(req.headers["content-length"] ?? "none"));
      res.end();
    });
    const answer = await wholeBodyFetch(`${base}/`);
    expect(answer.status).toBe(204);
    expect(answer.body).toBeNull();
    expect(answer.headers.get("x-length")).toBe("none");
  });

  it("a refused connection rejects as the runtime's fetch does, which storage calls away", async () => {
    const base = await serve((_req, res) => res.end());
    const server = servers.pop();
    await new Promise((done) => server?.close(done));
    const failure = await wholeBodyFetch(`${base}/`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
    expect(isStorageAway(failure)).toBe(true);
  });

  it("a connection dropped mid-answer rejects instead of handing back part of it", async () => {
    const base = await serve((req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("x".repeat(10));
      setTimeout(() => req.socket.destroy(), 20);
    });
    const failure = await wholeBodyFetch(`${base}/`).catch((error: unknown) => error);
    expect(isStorageAway(failure)).toBe(true);
  });

  it("a server that goes silent is given up on after the stalled bound, as storage away", async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("x".repeat(10));
      // Then nothing, with the connection open.
    });
    const failure = await fetchFor(150)(`${base}/`).catch((error: unknown) => error);
    expect(isStorageAway(failure)).toBe(true);
    expect(String(((failure as TypeError).cause as Error).message)).toContain("sent nothing for 150 ms");
  });

  it("a status no fetch answers with rejects instead of throwing where nothing catches it", async () => {
    const base = await serve((req, _res) => {
      req.socket.end("HTTP/1.1 600 Odd\r\ncontent-length: 2\r\n\r\nok");
    });
    const failure = await wholeBodyFetch(`${base}/`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(((failure as TypeError).cause as Error).name).toBe("RangeError");
  });

  it("a redirect is handed back as it is, not followed", async () => {
    const base = await serve((req, res) => {
      res.writeHead(307, { location: "/elsewhere", "x-path": String(req.url) });
      res.end();
    });
    const answer = await wholeBodyFetch(`${base}/v3/pipeline`, { method: "POST", body: "{}" });
    expect(answer.status).toBe(307);
    expect(answer.headers.get("x-path")).toBe("/v3/pipeline");
  });

  it("an aborted request rejects with the abort, not as storage away", async () => {
    const base = await serve(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = wholeBodyFetch(`${base}/`, { signal: controller.signal });
    controller.abort();
    const failure = await pending.catch((error: unknown) => error);
    expect((failure as Error).name).toBe("AbortError");
  });
});

needs(outside.sqld).it(
  "a value of megabytes read over sqld's HTTP API comes back byte for byte through memoria's client",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "memoria-http-"));
    const sqld = await startSqld(dir);
    const client = await openClient({ url: sqld.url });
    try {
      const value = new Uint8Array(4 * 1024 * 1024);
      for (let i = 0; i < value.length; i += 65_536) crypto.getRandomValues(value.subarray(i, i + 65_536));
      await client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)");
      await client.execute({ sql: "INSERT INTO t VALUES (1, ?)", args: [value] });
      const rs = await client.execute("SELECT b FROM t WHERE id = 1");
      expect(Buffer.from(rs.rows[0]?.b as ArrayBuffer).equals(Buffer.from(value))).toBe(true);
      // A batch goes through Hrana's cursor, the streamed answer.
      const [read] = await client.batch(["SELECT length(b) AS n FROM t"], "read");
      expect(read?.rows[0]?.n).toBe(value.length);
    } finally {
      client.close();
      await sqld.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
