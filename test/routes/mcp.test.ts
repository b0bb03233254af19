// POST /mcp end to end: the real MCP SDK client over real HTTP on a loopback port, against a real app over a
// real `:memory:` libSQL database. The tools must be the HTTP routes seen through MCP: the same schemas, the
// same answers, the same team scoping; bad input must come back as a tool result with `isError`, never as a
// protocol failure.

import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  entryAnswer,
  entryBody,
  entryIdInput,
  memoryAnswer,
  memoryInput,
  searchAnswer,
  searchQuery,
} from "../../src/routes/schemas.js";
import { addDocument, buildTestApp, makeTeam, type TestApp, type TestAppOptions } from "../support/app.js";
import { changesSinceMade } from "../support/audit.js";
import { keysOfEveryScope, makeKey } from "../support/keys.js";
import { expectError, expectOk, tickingClock } from "./contract.js";

type Entry = z.infer<typeof entryAnswer>["entry"];

interface FetchRecord {
  method: string;
  status: number;
}

interface Harness {
  app: TestApp;
  /** http://127.0.0.1:<port>/mcp */
  url: URL;
  /** A connected client sending `key` (no Authorization header when `key` is null), and `headers`. */
  connect(key: string | null, record?: FetchRecord[], headers?: Record<string, string>): Promise<Client>;
}

/**
 * Builds a fresh app and database, serves it on a loopback port, and runs `body`; closes every client, the
 * server and the app afterwards, whatever happens.
 */
async function withMcp<T>(body: (h: Harness) => Promise<T>, options: TestAppOptions = {}): Promise<T> {
  const app = await buildTestApp(options);
  const clients: Client[] = [];
  const server = serve({ fetch: app.memoria.app.fetch, port: 0, hostname: "127.0.0.1" });
  try {
    await new Promise<void>((resolve, reject) => {
      if (server.listening) return resolve();
      server.once("listening", () => resolve());
      server.once("error", reject);
    });
    const { port } = server.address() as AddressInfo;
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const harness: Harness = {
      app,
      url,
      async connect(key, record, headers = {}) {
        const client = new Client({ name: "memoria-test", version: "1" });
        const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
          const res = await fetch(input, init);
          record?.push({ method: init?.method ?? "GET", status: res.status });
          return res;
        };
        const transport = new StreamableHTTPClientTransport(url, {
          requestInit: {
            headers: { ...headers, ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
          },
          fetch: recordingFetch,
        });
        clients.push(client);
        await client.connect(transport);
        return client;
      },
    };
    return await body(harness);
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ("closeAllConnections" in server) server.closeAllConnections();
    });
    app.close();
  }
}

/** callTool with the plain CallToolResult shape (the SDK's union also admits a legacy `toolResult`). */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textAt(result: CallToolResult, index: number): string {
  const item = result.content[index];
  if (item?.type !== "text") throw new Error(`content[${index}] is not text: ${JSON.stringify(item)}`);
  return item.text;
}

/** Asserts a tool error: `isError`, and a non-empty text message, which it returns. */
function expectToolError(result: CallToolResult): string {
  expect(result.isError, `expected a tool error, got ${JSON.stringify(result)}`).toBe(true);
  const message = textAt(result, 0);
  expect(message.trim().length).toBeGreaterThan(0);
  return message;
}

async function remember(client: Client, args: Record<string, unknown>): Promise<Entry> {
  const result = await call(client, "remember", args);
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  const parsed = entryAnswer.parse(result.structuredContent);
  expect(JSON.parse(textAt(result, 0))).toEqual(parsed);
  return parsed.entry;
}

const inputJsonSchema = (schema: z.ZodType) =>
  // What McpServer lists: zod 4's own conversion, input side, draft-7 (sdk server/zod-json-schema-compat.js),
  // then through JSON on the wire.
  JSON.parse(JSON.stringify(z.toJSONSchema(schema, { io: "input", target: "draft-7" })));

describe("MCP tools/list", () => {
  it("lists exactly search, memory, remember and forget", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["forget", "memory", "remember", "search"]);
      for (const tool of tools) expect(tool.description?.length ?? 0).toBeGreaterThan(0);
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get("search")?.annotations?.readOnlyHint).toBe(true);
      expect(byName.get("memory")?.annotations?.readOnlyHint).toBe(true);
      expect(byName.get("forget")?.annotations?.destructiveHint).toBe(true);
    }));

  it("gives each tool the fields docs/api.md names, with the routes' integer bounds", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const { tools } = await client.listTools();
      const schema = (name: string) => {
        const tool = tools.find((t) => t.name === name);
        if (!tool) throw new Error(`no tool ${name}`);
        return tool.inputSchema as {
          type: string;
          properties: Record<string, { type?: unknown; minimum?: number; maximum?: number }>;
          required?: string[];
        };
      };

      const search = schema("search");
      expect(search.type).toBe("object");
      expect(Object.keys(search.properties).sort()).toEqual(["limit", "q"]);
      expect(search.required).toEqual(["q"]);
      expect(search.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });

      const memory = schema("memory");
      expect(Object.keys(memory.properties).sort()).toEqual(["budget", "project", "q"]);
      expect(memory.required ?? []).toEqual([]);
      expect(memory.properties.budget).toMatchObject({ type: "integer", minimum: 1, maximum: 100_000 });

      const rememberSchema = schema("remember");
      expect(Object.keys(rememberSchema.properties).sort()).toEqual([
        "body",
        "impact",
        "project",
        "title",
        "type",
      ]);
      expect(rememberSchema.required).toEqual(["title"]);

      const forget = schema("forget");
      expect(Object.keys(forget.properties)).toEqual(["id"]);
      expect(forget.required).toEqual(["id"]);
    }));

  it("lists the HTTP routes' own schemas as the tools' input schemas", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const { tools } = await client.listTools();
      const listed = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
      expect(listed.search).toEqual(inputJsonSchema(searchQuery));
      expect(listed.memory).toEqual(inputJsonSchema(memoryInput));
      expect(listed.remember).toEqual(inputJsonSchema(entryBody));
      expect(listed.forget).toEqual(inputJsonSchema(entryIdInput));
    }));
});

describe("MCP remember", () => {
  it("returns the stored entry, with nulls for what was not given, readable through HTTP", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const entry = await remember(client, { title: "Use libSQL for storage" });
      expect(entry).toMatchObject({
        title: "Use libSQL for storage",
        impact: null,
        project: null,
        type: null,
        body: null,
      });
      expect(entry.id.length).toBeGreaterThan(0);
      expect(new Date(entry.createdAt).toISOString()).toBe(entry.createdAt);

      const res = await app.request(`/v1/entries/${encodeURIComponent(entry.id)}`, { token: apiKey });
      expect((await expectOk(res, 200, entryAnswer)).entry).toEqual(entry);
    }));

  it("stores every field given, and an empty impact or body as none", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const full = await remember(client, {
        title: "Pin the SDK",
        impact: "Upgrades are deliberate.",
        project: "memoria",
        type: "decision",
        body: "Minor versions changed the transport twice.",
      });
      expect(full).toMatchObject({
        title: "Pin the SDK",
        impact: "Upgrades are deliberate.",
        project: "memoria",
        type: "decision",
        body: "Minor versions changed the transport twice.",
      });
      const empty = await remember(client, { title: "Blank extras", impact: "", body: "", project: null });
      expect(empty).toMatchObject({ impact: null, body: null, project: null, type: null });

      const res = await app.request(`/v1/entries/${encodeURIComponent(full.id)}`, { token: apiKey });
      expect((await expectOk(res, 200, entryAnswer)).entry).toEqual(full);
    }));
});

describe("MCP memory", () => {
  it("answers the rendered block first, with the remembered entry's line", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const entry = await remember(client, {
        title: "Retry webhooks with backoff",
        impact: "No more duplicate invoices",
        project: "billing",
        type: "incident",
      });
      const result = await call(client, "memory", { q: "webhooks" });
      expect(result.isError ?? false).toBe(false);
      const block = textAt(result, 0);
      const line = `- ${entry.id} ${entry.createdAt.slice(0, 10)} [billing/incident] Retry webhooks with backoff — No more duplicate invoices`;
      expect(block.split("\n")).toContain(line);
      expect(entry.createdAt.slice(0, 10)).toMatch(/^\d{4}-\d{2}-\d{2}$/);

      const answer = memoryAnswer.parse(result.structuredContent);
      expect(answer.text).toBe(block);
      expect(answer.items.map((i) => i.line)).toContain(line);
    }));

  it("renders '-' for a missing project or type and no dash without an impact", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const entry = await remember(client, { title: "Bare entry" });
      const block = textAt(await call(client, "memory", {}), 0);
      expect(block).toBe(`- ${entry.id} ${entry.createdAt.slice(0, 10)} [-/-] Bare entry`);
    }));

  it("answers exactly what GET /v1/memory answers for the same inputs", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      for (let i = 0; i < 8; i++) {
        await remember(client, {
          title: `Decision ${i} about caching`,
          impact: i % 2 === 0 ? `Cache layer ${i} changes` : null,
          project: i % 3 === 0 ? "api" : "web",
          type: "decision",
          body: "Longer detail about caches and their invalidation.",
        });
      }
      const cases: { args: Record<string, unknown>; query: string }[] = [
        { args: {}, query: "" },
        { args: { q: "caching" }, query: "q=caching" },
        {
          args: { q: "cache layer", project: "api", budget: 40 },
          query: "q=cache+layer&project=api&budget=40",
        },
        { args: { project: "web", budget: 1 }, query: "project=web&budget=1" },
      ];
      for (const { args, query } of cases) {
        const result = await call(client, "memory", args);
        expect(result.isError ?? false).toBe(false);
        const http = await expectOk(
          await app.request(`/v1/memory?${query}`, { token: apiKey }),
          200,
          memoryAnswer,
        );
        expect(result.structuredContent, query).toEqual(http);
        const { items: _items, text, ...accounting } = http;
        expect(JSON.parse(textAt(result, 1))).toEqual(accounting);
        expect(textAt(result, 0)).toBe(text === "" ? "(no entries)" : text);
        expect(Object.keys(accounting).sort()).toEqual([
          "budget",
          "candidates",
          "estimatedTokens",
          "included",
          "project",
          "query",
          "skipped",
        ]);
      }
    }));

  it("says so when there is nothing to remember", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const result = await call(client, "memory", {});
      expect(result.isError ?? false).toBe(false);
      expect(textAt(result, 0)).toBe("(no entries)");
      expect(result.structuredContent).toMatchObject({ candidates: 0, included: 0, skipped: 0, text: "" });
    }));
});

describe("MCP search", () => {
  it("finds a document added through HTTP, with the HTTP route's hits", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const doc = await addDocument(app, apiKey, {
        title: "Runbook",
        content: "# Failover\n\nPromote the replica when the primary's heartbeat stops.",
      });
      await addDocument(app, apiKey, { title: "Other", content: "Nothing about databases here." });
      const client = await connect(apiKey);
      const result = await call(client, "search", { q: "replica heartbeat", limit: 5 });
      expect(result.isError ?? false).toBe(false);
      const answer = searchAnswer.parse(result.structuredContent);
      expect(answer.query).toBe("replica heartbeat");
      expect(answer.hits[0]?.documentId).toBe(doc.id);
      expect(JSON.parse(textAt(result, 0))).toEqual(answer);

      const http = await expectOk(
        await app.request("/v1/search?q=replica+heartbeat&limit=5", { token: apiKey }),
        200,
        searchAnswer,
      );
      expect(answer.hits).toEqual(http.hits);
      expect(answer.corpus).toEqual(http.corpus);
    }));
});

describe("MCP forget", () => {
  it("deletes the entry; forgetting it again, or an unknown id, is a not_found tool error", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const entry = await remember(client, { title: "Short-lived" });

      const first = await call(client, "forget", { id: entry.id });
      expect(first.isError ?? false).toBe(false);
      expect(first.structuredContent).toEqual({ forgotten: entry.id });
      await expectError(
        await app.request(`/v1/entries/${encodeURIComponent(entry.id)}`, { token: apiKey }),
        404,
        "not_found",
      );
      expect(textAt(await call(client, "memory", {}), 0)).toBe("(no entries)");

      const again = call(client, "forget", { id: entry.id });
      await expect(again).resolves.toBeDefined();
      expect(expectToolError(await again)).toMatch(/^not_found: /);

      const unknown = await call(client, "forget", { id: "no-such-entry" });
      expect(expectToolError(unknown)).toMatch(/^not_found: /);
    }));
});

describe("MCP bad input is a tool error, not a protocol error", () => {
  // `field` is where the SDK's message says the problem is ("… at <field>").
  const cases: {
    name: string;
    tool: string;
    args: Record<string, unknown>;
    field: string;
    message?: RegExp;
  }[] = [
    { name: "search without q", tool: "search", args: {}, field: "q" },
    { name: "search with a blank q", tool: "search", args: { q: "   " }, field: "q" },
    { name: "search with limit 500", tool: "search", args: { q: "x", limit: 500 }, field: "limit" },
    { name: "search with limit 0", tool: "search", args: { q: "x", limit: 0 }, field: "limit" },
    {
      name: "search with a non-numeric limit",
      tool: "search",
      args: { q: "x", limit: "ten" },
      field: "limit",
    },
    {
      name: "search with q over 1024 bytes",
      tool: "search",
      args: { q: "é".repeat(513) },
      field: "q",
      message: /1024 bytes/,
    },
    {
      name: "memory with q over 1024 bytes",
      tool: "memory",
      args: { q: "a".repeat(1025) },
      field: "q",
      message: /1024 bytes/,
    },
    { name: "memory with budget 0", tool: "memory", args: { budget: 0 }, field: "budget" },
    { name: "memory with budget 1.5", tool: "memory", args: { budget: 1.5 }, field: "budget" },
    { name: "memory with budget 100001", tool: "memory", args: { budget: 100_001 }, field: "budget" },
    { name: "memory with a negative budget", tool: "memory", args: { budget: -5 }, field: "budget" },
    { name: "memory with project 'a b'", tool: "memory", args: { project: "a b" }, field: "project" },
    { name: "remember without a title", tool: "remember", args: {}, field: "title" },
    { name: "remember with a blank title", tool: "remember", args: { title: "  \t " }, field: "title" },
    { name: "remember with an empty title", tool: "remember", args: { title: "" }, field: "title" },
    {
      name: "remember with a 513-character title",
      tool: "remember",
      args: { title: "t".repeat(513) },
      field: "title",
    },
    {
      name: "remember with a bad project",
      tool: "remember",
      args: { title: "ok", project: "a/b" },
      field: "project",
    },
    {
      name: "remember with a 65-character type",
      tool: "remember",
      args: { title: "ok", type: "x".repeat(65) },
      field: "type",
    },
    { name: "remember with a non-string title", tool: "remember", args: { title: 42 }, field: "title" },
    { name: "forget with id ''", tool: "forget", args: { id: "" }, field: "id" },
    { name: "forget without an id", tool: "forget", args: {}, field: "id" },
  ];

  it.each(cases)("$name", ({ tool, args, field, message }) =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const pending = call(client, tool, args);
      await expect(pending).resolves.toBeDefined();
      const text = expectToolError(await pending);
      expect(text).toContain(`Invalid arguments for tool ${tool}`);
      expect(text).toMatch(new RegExp(` at ${field}$`, "m"));
      if (message) expect(text).toMatch(message);
      // Nothing was stored by a refused remember.
      const list = await app.request("/v1/entries", { token: apiKey });
      expect(((await list.json()) as { entries: unknown[] }).entries).toEqual([]);
    }),
  );

  it("accepts a 512-character title and a 1024-byte query (the limits themselves)", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const entry = await remember(client, { title: "t".repeat(512) });
      expect([...entry.title].length).toBe(512);
      const search = await call(client, "search", { q: "é".repeat(512) });
      expect(search.isError ?? false).toBe(false);
      const memory = await call(client, "memory", { q: "a".repeat(1024), budget: 100_000 });
      expect(memory.isError ?? false).toBe(false);
    }));

  it("answers an unknown tool name with an isError result (the SDK does not reject)", () =>
    // McpServer throws McpError(InvalidParams, "Tool … not found") inside its tools/call handler and turns
    // every McpError but UrlElicitationRequired into a tool error result, so the call resolves.
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const pending = call(client, "no_such_tool", {});
      await expect(pending).resolves.toBeDefined();
      expect(expectToolError(await pending)).toMatch(/no_such_tool not found/);
    }));
});

describe("MCP auth", () => {
  const expect401 = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    expect((error as Error).message).toMatch(/unauthorized/);
  };

  it("refuses to connect without Authorization", () =>
    withMcp(async ({ app, connect }) => {
      await makeTeam(app);
      await expect401(connect(null));
    }));

  it("refuses a malformed key", () =>
    withMcp(async ({ app, connect }) => {
      await makeTeam(app);
      await expect401(connect("not-a-team-key"));
    }));

  it("refuses a wrong secret for a real team id, and another team's key edited to this team's id", () =>
    withMcp(async ({ app, connect }) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await expect401(connect(`mem_${a.teamId}_${"x".repeat(43)}`));
      const bSecret = b.apiKey.slice(`mem_${b.teamId}_`.length);
      expect(`mem_${b.teamId}_${bSecret}`).toBe(b.apiKey);
      await expect401(connect(`mem_${a.teamId}_${bSecret}`));
      // The real keys still work.
      await connect(a.apiKey);
      await connect(b.apiKey);
    }));

  it("answers a raw POST /mcp without a key with 401 in the error envelope", () =>
    withMcp(async ({ url }) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      await expectError(res, 401, "unauthorized");
    }));
});

describe("MCP team scoping", () => {
  it("never shows team A's entries to team B, and B cannot forget them", () =>
    withMcp(async ({ app, connect }) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      const clientA = await connect(a.apiKey);
      const clientB = await connect(b.apiKey);
      const entry = await remember(clientA, { title: "Secret plan for caching", project: "alpha" });

      const memoryB = await call(clientB, "memory", { q: "caching", project: "alpha" });
      expect(memoryB.isError ?? false).toBe(false);
      expect(memoryB.structuredContent).toMatchObject({ candidates: 0, included: 0, text: "" });
      expect(textAt(memoryB, 0)).toBe("(no entries)");
      expect(JSON.stringify(memoryB)).not.toContain(entry.id);

      expect(expectToolError(await call(clientB, "forget", { id: entry.id }))).toMatch(/^not_found: /);

      const stillThere = await app.request(`/v1/entries/${encodeURIComponent(entry.id)}`, {
        token: a.apiKey,
      });
      expect((await expectOk(stillThere, 200, entryAnswer)).entry).toEqual(entry);
      const memoryA = await call(clientA, "memory", { q: "caching" });
      expect(textAt(memoryA, 0)).toContain(entry.id);
    }));
});

describe("MCP scopes", () => {
  it("lists every tool to every key, and refuses a tool above the key's scope without doing it", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey: admin } = await makeTeam(app);
      const keys = await keysOfEveryScope(app, admin);
      const entry = await remember(await connect(admin), { title: "Rotate the signing key monthly" });
      const reader = await connect(keys.read);
      expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "forget",
        "memory",
        "remember",
        "search",
      ]);
      expect((await call(reader, "search", { q: "signing" })).isError ?? false).toBe(false);
      expect((await call(reader, "memory", { q: "signing" })).isError ?? false).toBe(false);
      expect(expectToolError(await call(reader, "remember", { title: "Injected" }))).toBe(
        "forbidden: The remember tool needs a key with the write scope; this key's scope is read.",
      );
      expect(expectToolError(await call(reader, "forget", { id: entry.id }))).toBe(
        "forbidden: The forget tool needs a key with the admin scope; this key's scope is read.",
      );
      const writer = await connect(keys.write);
      await remember(writer, { title: "Written by an agent" });
      expect(expectToolError(await call(writer, "forget", { id: entry.id }))).toMatch(
        /^forbidden: The forget tool needs a key with the admin scope/,
      );
      const stillThere = await app.request(`/v1/entries/${encodeURIComponent(entry.id)}`, { token: admin });
      expect((await expectOk(stillThere, 200, entryAnswer)).entry).toEqual(entry);
      const forgot = await call(await connect(keys.admin), "forget", { id: entry.id });
      expect(forgot.isError ?? false).toBe(false);
    }));
});

describe("MCP audit trail", () => {
  it("records remember and forget under the key the agent holds, and nothing for search, memory or a refused tool", () =>
    withMcp(
      async ({ app, connect }) => {
        const { apiKey: admin } = await makeTeam(app);
        const agent = await makeKey(app, admin, "write", { name: "Coding agent" });
        const writer = await connect(agent.apiKey);
        const entry = await remember(writer, { title: "Prefer small pull requests" });
        await call(writer, "search", { q: "pull requests" });
        await call(writer, "memory", { q: "pull requests" });
        expectToolError(await call(writer, "forget", { id: entry.id }));
        expect((await call(await connect(admin), "forget", { id: entry.id })).isError ?? false).toBe(false);
        expect(await changesSinceMade(app, admin)).toEqual([
          { who: "key", action: "entry.forgotten", target: `entry ${entry.id}` },
          { who: "Coding agent", action: "entry.remembered", target: `entry ${entry.id}` },
          { who: "key", action: "key.made", target: `key ${agent.keyId}` },
        ]);
      },
      { clock: tickingClock() },
    ));
});

describe("MCP transport", () => {
  it("answers a raw GET /mcp with 405 and allow: POST", () =>
    withMcp(async ({ app, url }) => {
      const { apiKey } = await makeTeam(app);
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" },
      });
      expect(res.headers.get("allow")).toBe("POST");
      await expectError(res, 405, "method_not_allowed");
    }));

  it("answers a raw DELETE /mcp with 405 too", () =>
    withMcp(async ({ app, url }) => {
      const { apiKey } = await makeTeam(app);
      const res = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${apiKey}` } });
      expect(res.headers.get("allow")).toBe("POST");
      await expectError(res, 405, "method_not_allowed");
    }));

  it("still works for the SDK client, which takes the 405 on its optional SSE GET as 'POST only'", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const record: FetchRecord[] = [];
      const client = await connect(apiKey, record);
      // The GET is fired without being awaited after the initialized notification.
      await expect.poll(() => record.some((r) => r.method === "GET")).toBe(true);
      expect(record.filter((r) => r.method === "GET")).toEqual([{ method: "GET", status: 405 }]);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(4);
      await remember(client, { title: "After the 405" });
      expect(
        record.filter((r) => r.method === "POST").every((r) => r.status === 200 || r.status === 202),
      ).toBe(true);
    }));

  it("runs 10 parallel remember calls through one client, all stored", () =>
    withMcp(async ({ app, connect }) => {
      const { apiKey } = await makeTeam(app);
      const client = await connect(apiKey);
      const entries = await Promise.all(
        Array.from({ length: 10 }, (_, i) => remember(client, { title: `Parallel ${i}`, type: "learning" })),
      );
      expect(new Set(entries.map((e) => e.id)).size).toBe(10);
      const list = await app.request("/v1/entries?limit=200", { token: apiKey });
      const stored = (await list.json()) as { entries: Entry[] };
      expect(list.status).toBe(200);
      expect(stored.entries).toHaveLength(10);
      expect(stored.entries.map((e) => e.id).sort()).toEqual(entries.map((e) => e.id).sort());
      const memory = memoryAnswer.parse(
        (await call(client, "memory", { budget: 100_000 })).structuredContent,
      );
      expect(memory.included).toBe(10);
    }));
});

/** A raw POST /mcp initialize with exactly these headers (node:http, so Host too can be anything). */
function rawInitialize(url: URL, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "origin-test", version: "1" },
    },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("MCP Origin (DNS rebinding)", () => {
  const initialize = {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  };
  const initBody = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "origin-test", version: "1" },
    },
  });

  it("refuses a foreign Origin with 403 forbidden, before the key is looked at", () =>
    withMcp(async ({ app, url }) => {
      const { apiKey } = await makeTeam(app);
      for (const key of [apiKey, null]) {
        const res = await fetch(url, {
          ...initialize,
          headers: {
            ...initialize.headers,
            origin: "http://evil.example.com",
            ...(key ? { authorization: `Bearer ${key}` } : {}),
          },
          body: initBody,
        });
        await expectError(res, 403, "forbidden");
      }
      const get = await fetch(url, {
        headers: { origin: "https://evil.example.com", authorization: `Bearer ${apiKey}` },
      });
      await expectError(get, 403, "forbidden");
    }));

  it("refuses what the conformance suite's rebinding check sends: a foreign Host with its own Origin", () =>
    withMcp(async ({ app, url }) => {
      const { apiKey } = await makeTeam(app);
      const rebound = await rawInitialize(url, {
        host: "evil.example.com",
        origin: "http://evil.example.com",
        authorization: `Bearer ${apiKey}`,
      });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body).error.code).toBe("forbidden");
      // The same request on the server's own loopback name is answered.
      const own = await rawInitialize(url, { origin: url.origin, authorization: `Bearer ${apiKey}` });
      expect(own.status, own.body).toBe(200);
      expect(JSON.parse(own.body).result.serverInfo.name).toBe("memoria");
    }));

  it("refuses an Origin of null, or one that is not an origin, and the own origin on another port", () =>
    withMcp(async ({ app, url }) => {
      const { apiKey } = await makeTeam(app);
      const otherPort = `http://127.0.0.1:${Number(url.port) === 1 ? 2 : 1}`;
      for (const origin of ["null", "not an origin", otherPort, "https://127.0.0.1.evil.example.com"]) {
        const res = await rawInitialize(url, { origin, authorization: `Bearer ${apiKey}` });
        expect(res.status, origin).toBe(403);
      }
    }));

  it("serves the SDK client sending its own loopback origin, and one without Origin", () =>
    withMcp(async ({ app, url, connect }) => {
      const { apiKey } = await makeTeam(app);
      const withOrigin = await connect(apiKey, undefined, { origin: url.origin });
      expect((await withOrigin.listTools()).tools.length).toBe(4);
      const localhost = await rawInitialize(url, {
        host: `localhost:${url.port}`,
        origin: `http://localhost:${url.port}`,
        authorization: `Bearer ${apiKey}`,
      });
      expect(localhost.status, localhost.body).toBe(200);
      const without = await connect(apiKey);
      expect((await without.listTools()).tools.length).toBe(4);
    }));

  it("serves an origin listed in MEMORIA_ALLOWED_ORIGINS, and still refuses others", () =>
    withMcp(
      async ({ app, url, connect }) => {
        const { apiKey } = await makeTeam(app);
        const allowed = await connect(apiKey, undefined, { origin: "https://app.example.com" });
        expect((await allowed.listTools()).tools.length).toBe(4);
        const other = await rawInitialize(url, {
          origin: "https://other.example.com",
          authorization: `Bearer ${apiKey}`,
        });
        expect(other.status).toBe(403);
      },
      { config: { allowedOrigins: ["https://app.example.com"] } },
    ));
});
