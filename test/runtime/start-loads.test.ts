// What a start loads (docs/decisions/0048-load-at-first-use.md): the Node entry, as `npm start` runs it, with a
// probe preloaded that lists the packages V8 has parsed (test/support/loaded-packages.mjs). Packages only
// some requests need are loaded by the first such request, not by the start nor by the hot routes.

import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { makeTeamOverHttp } from "../support/http-team.js";
import { postMcpInitialize } from "../support/mcp-initialize.js";
import { finished, listening, root, startNode } from "../support/processes.js";

const probe = join(root, "test/support/loaded-packages.mjs");

/** Packages a start (and searches, stats and documents) does without until a request needs them. */
const MCP_PACKAGES = ["@modelcontextprotocol/sdk", "ajv", "zod-to-json-schema"];

describe("what a start loads", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
  });

  it("the MCP SDK is not loaded until the first /mcp request", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const child = startNode(
      {
        PORT: "0",
        MEMORIA_DB_URL: tmp.dbUrl,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      },
      { preload: [probe] },
    );
    cleanups.push(() => child.kill("SIGKILL"));
    const done = finished(child);
    const base = `http://127.0.0.1:${await listening(child)}`;
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const loaded = async (): Promise<string[]> => {
      const before = stderr.length;
      child.kill("SIGUSR2");
      for (;;) {
        const line = stderr.slice(before).match(/\{"loadedPackages":.*\}\n/)?.[0];
        if (line) return (JSON.parse(line) as { loadedPackages: string[] }).loadedPackages;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    const { apiKey } = await makeTeamOverHttp(base, "Probe");
    const auth = { authorization: `Bearer ${apiKey}` };
    const note = await fetch(`${base}/v1/documents`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ title: "Laptops", content: "# Laptops\n\nEvery newcomer gets a laptop." }),
    });
    expect(note.status).toBe(201);
    for (const path of ["/v1/search?q=laptop", "/v1/stats", "/healthz", "/openapi.json"]) {
      expect((await fetch(`${base}${path}`, { headers: auth })).status).toBe(200);
    }
    const atStart = await loaded();
    expect(atStart).toContain("hono");
    for (const name of MCP_PACKAGES) expect(atStart).not.toContain(name);
    // malloc_trim's binding is loaded by the first trim after an idle collection (decision 0073).
    expect(atStart).not.toContain("koffi");

    const initialize = await postMcpInitialize(base, apiKey, "probe");
    expect(initialize.status).toBe(200);
    expect(
      ((await initialize.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
    ).toBe("memoria");
    const afterMcp = await loaded();
    for (const name of MCP_PACKAGES) expect(afterMcp).toContain(name);

    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });
});
