// The README's shell blocks, run as a newcomer would. A real server is started the way `npm start` starts it,
// in a fresh folder (so `.memoria/` holds nothing yet), and each block runs with its commands exactly as
// written; the one change is the port: the server listens on a free loopback port, not 8787, which another
// program on a shared machine may hold. Every block is accounted for: run here, or run elsewhere and named.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { needs, outside } from "./support/outside.js";
import { finished, listening, root, startNode } from "./support/processes.js";

const readme = readFileSync(join(root, "README.md"), "utf8");
const shBlocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");

/** The README's shell blocks in order, each by the command it opens with. */
const BLOCKS = ["set-up", "quick start", "claude code", "inspector", "development"] as const;
function blockOf(kind: (typeof BLOCKS)[number]): string {
  return shBlocks[BLOCKS.indexOf(kind)] ?? "";
}

/** The tools memoria's MCP endpoint serves (docs/mcp.md). */
const TOOLS = ["forget", "memory", "remember", "search"];

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

/** A server as `npm start` runs it, in a fresh folder, and its port. */
async function freshServer(): Promise<{ dir: string; port: number }> {
  const dir = mkdtempSync(join(tmpdir(), "memoria-readme-"));
  const child = startNode({ PORT: "0" }, { cwd: dir });
  const exited = finished(child);
  cleanup = async () => {
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, port: await listening(child) };
}

/** `script` run by bash with only what a newcomer's shell has: PATH (node and curl on it) and HOME. */
function bash(script: string, dir: string, env: Record<string, string> = {}, timeout = 60_000) {
  return spawnSync("bash", ["--noprofile", "--norc", "-euo", "pipefail", "-c", script], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
    encoding: "utf8",
    timeout,
  });
}

/** The quick start's block on the server at `port`: the team key it printed. */
function quickStart(dir: string, port: number): { run: ReturnType<typeof bash>; key: string } {
  const script = blockOf("quick start").replaceAll("localhost:8787", `localhost:${port}`);
  expect(script.match(/localhost:\d+/g)?.every((at) => at === `localhost:${port}`)).toBe(true);
  const run = bash(script, dir);
  const key = run.stdout.match(/with the team key (mem_\S+)\n$/)?.[1] ?? "";
  return { run, key };
}

describe("the README's shell blocks", () => {
  it("are the set-up, the quick start, Claude Code's, the Inspector's and development's, in that order", () => {
    expect(shBlocks).toHaveLength(BLOCKS.length);
    expect(blockOf("set-up")).toMatch(/^npm install && npm start\b/m);
    expect(blockOf("set-up")).toMatch(/^npm test\b/m);
    expect(blockOf("quick start")).toMatch(/^ADMIN=\$\(cat \.memoria\/admin\.token\)$/m);
    expect(blockOf("claude code")).toMatch(/^AGENT_KEY=\$\(curl /);
    expect(blockOf("claude code")).toMatch(/^claude mcp add /m);
    expect(blockOf("inspector")).toMatch(/^npx -y -p node@22 /);
    expect(blockOf("development")).toMatch(/^npm run check\b/m);
  });

  // The set-up block's `npm install` and `npm test` are run as written by .ci/newcomer on a fresh clone with
  // nothing beside it, and `npm start` by test/runtime/npm-start.test.ts: a test of this suite cannot install
  // the suite or run itself.

  needs(outside.curl).it(
    "runs the quick start verbatim on a fresh folder: makes a team, creates and sends a note, and finds it",
    async () => {
      expect(blockOf("quick start")).toContain("> onboarding.md");
      const { dir, port } = await freshServer();
      const { run } = quickStart(dir, port);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(existsSync(join(dir, "onboarding.md"))).toBe(true);
      // curl prints each answer without a newline: the stored document, then the search answer, then the echo.
      const answers = run.stdout.indexOf('{"query"');
      const stored = JSON.parse(run.stdout.slice(0, answers));
      expect(stored.document).toMatchObject({ title: "Onboarding", format: "markdown", chunks: 1 });
      const found = JSON.parse(run.stdout.slice(answers, run.stdout.lastIndexOf("}") + 1));
      expect(found.hits.map((h: { title: string }) => h.title)).toEqual(["Onboarding"]);
      expect(found.hits[0].snippet).toContain("<mark>laptop</mark>");
      expect(run.stdout).toMatch(
        /Sign in at http:\/\/localhost:\d+\/ with the team key mem_t[a-z0-9]+_\S+\n$/,
      );
    },
    120_000,
  );

  // Claude Code is not on this machine (it is no dependency of memoria's): what its command configures — the
  // transport, the URL and the header, read out of the block — is driven by the MCP SDK's own client instead.
  needs(outside.curl).it(
    "serves the MCP tools to a client given exactly Claude Code's transport, URL and header",
    async () => {
      const block = blockOf("claude code");
      const parsed = block.match(/--transport (\S+) memoria (\S+) --header "([^"]+)"/);
      expect(parsed).not.toBeNull();
      const [, transport, url, header] = parsed ?? [];
      expect(transport).toBe("http");
      const { dir, port } = await freshServer();
      const { key } = quickStart(dir, port);
      expect(key).toMatch(/^mem_/);
      // The block's lines before `claude mcp add`, as written, with the quick start's $KEY: the agent's key.
      const makeKey = block
        .slice(0, block.indexOf("claude mcp add"))
        .replaceAll("localhost:8787", `localhost:${port}`);
      const made = bash(`${makeKey}\necho "$AGENT_KEY"`, dir, { KEY: key });
      expect(made.stderr).toBe("");
      const agentKey = made.stdout.trim();
      expect(agentKey).toMatch(/^mem_t[a-z0-9]+_\S+$/);
      expect(agentKey).not.toBe(key);
      const [name, value] = (header ?? "").replace("$AGENT_KEY", agentKey).split(/:\s*/, 2);
      const client = new Client({ name: "readme", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(
          new URL((url ?? "").replace("localhost:8787", `localhost:${port}`)),
          {
            requestInit: { headers: { [name ?? ""]: value ?? "" } },
          },
        ),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
        const answer = await client.callTool({ name: "search", arguments: { q: "laptop" } });
        expect(JSON.stringify(answer.structuredContent)).toContain("Onboarding");
        // The agent's key is `write`: it remembers, and cannot forget.
        const remembered = await client.callTool({
          name: "remember",
          arguments: { title: "Laptops on day one" },
        });
        expect(remembered.isError ?? false).toBe(false);
        const id = (remembered.structuredContent as { entry: { id: string } }).entry.id;
        const forgot = await client.callTool({ name: "forget", arguments: { id } });
        expect(forgot.isError).toBe(true);
        expect(JSON.stringify(forgot.content)).toContain("needs a key with the admin scope");
        // The audit trail names the agent's key by the name the block gave it.
        const trail = await fetch(`http://localhost:${port}/v1/audit`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const { events } = (await trail.json()) as {
          events: { action: string; actor: { name: string | null }; target?: { id: string } }[];
        };
        expect(events[0]).toMatchObject({
          action: "entry.remembered",
          actor: { name: "Claude Code" },
          target: { id },
        });
      } finally {
        await client.close();
      }
    },
    120_000,
  );

  // The block as printed opens the Inspector's web page, which waits for a person; in its CLI mode (`--cli`
  // before the printed flags, one method after them) the same command connects and lists the tools. npx
  // fetches Node 22 and the Inspector from the npm registry, as it does for a reader.
  needs(outside.curl).it(
    "lists the MCP tools through MCP Inspector, with the block's own flags",
    async (ctx) => {
      const { dir, port } = await freshServer();
      const { key } = quickStart(dir, port);
      const command = blockOf("inspector")
        .replace(/\\\n\s*/g, "")
        .replace("mcp-inspector ", "mcp-inspector --cli ")
        .replaceAll("localhost:8787", `localhost:${port}`)
        .trim();
      const run = bash(
        `${command} --method tools/list`,
        dir,
        { KEY: key, npm_config_cache: npmCache() },
        240_000,
      );
      if (run.status !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET/.test(run.stderr))
        ctx.skip(`npx could not reach the npm registry to fetch the Inspector: ${run.stderr.split("\n")[0]}`);
      expect(run.status, run.stderr).toBe(0);
      const listed = JSON.parse(run.stdout) as { tools: { name: string }[] };
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    },
    300_000,
  );

  // `npm test` is this suite (CI runs it twice: .ci/run), and `npm run bench` takes many minutes and prints
  // figures for a person to read (docs/performance.md); the other two run here as written.
  it("runs npm run check as written, and it passes", () => {
    const line = blockOf("development")
      .split("\n")
      .find((l) => l.startsWith("npm run check"));
    const run = bash((line ?? "").replace(/\s*#.*$/, ""), root, { HOME: process.env.HOME ?? root }, 240_000);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("biome check");
  }, 300_000);

  it("runs npm run eval as written on a clone with no collection beside it: exit 1, saying where it goes", () => {
    const line = blockOf("development")
      .split("\n")
      .find((l) => l.startsWith("npm run eval"));
    const empty = mkdtempSync(join(tmpdir(), "memoria-no-eval-"));
    try {
      const run = bash((line ?? "").replace(/\s*#.*$/, ""), root, {
        HOME: process.env.HOME ?? root,
        MEMORIA_EVAL_DIR: empty,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`npm run eval: no collection at ${join(empty, "cranfield")}.`);
      expect(run.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 120_000);

  needs(outside.cranfield).it(
    "runs npm run eval as written: memoria over HTTP ranks Cranfield above the plain FTS5 floor",
    () => {
      const line = blockOf("development")
        .split("\n")
        .find((l) => l.startsWith("npm run eval"));
      const evalDir = process.env.MEMORIA_EVAL_DIR;
      const env = { HOME: process.env.HOME ?? root, ...(evalDir ? { MEMORIA_EVAL_DIR: evalDir } : {}) };
      const run = bash((line ?? "").replace(/\s*#.*$/, ""), root, env, 240_000);
      expect(run.status, run.stderr).toBe(0);
      const ndcg = (label: string) =>
        Number(run.stdout.match(new RegExp(`^${label}.*?nDCG@10 (\\d\\.\\d+)`, "m"))?.[1] ?? Number.NaN);
      const floor = ndcg("plain FTS5 OR");
      const memoria = ndcg("memoria \\(feedback on");
      expect(floor).toBeGreaterThan(0.3);
      expect(memoria).toBeGreaterThan(floor);
    },
    300_000,
  );
});

/** npm's cache as this process has it, so npx finds what it fetched before (HOME is the fresh folder). */
function npmCache(): string {
  return (
    process.env.npm_config_cache ??
    spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim()
  );
}
