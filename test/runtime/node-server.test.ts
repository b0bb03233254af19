// The Node server against hostile and faulty clients, over a raw socket on loopback: credentials are
// checked before a body is read, a stalled body is dropped, an aborted upload is logged as the client's
// leaving (499), never as an internal error.

import type { ServerType } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { serveNode } from "../../src/runtime/node-server.js";
import { ADMIN_TOKEN, buildTestApp, makeTeam, type TestApp } from "../support/app.js";
import { chunk, chunkedPost, rawClient } from "./raw-http.js";

interface Served {
  app: TestApp;
  port: number;
  lines: Record<string, unknown>[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function served(idleTimeoutMs = 60_000): Promise<Served> {
  const lines: Record<string, unknown>[] = [];
  const app = await buildTestApp({
    logger: createLogger("debug", (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
  });
  let server: ServerType | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serveNode(
      { fetch: app.memoria.app.fetch, port: 0, hostname: "127.0.0.1", idleTimeoutMs },
      (info) => resolve(info.port),
    );
  });
  cleanups.push(
    () =>
      new Promise<void>((done) => {
        server?.close(() => done());
        if (server && "closeAllConnections" in server) server.closeAllConnections();
        app.close();
      }),
  );
  return { app, port, lines };
}

describe("credentials before body", () => {
  it("answers a chunked upload with a wrong key 401 before its body ends, then closes the socket", async () => {
    const { port, lines } = await served();
    const client = await rawClient(port);
    client.socket.write(
      chunkedPost("/v1/documents", {
        authorization: "Bearer mem_wrong_key",
        "content-type": "application/json",
      }),
    );
    client.socket.write(chunk(`{"title": "t", "content": "`));
    // The body keeps coming; the answer must not wait for its end.
    let sent = 0;
    const trickle = setInterval(() => {
      if (client.socket.destroyed) return;
      client.socket.write(chunk("x".repeat(1024)));
      sent += 1;
    }, 20);
    try {
      const head = await client.until(/\r\n\r\n/);
      expect(head).toMatch(/^HTTP\/1\.1 401 /);
      expect(head.toLowerCase()).toContain("www-authenticate: bearer");
      expect(head.toLowerCase()).toContain("connection: close");
      await client.closed;
    } finally {
      clearInterval(trickle);
    }
    // Closed while the client was still sending: far less than the document limit ever went out.
    expect(sent * 1024).toBeLessThan(5 * 1024 * 1024);
    const request = lines.find((l) => l.message === "request");
    expect(request).toMatchObject({ route: "/v1/documents", status: 401 });
  });

  it("still takes a chunked upload with a good key", async () => {
    const { app, port } = await served();
    const { apiKey } = await makeTeam(app);
    const client = await rawClient(port);
    client.socket.write(
      chunkedPost("/v1/documents", { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }),
    );
    client.socket.write(chunk(`{"title": "chunked", "content": "`));
    for (let i = 0; i < 20; i++) client.socket.write(chunk("word ".repeat(200)));
    client.socket.write(chunk(`"}`));
    client.socket.write("0\r\n\r\n");
    const head = await client.until(/\r\n\r\n/);
    expect(head).toMatch(/^HTTP\/1\.1 201 /);
    expect(head.toLowerCase()).not.toContain("connection: close");
    client.socket.destroy();
  });

  it("keeps the connection open after a request without a body", async () => {
    const { app, port } = await served();
    const { teamId } = await makeTeam(app);
    const client = await rawClient(port);
    client.socket.write(
      `POST /v1/teams/${teamId}/keys HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`,
    );
    const head = await client.until(/\r\n\r\n/);
    expect(head).toMatch(/^HTTP\/1\.1 201 /);
    expect(head.toLowerCase()).not.toContain("connection: close");
    client.socket.destroy();
  });

  it("refuses a declared Content-Length above the limit with 413 before the body", async () => {
    const { app, port } = await served();
    const { apiKey } = await makeTeam(app);
    const client = await rawClient(port);
    client.socket.write(
      `POST /v1/documents?title=big HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${apiKey}\r\n` +
        `content-type: text/plain\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\nsome`,
    );
    const head = await client.until(/\r\n\r\n/);
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    await client.closed;
  });
});

describe("idle request timeout", () => {
  it("drops a client that stops sending mid-body, and logs it as client-closed, not as an error", async () => {
    const { app, port, lines } = await served(300);
    const { apiKey } = await makeTeam(app);
    const client = await rawClient(port);
    client.socket.write(
      chunkedPost("/v1/documents", { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }),
    );
    client.socket.write(chunk(`{"title": "stalled", "content": "half of it`));
    // Then nothing: the server must end the connection on its own.
    await client.closed;
    expect(client.received()).toBe("");
    await expect.poll(() => lines.filter((l) => l.message === "request").length).toBe(2);
    const request = lines.filter((l) => l.message === "request")[1];
    expect(request).toMatchObject({ route: "/v1/documents", status: 499, level: "info" });
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
  });

  it("keeps a slow but steady upload whose pauses are each shorter than the timeout", async () => {
    const { app, port } = await served(400);
    const { apiKey } = await makeTeam(app);
    const client = await rawClient(port);
    client.socket.write(
      chunkedPost("/v1/documents", { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }),
    );
    client.socket.write(chunk(`{"title": "slow", "content": "`));
    // Ten pauses of 100 ms: a second in all, longer than the timeout, never idle for it.
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 100));
      client.socket.write(chunk("steady ".repeat(100)));
    }
    client.socket.write(chunk(`"}`));
    client.socket.write("0\r\n\r\n");
    expect(await client.until(/\r\n\r\n/)).toMatch(/^HTTP\/1\.1 201 /);
    client.socket.destroy();
  });

  it("keeps a socket whose answer takes longer than the idle timeout, keep-alive handling included", async () => {
    // Regression: the keep-alive listener took the idle timeout of a slow answer for a keep-alive timer and
    // destroyed the socket mid-answer (a long reindex or batch lost its answer, its work done).
    const { app, port } = await served(200);
    app.memoria.app.get("/slower-for-test", async (c) => {
      await new Promise((r) => setTimeout(r, 1200));
      return c.text("finished");
    });
    const res = await fetch(`http://127.0.0.1:${port}/slower-for-test`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("finished");
  });

  it("keeps a socket whose complete request is still being answered", async () => {
    const { app, port } = await served(200);
    // A request whose answer is slow to come; its socket is idle meanwhile. Added before any request.
    app.memoria.app.get("/slow-for-test", async (c) => {
      await new Promise((r) => setTimeout(r, 600));
      return c.text("done");
    });
    const client = await rawClient(port);
    client.socket.write("GET /slow-for-test HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
    expect(await client.until(/done/)).toMatch(/^HTTP\/1\.1 200 /);
    client.socket.destroy();
  });
});

describe("aborted uploads", () => {
  it("are logged once, as 499 client-closed at info, never as an unhandled 500", async () => {
    const { app, port, lines } = await served();
    const { apiKey } = await makeTeam(app);
    for (const type of ["application/json", "text/plain"]) {
      const client = await rawClient(port);
      client.socket.write(
        chunkedPost("/v1/documents?title=aborted", {
          authorization: `Bearer ${apiKey}`,
          "content-type": type,
        }),
      );
      client.socket.write(chunk(`{"title": "aborted", "content": "part`));
      await new Promise((r) => setTimeout(r, 50));
      client.socket.destroy();
    }
    await expect.poll(() => lines.filter((l) => l.status === 499).length).toBe(2);
    const uploads = lines.filter((l) => l.message === "request" && l.route === "/v1/documents");
    expect(uploads.map((l) => [l.status, l.level])).toEqual([
      [499, "info"],
      [499, "info"],
    ]);
    expect(lines.filter((l) => l.level === "error" || l.status === 500)).toEqual([]);
  });
});
