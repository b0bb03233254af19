// The Node entry as a user runs it: a real process, real environment, real HTTP on loopback.

import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/app.js";
import { finished, listening, startNode } from "../support/processes.js";

/** The Node entry's output, stdout and stderr together: the messages these tests look for go to either. */
async function exited(child: ReturnType<typeof startNode>): Promise<{ code: number | null; output: string }> {
  const exit = await finished(child);
  return { code: exit.code, output: exit.stdout + exit.stderr };
}

describe("the Node entry", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it("refuses to start in production without MEMORIA_MASTER_KEY, naming it", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { code, output } = await exited(startNode({ NODE_ENV: "production", MEMORIA_DB_URL: tmp.dbUrl }));
    expect(code).toBe(1);
    expect(output).toContain("MEMORIA_MASTER_KEY");
  });

  it("stops on a bad value with a message naming the variable", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const { code, output } = await exited(startNode({ PORT: "eighty", MEMORIA_DB_URL: tmp.dbUrl }));
    expect(code).toBe(1);
    expect(output).toContain("PORT");
  });

  it("starts with nothing configured, serves, and exits 0 on SIGTERM", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const child = startNode({ PORT: "0", MEMORIA_DB_URL: tmp.dbUrl });
    const done = exited(child);
    const port = await listening(child);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    child.kill("SIGTERM");
    const { code, output } = await done;
    expect(code).toBe(0);
    expect(output).toMatch(/WARNING: MEMORIA_MASTER_KEY is not set/);
  });

  it("serves the page from any working directory, not only the repository's", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    // Outside the repository tsx finds no tsconfig.json: the views must still render (regression: 500).
    const child = startNode({ PORT: "0", MEMORIA_DB_URL: tmp.dbUrl }, { cwd: tmp.dir });
    const done = exited(child);
    const port = await listening(child);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("Team key");
    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });
});
