// docs/backups.md's procedures, run as written: each `sh` block marked `<!-- tested: NAME -->` is read out of
// the document and run by bash in a folder laid out like a memoria checkout (its package.json, bin, src and
// node_modules linked in, the database in .memoria/), against real servers on loopback.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serveOnLoopback } from "../http/loopback.js";
import {
  ADMIN_TOKEN,
  addDocument,
  buildTestApp,
  makeTeam,
  newMasterKey,
  search,
  tempDir,
} from "../support/app.js";
import { needs, outside } from "../support/outside.js";

const root = join(import.meta.dirname, "../..");
const doc = readFileSync(join(root, "docs/backups.md"), "utf8");

/** The shell block after `<!-- tested: name -->`, its lines unindented. */
function block(name: string): string {
  const at = doc.indexOf(`<!-- tested: ${name} -->`);
  if (at < 0) throw new Error(`docs/backups.md has no block tested as ${name}`);
  const fence = doc.slice(at).match(/```sh\n([\s\S]*?)\n\s*```/);
  if (!fence?.[1]) throw new Error(`no sh block after the ${name} marker`);
  return fence[1]
    .split("\n")
    .map((line) => line.replace(/^ {2}/, ""))
    .join("\n");
}

function bash(script: string, cwd: string, env: Record<string, string>) {
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? cwd, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder that looks like the memoria checkout a user runs the commands in, with its .memoria/. */
function checkout(): string {
  const tmp = tempDir();
  cleanups.push(tmp.cleanup);
  for (const name of ["package.json", "bin", "src", "node_modules", "tsconfig.json"])
    symlinkSync(join(root, name), join(tmp.dir, name));
  mkdirSync(join(tmp.dir, ".memoria"), { mode: 0o700 });
  return tmp.dir;
}

describe("docs/backups.md, as written", () => {
  needs(outside.curl).it("moves a team to another instance with the commands it gives", async () => {
    const dir = checkout();
    const old = await buildTestApp({ dbUrl: `file:${join(dir, ".memoria/memoria.db")}` });
    const fresh = await buildTestApp({ masterKey: newMasterKey() });
    cleanups.push(() => old.close());
    cleanups.push(() => fresh.close());
    const [oldServed, newServed] = [await serveOnLoopback(old), await serveOnLoopback(fresh)];
    cleanups.push(() => oldServed.close());
    cleanups.push(() => newServed.close());
    const { apiKey } = await makeTeam(old, "Acme");
    await addDocument(old, apiKey, {
      title: "Finance",
      content: "# Finance\n\n## Revenue\n\nJune revenue was 4.2M.",
    });
    await addDocument(old, apiKey, { title: "Onboarding", content: "Ask the desk for a laptop." });

    const run = await bash(block("move"), dir, {
      MEMORIA_URL: oldServed.base,
      KEY: apiKey,
      NEW_URL: newServed.base,
      NEW_ADMIN: ADMIN_TOKEN,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('"title":"Finance"');
    expect(run.stdout).toContain("<mark>revenue</mark>");
    expect(existsSync(join(dir, "team.ndjson"))).toBe(true);
    expect(run.stderr).not.toMatch(/error/i);
  });

  it("copies the database with VACUUM INTO while serving, and the copy restores the team", async () => {
    const dir = checkout();
    const dbUrl = `file:${join(dir, ".memoria/memoria.db")}`;
    const masterKey = newMasterKey();
    const serving = await buildTestApp({ dbUrl, masterKey });
    const served = await serveOnLoopback(serving);
    const { apiKey } = await makeTeam(serving, "Acme");
    await addDocument(serving, apiKey, {
      title: "Ledger",
      content: "The aardvark ledger was closed in June.",
    });

    const copied = await bash(block("vacuum"), dir, {});
    expect(copied.code, copied.stderr).toBe(0);
    expect(existsSync(join(dir, "backup.db"))).toBe(true);
    // Written after the copy: the restored database must not have it.
    await addDocument(serving, apiKey, { title: "Later", content: "A pangolin note after the backup." });
    await served.close();
    serving.close();

    const restored = await bash(block("restore-file"), dir, {});
    expect(restored.code, restored.stderr).toBe(0);
    const again = await buildTestApp({ dbUrl, masterKey });
    cleanups.push(() => again.close());
    expect((await search(again, apiKey, "aardvark ledger")).hits[0]?.title).toBe("Ledger");
    expect((await search(again, apiKey, "pangolin")).hits).toHaveLength(0);
  });
});
