// Nothing readable reaches a log line: not a passage, not a title, not a search query, not the text of a
// malformed body, not the message of an unexpected error.

import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { ADMIN_TOKEN, buildTestApp } from "../support/app.js";

const secretWords = ["zanzibarquokka", "plutoniumtulip", "oxbowlantern"];

describe("logs", () => {
  it("carry route patterns, statuses and ids, never team content or queries", async () => {
    const lines: string[] = [];
    const test = await buildTestApp({
      config: { cronToken: null, maxDocumentBytes: 10_000, catchupMs: 0 },
      logger: createLogger("debug", (line) => lines.push(line)),
    });
    const { memoria, storage } = test;
    const json = (token: string, body: unknown) => ({
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const team = (await (
      await memoria.app.request("/v1/teams", json(ADMIN_TOKEN, { name: "Oxbowlantern" }))
    ).json()) as {
      apiKey: string;
    };
    const key = team.apiKey;
    const doc = (await (
      await memoria.app.request(
        "/v1/documents",
        json(key, {
          title: "Zanzibarquokka plan",
          content: "The plutoniumtulip ledger.",
          path: ["Oxbowlantern"],
        }),
      )
    ).json()) as { document: { id: string } };
    await memoria.app.request(`/v1/search?q=${encodeURIComponent("zanzibarquokka plutoniumtulip")}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await memoria.app.request(
      "/v1/documents",
      json(key, '{"title": "zanzibarquokka", "content": oxbowlantern'),
    );
    await memoria.app.request(
      "/v1/documents",
      json(key, { title: "x", content: "plutoniumtulip ".repeat(1000) }),
    );
    await memoria.app.request(`/v1/search?q=${encodeURIComponent("oxbowlantern ".repeat(200))}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    // Entries, working memory and an MCP tool call carry the same words in every field they have.
    await memoria.app.request(
      "/v1/entries",
      json(key, {
        title: "Zanzibarquokka decision",
        impact: "plutoniumtulip",
        project: "oxbowlantern",
        type: "zanzibarquokka",
        body: "oxbowlantern",
      }),
    );
    await memoria.app.request(`/v1/memory?q=plutoniumtulip&project=oxbowlantern`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const mcp = await memoria.app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "memory", arguments: { q: "zanzibarquokka", project: "oxbowlantern" } },
      }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain("Zanzibarquokka decision");
    // A tampered row: its error is logged, and the log says which kind of failure, not what the row held.
    await storage.client.execute({ sql: "UPDATE documents SET content = x'00'", args: [] });
    const unreadable = await memoria.app.request(`/v1/documents/${doc.document.id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(unreadable.status).toBe(500);
    // The access log writes each request's line after its answer, in the check phase.
    await new Promise((resolve) => setImmediate(resolve));

    expect(lines.length).toBeGreaterThan(5);
    const all = lines.join("\n").toLowerCase();
    for (const word of secretWords) expect(all).not.toContain(word);
    expect(all).not.toContain(key.toLowerCase());
    // The request lines are there and say what happened.
    const requests = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === "request");
    expect(requests.map((r) => r.route)).toEqual(
      expect.arrayContaining(["/v1/search", "/v1/memory", "/mcp"]),
    );
    expect(requests.map((r) => r.status)).toEqual(expect.arrayContaining([201, 200, 400, 413, 500]));
    expect(lines.some((l) => l.includes("sealed row failed to open"))).toBe(true);
    test.close();
  });
});
