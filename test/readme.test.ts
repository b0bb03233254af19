// The README's quick start, run as a newcomer would: a real server started the way `npm start` starts it, in
// a fresh folder (so `.memoria/` holds nothing yet), then the README's second `sh` block run by bash with
// its commands exactly as written. The one change is the port: the server listens on a free loopback port,
// not 8787, which another program on a shared machine may hold.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { needs, outside } from "./support/outside.js";
import { finished, listening, root, startNode } from "./support/processes.js";

const readme = readFileSync(join(root, "README.md"), "utf8");
const shBlocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

describe("the README's quick start", () => {
  it("starts with npm install && npm start, and npm test", () => {
    expect(shBlocks[0]).toMatch(/^npm install && npm start\b/m);
    expect(shBlocks[0]).toMatch(/^npm test\b/m);
  });

  needs(outside.curl).it(
    "runs verbatim on a fresh folder: makes a team, creates and sends a note, and finds it",
    async () => {
      const block = shBlocks[1] ?? "";
      expect(block).toContain("> onboarding.md");
      const dir = mkdtempSync(join(tmpdir(), "memoria-readme-"));
      const child = startNode({ PORT: "0" }, { cwd: dir });
      const exited = finished(child);
      cleanup = async () => {
        child.kill("SIGTERM");
        await exited;
        rmSync(dir, { recursive: true, force: true });
      };
      const port = await listening(child);
      const script = block.replaceAll("localhost:8787", `localhost:${port}`);
      expect(script.match(/localhost:\d+/g)?.every((at) => at === `localhost:${port}`)).toBe(true);
      // Only what a newcomer's shell has: PATH (node and curl on it) and HOME; nothing of this test process.
      const run = spawnSync("bash", ["--noprofile", "--norc", "-euo", "pipefail", "-c", script], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOME: dir },
        encoding: "utf8",
        timeout: 60_000,
      });
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
});
