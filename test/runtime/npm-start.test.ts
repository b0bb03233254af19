// `npm start` as the README gives it, as a real process tree: npm, the shell it runs the script in (which
// execs) and the node process serving (scripts/start.mjs). A SIGTERM to npm's pid — what `kill <pid>` and most supervisors send — must
// reach the server, which drains what is in flight, releases its port and exits; nothing may be left behind.

import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { afterEach, expect, it } from "vitest";
import { ADMIN_TOKEN, tempDir } from "../support/app.js";
import { makeTeamOverHttp } from "../support/http-team.js";
import { needs, outside } from "../support/outside.js";
import { finished, listening, root } from "../support/processes.js";
import { halfSentUpload } from "../support/streams.js";

/** Every process whose parent chain leads to `pid`, read from /proc (Linux). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name sits in parentheses and may hold spaces: the fields after its ")" are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(name), ppid);
    } catch {
      // Exited while the folder was read.
    }
  }
  const found: number[] = [];
  const frontier = [pid];
  while (frontier.length > 0) {
    const parent = frontier.pop() as number;
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        frontier.push(child);
      }
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether this process can listen on `port` now, i.e. nothing holds it. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** `npm start` in the repository, as a newcomer runs it, over a fresh database in `tmp`. */
function npmStart(tmp: { dir: string; dbUrl: string }): ChildProcess {
  return spawn("npm", ["start"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: tmp.dir,
      npm_config_update_notifier: "false",
      PORT: "0",
      MEMORIA_DB_URL: tmp.dbUrl,
      MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

needs(outside.procfs).describe("npm start", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("a SIGTERM to npm's pid drains the server, releases its port and leaves no process behind", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const npm = npmStart(tmp);
    const exit = finished(npm);
    let log = "";
    npm.stdout?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    let tree: number[] = [];
    cleanups.push(() => {
      // Only what this test started: npm's own tree, by pid, if an assertion left any of it running.
      for (const pid of [npm.pid as number, ...tree]) if (alive(pid)) process.kill(pid, "SIGKILL");
    });
    const port = await listening(npm);
    tree = descendants(npm.pid as number);
    // Below npm at least the node process serving (a shell between them unless the script execs).
    expect(tree.length).toBeGreaterThanOrEqual(1);

    const base = `http://127.0.0.1:${port}`;
    const { apiKey } = await makeTeamOverHttp(base, "Signals");
    // In flight for certain: half the body sent before the signal, the rest once the server logged it.
    const bytes = new TextEncoder().encode(
      JSON.stringify({ title: "Ledger", content: "The quarterly ledger balances. ".repeat(200) }),
    );
    const { response: slow, sendRest } = halfSentUpload(`${base}/v1/documents`, apiKey, bytes);
    await new Promise((resolve) => setTimeout(resolve, 300));

    process.kill(npm.pid as number, "SIGTERM");
    expect(await waitFor(() => log.includes('"message":"shutting down"'), 15_000)).toBe(true);
    sendRest();
    const res = await slow;
    expect(res.status).toBe(201);

    await exit;
    expect(await waitFor(() => tree.every((pid) => !alive(pid)), 15_000)).toBe(true);
    expect(await portFree(port)).toBe(true);
  }, 60_000);

  it("hands the server glibc's fixed mmap threshold and a small young generation, as the image does", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const npm = npmStart(tmp);
    const exit = finished(npm);
    let tree: number[] = [];
    cleanups.push(() => {
      for (const pid of [npm.pid as number, ...tree]) if (alive(pid)) process.kill(pid, "SIGKILL");
    });
    await listening(npm);
    tree = descendants(npm.pid as number);
    // The process serving: the one of the tree with no child of its own.
    const servers = tree.filter((pid) => descendants(pid).length === 0);
    expect(servers).toHaveLength(1);
    const environment = readFileSync(`/proc/${servers[0]}/environ`, "utf8").split("\0");
    expect(environment).toContain("MALLOC_MMAP_THRESHOLD_=131072");
    expect(readFileSync(`${root}/Dockerfile`, "utf8")).toMatch(/^\s+MALLOC_MMAP_THRESHOLD_=131072 \\$/m);
    // The main isolate's semispaces (decision 0074): a flag of node's own command line.
    const commandLine = readFileSync(`/proc/${servers[0]}/cmdline`, "utf8").split("\0");
    expect(commandLine).toContain("--max-semi-space-size=2");
    expect(readFileSync(`${root}/Dockerfile`, "utf8")).toMatch(
      /^CMD \["node", "--max-semi-space-size=2", "dist\/runtime\/node\.js"\]$/m,
    );
    process.kill(npm.pid as number, "SIGTERM");
    await exit;
  }, 60_000);
});
