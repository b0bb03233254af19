// The Deno entry as `npm run start:deno` runs it: the deno dev dependency with the script's own arguments, a
// real environment, real HTTP on loopback, and SIGTERM to stop it.

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect } from "vitest";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { needs, outside } from "../support/outside.js";
import { finished, listening, startDeno } from "../support/processes.js";
import { startSqld } from "../support/sqld.js";

/** Deno's first start compiles the whole app; later ones take well under a second. */
const TIMEOUT_MS = 120_000;

function environment(dbUrl: string): Record<string, string> {
  return {
    PORT: "0",
    MEMORIA_DB_URL: dbUrl,
    MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
    MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
  };
}

function client(port: number) {
  return async (
    path: string,
    init: RequestInit & { json?: unknown; token?: string } = {},
  ): Promise<{ status: number; body: unknown }> => {
    const { json, token, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      ...rest,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

/**
 * About 3 MB of markdown in many sections: indexing its ~3,000 passages keeps the request in flight for a
 * while after its body has arrived, and no longer than the shutdown grace on a busy machine. (Deno's shutdown
 * cuts a request whose body is still arriving, so the body is sent whole before the signal.)
 */
function largeMarkdown(): string {
  const sections: string[] = [];
  for (let i = 0; sections.join("").length < 3_000_000 && i < 100_000; i++) {
    const paragraphs = Array.from(
      { length: 6 },
      (_, p) =>
        `Paragraph ${p} of section ${i} talks about harbour cranes, tide tables and the ferry timetable ` +
        `for pier ${i % 97}; the night shift logs every container moved and every delay longer than ` +
        `ten minutes, with the reason given by the crane operator on duty.`,
    );
    sections.push(`## Section ${i}\n\n${paragraphs.join("\n\n")}\n\n`);
  }
  return `# Harbour log\n\n${sections.join("")}`;
}

describe("the Deno entry", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  /** The entry started over a fresh database (with `extra` in its environment), and a team made on it. */
  async function withTeam(extra: Record<string, string> = {}) {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const child = startDeno({ ...environment(tmp.dbUrl), ...extra });
    cleanups.push(() => child.kill("SIGKILL"));
    const done = finished(child);
    const call = client(await listening(child));
    const team = await call("/v1/teams", { method: "POST", token: ADMIN_TOKEN, json: { name: "Acme" } });
    expect(team.status).toBe(201);
    const { apiKey } = team.body as { apiKey: string };
    return { child, done, call, apiKey };
  }

  needs(outside.deno).it(
    "serves teams, documents, search, entries, memory and MCP over HTTP, and exits 0 on SIGTERM",
    async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const child = startDeno(environment(tmp.dbUrl));
      cleanups.push(() => child.kill("SIGKILL"));
      const done = finished(child);
      const port = await listening(child);
      const call = client(port);

      expect(await call("/healthz")).toEqual({ status: 200, body: { ok: true } });

      const team = await call("/v1/teams", { method: "POST", token: ADMIN_TOKEN, json: { name: "Acme" } });
      expect(team.status).toBe(201);
      const { apiKey } = team.body as { apiKey: string };

      const doc = await call("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: {
          title: "Deploys",
          content: "# Deploys\n\nThe pelican pipeline deploys on Tuesdays after the freeze lifts.",
        },
      });
      expect(doc.status).toBe(201);
      const documentId = (doc.body as { document: { id: string } }).document.id;

      const found = await call(`/v1/search?${new URLSearchParams({ q: "pelican" })}`, { token: apiKey });
      expect(found.status).toBe(200);
      const hits = (found.body as { hits: { documentId: string; title: string }[] }).hits;
      expect(hits.map((h) => h.documentId)).toEqual([documentId]);
      expect(hits[0]?.title).toBe("Deploys");

      const entry = await call("/v1/entries", {
        method: "POST",
        token: apiKey,
        json: { title: "Move deploys to Wednesday", impact: "Tuesday freezes no longer block releases" },
      });
      expect(entry.status).toBe(201);

      const memory = await call("/v1/memory", { token: apiKey });
      expect(memory.status).toBe(200);
      const { items, text } = memory.body as { items: { line: string }[]; text: string };
      expect(items).toHaveLength(1);
      expect(items[0]?.line).toContain("Move deploys to Wednesday");
      expect(text).toContain(items[0]?.line);

      // The MCP endpoint, through the SDK's own client: the same search over the same team.
      const mcp = new Client({ name: "memoria-deno-test", version: "1" });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
        }),
      );
      const tool = (await mcp.callTool({ name: "search", arguments: { q: "pelican" } })) as CallToolResult;
      await mcp.close();
      expect(tool.isError).toBeFalsy();
      expect(
        (tool.structuredContent as { hits: { documentId: string }[] }).hits.map((h) => h.documentId),
      ).toEqual([documentId]);

      expect(await call("/healthz")).toEqual({ status: 200, body: { ok: true } });

      child.kill("SIGTERM");
      const { code, stdout } = await done;
      expect(code).toBe(0);
      expect(stdout).toContain('"message":"shutting down","signal":"SIGTERM"');
    },
    TIMEOUT_MS,
  );

  needs(outside.deno, outside.sqld, outside.caCertificates).it(
    "as an embedded replica, pulls its copy on a worker thread once let begin, and answers from it with the primary gone",
    async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const sqld = await startSqld(tmp.dir);
      cleanups.push(() => void sqld.stop());
      const { child, done, call, apiKey } = await withTeam({
        MEMORIA_DB_URL: `file:${join(tmp.dir, "replica.db")}`,
        MEMORIA_DB_SYNC_URL: sqld.url,
      });
      // The copy waits 3 s for a wake's first read (none comes here): its log line comes after this listens.
      let printed = "";
      child.stdout?.on("data", (d: Buffer) => {
        printed += d.toString();
      });
      const doc = await call("/v1/documents", {
        method: "POST",
        token: apiKey,
        json: { title: "Tides", content: "# Tides\n\nThe spring tide floods the lower quay twice a month." },
      });
      expect(doc.status).toBe(201);
      for (let i = 0; !printed.includes("replica took over from its primary") && i < 300; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(printed).toContain("replica took over from its primary");
      sqld.signal("SIGKILL");
      await sqld.exited;
      // A document's content is read from storage: with the primary gone, from the copy alone.
      const documentId = (doc.body as { document: { id: string } }).document.id;
      const read = await call(`/v1/documents/${documentId}`, { token: apiKey });
      expect(read.status).toBe(200);
      expect((read.body as { document: { content: string } }).document.content).toContain("spring tide");
      child.kill("SIGTERM");
      expect((await done).code).toBe(0);
    },
    TIMEOUT_MS,
  );

  needs(outside.deno, outside.sqld).it(
    "serves over a real sqld, its writes and audit trail read again by a second start over the same server",
    async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const sqld = await startSqld(tmp.dir);
      cleanups.push(() => void sqld.stop());
      const env = environment(sqld.url);
      const first = startDeno(env);
      cleanups.push(() => first.kill("SIGKILL"));
      const firstDone = finished(first);
      let call = client(await listening(first));
      const team = await call("/v1/teams", { method: "POST", token: ADMIN_TOKEN, json: { name: "Acme" } });
      expect(team.status).toBe(201);
      const { apiKey } = team.body as { apiKey: string };
      const agent = await call("/v1/keys", {
        method: "POST",
        token: apiKey,
        json: { name: "Deno agent", scope: "write" },
      });
      expect(agent.status).toBe(201);
      const agentKey = (agent.body as { apiKey: string }).apiKey;
      const doc = await call("/v1/documents", {
        method: "POST",
        token: agentKey,
        json: { title: "Ferries", content: "# Ferries\n\nThe albatross ferry leaves pier nine at dawn." },
      });
      expect(doc.status).toBe(201);
      const documentId = (doc.body as { document: { id: string } }).document.id;
      first.kill("SIGTERM");
      expect((await firstDone).code).toBe(0);

      const second = startDeno(env);
      cleanups.push(() => second.kill("SIGKILL"));
      const secondDone = finished(second);
      call = client(await listening(second));
      // A cold team answers 503 while it loads from the server's rows.
      let found = await call(`/v1/search?${new URLSearchParams({ q: "albatross" })}`, { token: apiKey });
      for (let i = 0; found.status === 503 && i < 100; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found = await call(`/v1/search?${new URLSearchParams({ q: "albatross" })}`, { token: apiKey });
      }
      expect(found.status).toBe(200);
      expect((found.body as { hits: { documentId: string }[] }).hits.map((h) => h.documentId)).toEqual([
        documentId,
      ]);
      const trail = await call("/v1/audit", { token: apiKey });
      expect(trail.status).toBe(200);
      const events = (trail.body as { events: { action: string; actor: { name: string | null } }[] }).events;
      expect(events.slice(0, 2).map((e) => [e.action, e.actor.name])).toEqual([
        ["document.created", "Deno agent"],
        ["key.made", null],
      ]);
      // The team's making: its first key and its first owner's invite, by the admin token, in either order.
      expect(
        events
          .slice(2)
          .map((e) => e.action)
          .sort(),
      ).toEqual(["key.made", "member.invited"]);
      second.kill("SIGTERM");
      expect((await secondDone).code).toBe(0);
    },
    TIMEOUT_MS,
  );

  needs(outside.deno).it(
    "listens on 127.0.0.1 by default and makes its folder 0700 and its files 0600, as Node does",
    async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const dir = join(tmp.dir, "state");
      const child = startDeno(
        { PORT: "0", MEMORIA_DB_URL: `file:${join(dir, "memoria.db")}`, MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN },
        { umask: 0o022 },
      );
      cleanups.push(() => child.kill("SIGKILL"));
      const done = finished(child);
      const port = await listening(child);
      expect(await client(port)("/healthz")).toEqual({ status: 200, body: { ok: true } });
      child.kill("SIGTERM");
      const { code, stdout } = await done;
      expect(code).toBe(0);
      expect(stdout).toMatch(/"message":"listening","port":\d+,"host":"127\.0\.0\.1"/);
      const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
      expect(mode(dir)).toBe("700");
      expect(readdirSync(dir).sort()).toEqual(["master.key", "memoria.db"]);
      for (const name of readdirSync(dir)) expect([name, mode(join(dir, name))]).toEqual([name, "600"]);
    },
    TIMEOUT_MS,
  );

  needs(outside.deno).it(
    "searches a team large enough for the search threads on them, and stops the threads cleanly on SIGTERM",
    async () => {
      const { child, done, call, apiKey } = await withTeam({ MEMORIA_SEARCH_THREADS: "2" });
      const upload = await call(`/v1/documents?${new URLSearchParams({ title: "Harbour log" })}`, {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "text/markdown" },
        body: largeMarkdown(),
      });
      expect(upload.status).toBe(201);
      // Past the size below which a search stays on the server's thread (MIN_THREADED_PASSAGES).
      expect((upload.body as { document: { chunks: number } }).document.chunks).toBeGreaterThan(2000);

      // Eight at once, of more than two words: none is answered on the server's own thread.
      const questions = Array.from({ length: 8 }, (_, i) => `crane operator delay pier ${i + 3}`);
      const answers = await Promise.all(
        questions.map((q) => call(`/v1/search?${new URLSearchParams({ q })}`, { token: apiKey })),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect((answer.body as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
      }

      child.kill("SIGTERM");
      const { code, stderr } = await done;
      expect(code).toBe(0);
      expect(stderr).not.toMatch(/Uncaught|error:/i);
    },
    TIMEOUT_MS,
  );

  needs(outside.deno).it(
    "lets a request in flight at SIGTERM finish before exiting 0",
    async () => {
      const { child, done, call, apiKey } = await withTeam();

      const content = new TextEncoder().encode(largeMarkdown());
      // The signal goes once the whole body has been handed to the socket: the server is then working on it
      // (reading, chunking, sealing, indexing), not waiting for it.
      let sent = () => {};
      const whole = new Promise<void>((resolve) => {
        sent = resolve;
      });
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(content);
          controller.close();
          sent();
        },
      });
      const slow = call(`/v1/documents?${new URLSearchParams({ title: "Harbour log" })}`, {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "text/markdown" },
        body,
        duplex: "half",
      } as RequestInit);
      await whole;
      // Loopback delivers 3 MB in a few milliseconds; the work on it takes hundreds.
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill("SIGTERM");

      const answer = await slow;
      expect(answer.status).toBe(201);
      expect((answer.body as { document: { chunks: number } }).document.chunks).toBeGreaterThan(100);
      const { code, stdout } = await done;
      expect(code).toBe(0);
      // The upload was answered after the signal arrived, not before it.
      const lines = stdout.split("\n");
      const signalled = lines.findIndex((l) => l.includes('"message":"shutting down"'));
      const answered = lines.findIndex(
        (l) => l.includes('"route":"/v1/documents"') && l.includes('"status":201'),
      );
      expect(signalled).toBeGreaterThan(-1);
      expect(answered).toBeGreaterThan(signalled);
    },
    TIMEOUT_MS,
  );
});
