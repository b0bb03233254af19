// The Node entry as a user runs it: a real process, real environment, real HTTP on loopback.

import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/app.js";

const entry = join(import.meta.dirname, "../../src/runtime/node.ts");

function start(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", entry], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function finished(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

/** Resolves with the port once the server logs that it listens. */
function listening(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (d: Buffer) => {
      seen += d.toString();
      const match = seen.match(/"message":"listening","port":(\d+)/);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", (code) => reject(new Error(`exited with ${code} before listening: ${seen}`)));
  });
}

describe("the Node entry", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("refuses to start in production without MEMORIA_MASTER_KEY, naming it", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { code, output } = await finished(start({ NODE_ENV: "production", MEMORIA_DB_URL: tmp.dbUrl }));
    expect(code).toBe(1);
    expect(output).toContain("MEMORIA_MASTER_KEY");
  });

  it("stops on a bad value with a message naming the variable", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { code, output } = await finished(start({ PORT: "eighty", MEMORIA_DB_URL: tmp.dbUrl }));
    expect(code).toBe(1);
    expect(output).toContain("PORT");
  });

  it("starts with nothing configured, serves, and exits 0 on SIGTERM", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const child = start({ PORT: "0", MEMORIA_DB_URL: tmp.dbUrl });
    const done = finished(child);
    const port = await listening(child);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    child.kill("SIGTERM");
    const { code, output } = await done;
    expect(code).toBe(0);
    expect(output).toMatch(/WARNING: MEMORIA_MASTER_KEY is not set/);
  });
});
