// The container image's start command, run here as the image runs it: the Dockerfile's own CMD, from a
// directory laid out like the image's /app (package.json, node_modules, dist/ bundled by the build script),
// with the Dockerfile's own environment. Docker itself does not run on this machine; what the image adds
// around the command (a base image, a user, a volume) is checked by reading the Dockerfile.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { MIN_THREADED_PASSAGES } from "../../src/runtime/search-threads.js";
import { containerEnv } from "../../src/runtime/worker/container.js";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { GIT_MV_HTML, printPdf, scratchDir, zip } from "../support/files.js";
import { makeTeamOverHttp } from "../support/http-team.js";
import { postMcpInitialize } from "../support/mcp-initialize.js";
import { needs, outside } from "../support/outside.js";
import { listening } from "../support/processes.js";
import { halfSentUpload } from "../support/streams.js";

const root = join(import.meta.dirname, "../..");
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));
/** The final stage: what runs. */
const finalStage = instructions.slice(instructions.findLastIndex((line) => line.startsWith("FROM ")));
const execForm = (instruction: string, keyword: string): string[] =>
  JSON.parse(instruction.slice(keyword.length).trim()) as string[];

const cmd = execForm(finalStage.find((line) => line.startsWith("CMD ")) ?? "CMD []", "CMD");
const healthcheck = execForm(
  (finalStage.find((line) => line.startsWith("HEALTHCHECK ")) ?? "").replace(/^HEALTHCHECK .*?CMD /, "CMD "),
  "CMD",
);
/** The final stage's ENV, as `KEY=value` pairs. */
const imageEnv: Record<string, string> = Object.fromEntries(
  finalStage
    .filter((line) => line.startsWith("ENV "))
    .flatMap((line) => [...line.slice(4).matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])),
);

describe("the Dockerfile", () => {
  it("runs on node:20-slim, installs runtime dependencies only, as a non-root user", () => {
    expect(finalStage[0]).toMatch(/^FROM node:20-slim\b/);
    expect(finalStage.some((line) => /^RUN npm ci .*--omit=dev/.test(line))).toBe(true);
    const user = finalStage
      .find((line) => line.startsWith("USER "))
      ?.slice(5)
      .trim();
    expect(user).toBeTruthy();
    expect(user).not.toMatch(/^(root|0)$/);
  });

  it("starts node itself in exec form, so SIGTERM reaches memoria", () => {
    expect(cmd[0]).toBe("node");
    expect(cmd.length).toBeGreaterThan(1);
  });

  it("checks health on /healthz with the PORT the environment gives", () => {
    expect(healthcheck[0]).toBe("node");
    expect(healthcheck.join(" ")).toContain("/healthz");
    expect(healthcheck.join(" ")).toContain("process.env.PORT");
    expect(imageEnv.PORT).toBeTruthy();
    expect(imageEnv.NODE_ENV).toBe("production");
  });

  it("listens on every interface, as a published port needs, and the Worker keeps it so", () => {
    expect(imageEnv.MEMORIA_HOST).toBe("0.0.0.0");
    // The Worker reaches its containers from outside them: whatever its own vars say, they listen on 0.0.0.0.
    expect(containerEnv({ MEMORIA_DB_URL: "libsql://db.example" }).MEMORIA_HOST).toBe("0.0.0.0");
    expect(containerEnv({ MEMORIA_HOST: "127.0.0.1" }).MEMORIA_HOST).toBe("0.0.0.0");
  });
});

describe("the image's start command", () => {
  let app: ReturnType<typeof tempDir>;

  beforeAll(() => {
    app = tempDir();
    // /app as the image has it: the package, its dependencies, and dist/ from the build script.
    cpSync(join(root, "package.json"), join(app.dir, "package.json"));
    symlinkSync(join(root, "node_modules"), join(app.dir, "node_modules"), "dir");
    execFileSync(process.execPath, [join(root, "scripts/build.mjs"), "--outdir", join(app.dir, "dist")], {
      cwd: root,
      stdio: "pipe",
    });
    mkdirSync(join(app.dir, "data"));
  }, 120_000);
  afterAll(() => app?.cleanup());

  /**
   * The image's command on a database of its own under /data (each run has a master key of its own), with
   * variables of the test's on top.
   */
  function run(port = 0, database = "memoria.db", extraEnv: Record<string, string> = {}): ChildProcess {
    const [command = "node", ...args] = cmd;
    return spawn(command === "node" ? process.execPath : command, args, {
      cwd: app.dir,
      env: {
        PATH: process.env.PATH ?? "",
        ...imageEnv,
        PORT: String(port),
        MEMORIA_DB_URL: `file:${join(app.dir, "data", database)}`,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
  }

  function exited(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  }

  it("serves /healthz on 0.0.0.0, and the HEALTHCHECK command says healthy", async () => {
    const child = run();
    const exit = exited(child);
    let log = "";
    child.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    try {
      const port = await listening(child);
      expect(log).toMatch(/"message":"listening","port":\d+,"host":"0\.0\.0\.0"/);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
      const [command = "node", ...args] = healthcheck;
      const probe = spawn(command === "node" ? process.execPath : command, args, {
        env: { PATH: process.env.PATH ?? "", PORT: String(port) },
        stdio: "ignore",
      });
      expect(await exited(probe)).toBe(0);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exit).toBe(0);
  }, 60_000);

  it("runs its workers and its lazily loaded parts from the bundle: chunk and extract workers, a threaded search, front matter, /mcp", async () => {
    // Each of these is a file of dist/ the server finds only when first needed: the worker entries beside
    // node.js (found from the bundled pool's own URL), the DOCX reader and the MCP server (dynamic imports).
    // Two search threads whatever the machine's cores: on one core there would be none to start.
    const child = run(0, "bundle.db", { MEMORIA_SEARCH_THREADS: "2" });
    const exit = exited(child);
    try {
      const base = `http://127.0.0.1:${await listening(child)}`;
      const team = await fetch(`${base}/v1/teams`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Bundle" }),
      });
      const { apiKey } = (await team.json()) as { apiKey: string };
      const auth = { authorization: `Bearer ${apiKey}` };

      // Past the inline bound: chunked on a worker of the pool. 3,000 passages puts the team past
      // MIN_THREADED_PASSAGES, so a question of several words is searched on a search thread.
      const content = Array.from(
        { length: 3000 },
        (_, i) => `## Pier ${i}\n\nThe *ferry* leaves the harbour at ${i} past the tide.`,
      ).join("\n\n");
      const doc = { title: "Harbour", content, format: "markdown" as const };
      const stored = await fetch(`${base}/v1/documents`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(doc),
      });
      expect(stored.status).toBe(201);
      const { document } = (await stored.json()) as { document: { chunks: number } };
      expect(document.chunks).toBe(chunkDocument(doc).length);
      expect(document.chunks).toBeGreaterThanOrEqual(MIN_THREADED_PASSAGES);

      const found = await fetch(`${base}/v1/search?q=${encodeURIComponent("ferry leaves harbour 2999")}`, {
        headers: auth,
      });
      expect(found.status).toBe(200);
      const { hits } = (await found.json()) as { hits: { heading: string }[] };
      expect(hits[0]?.heading).toBe("Pier 2999");

      // The front matter parsers are a chunk of their own, loaded with the first markdown document: its YAML
      // and TOML titles are read there, not the first heading.
      for (const [content, title] of [
        [
          "---\ntitle: Tide tables\ntags: [harbour]\n---\n# Heading instead\n\nLow water at noon.",
          "Tide tables",
        ],
        ["+++\ntitle = 'Mooring rules'\n+++\n# Heading instead\n\nTie up at the east pier.", "Mooring rules"],
      ]) {
        const fronted = await fetch(`${base}/v1/documents`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ content, format: "markdown" }),
        });
        expect(fronted.status).toBe(201);
        expect(((await fronted.json()) as { document: { title: string } }).document.title).toBe(title);
      }

      const marker = "bundledquokkaclause";
      const docx = zip([
        {
          name: "word/document.xml",
          data: Buffer.from(
            `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>the ${marker} holds</w:t></w:r></w:p></w:body></w:document>`,
          ),
        },
      ]);
      const extracted = await fetch(`${base}/v1/documents?title=Contract`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        },
        body: docx as Uint8Array<ArrayBuffer>,
      });
      expect(extracted.status).toBe(201);
      const byMarker = await fetch(`${base}/v1/search?q=${marker}`, { headers: auth });
      expect(((await byMarker.json()) as { hits: { title: string }[] }).hits[0]?.title).toBe("Contract");

      const mcp = await postMcpInitialize(base, apiKey);
      expect(mcp.status).toBe(200);
      expect(await mcp.text()).toContain('"serverInfo":{"name":"memoria"');
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exit).toBe(0);
  }, 60_000);

  needs(outside.chromium, outside.gitManuals).it(
    "reads a PDF printed by Chromium on the bundle's extract worker, PDF.js loaded from its own chunk",
    async () => {
      const scratch = scratchDir();
      const child = run(0, "pdf.db");
      const exit = exited(child);
      try {
        const pdf = await printPdf(GIT_MV_HTML, join(scratch.dir, "git-mv.pdf"), { outline: true });
        const base = `http://127.0.0.1:${await listening(child)}`;
        const { apiKey } = await makeTeamOverHttp(base, "Manuals");
        const auth = { authorization: `Bearer ${apiKey}` };
        const stored = await fetch(`${base}/v1/documents`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/pdf" },
          body: pdf as Uint8Array<ArrayBuffer>,
        });
        expect(stored.status).toBe(201);
        expect(((await stored.json()) as { document: { title: string } }).document.title).toBe("git-mv(1)");
        const found = await fetch(`${base}/v1/search?q=${encodeURIComponent("rename symlink destination")}`, {
          headers: auth,
        });
        expect(((await found.json()) as { hits: { title: string }[] }).hits[0]?.title).toBe("git-mv(1)");
      } finally {
        child.kill("SIGTERM");
        scratch.remove();
      }
      expect(await exit).toBe(0);
    },
    120_000,
  );

  it("lets a request in flight at SIGTERM finish, then exits 0", async () => {
    const child = run();
    const exit = exited(child);
    let log = "";
    child.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    const port = await listening(child);
    const base = `http://127.0.0.1:${port}`;
    const team = await fetch(`${base}/v1/teams`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Shutdown" }),
    });
    const { apiKey } = (await team.json()) as { apiKey: string };
    // The request is in flight for certain: half its body is sent, the signal given and logged, and only then
    // the rest. Its work (chunked on the pool's worker, sealed, stored) all comes after the signal, so it is
    // kept small enough to finish within SHUTDOWN_GRACE_MS on a busy machine.
    const content = Array.from(
      { length: 500 },
      (_, i) =>
        `## Section ${i}\n\n${"The quarterly ledger balances once every account is reconciled. ".repeat(15)}`,
    ).join("\n\n");
    const bytes = new TextEncoder().encode(JSON.stringify({ title: "Ledger", content }));
    const { response: slow, sendRest } = halfSentUpload(`${base}/v1/documents`, apiKey, bytes);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGTERM");
    while (!log.includes('"message":"shutting down"'))
      await new Promise((resolve) => setTimeout(resolve, 20));
    sendRest();
    const res = await slow;
    expect(res.status).toBe(201);
    expect(((await res.json()) as { document: { chunks: number } }).document.chunks).toBeGreaterThan(100);
    expect(await exit).toBe(0);
    // The signal came while the write was in flight: the server said it was shutting down before it logged
    // the write's answer.
    const lines = log.split("\n");
    const stopping = lines.findIndex((line) => line.includes('"message":"shutting down"'));
    const answered = lines.findIndex(
      (line) => line.includes('"route":"/v1/documents"') && line.includes('"status":201'),
    );
    expect(stopping).toBeGreaterThanOrEqual(0);
    expect(answered).toBeGreaterThan(stopping);
  }, 60_000);
});
