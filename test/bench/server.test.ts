// The bench's server gets what `npm start` sets: read from the checkout it runs, so an A/B of two checkouts
// gives each its own start script's variables.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptEnvironment, startScriptNodeFlags } from "../../bench/server.js";

describe("the bench server's start-script variables", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A package.json of its own in a temp folder, with `start` as its start script. */
  const manifestWith = (start: string): string => {
    const dir = mkdtempSync(join(tmpdir(), "memoria-start-script-"));
    dirs.push(dir);
    const manifest = join(dir, "package.json");
    writeFileSync(manifest, JSON.stringify({ scripts: { start } }));
    return manifest;
  };

  it("are read from the package.json given, so another checkout's server gets its own", () => {
    const manifest = manifestWith("A_B=1 C=x=y exec node scripts/start.mjs");
    expect(startScriptEnvironment(manifest)).toEqual({ A_B: "1", C: "x=y" });
  });

  it("and its node flags, from the package.json given", () => {
    let manifest = manifestWith("A=1 exec node --max-semi-space-size=2 --expose-gc scripts/start.mjs");
    expect(startScriptNodeFlags(manifest)).toEqual(["--max-semi-space-size=2", "--expose-gc"]);
    manifest = manifestWith("exec node scripts/start.mjs");
    expect(startScriptNodeFlags(manifest)).toEqual([]);
  });

  it("default to this checkout's npm start", () => {
    const own = startScriptEnvironment(resolve(import.meta.dirname, "../../package.json"));
    expect(Object.keys(own).length).toBeGreaterThan(0);
    expect(startScriptEnvironment()).toEqual(own);
  });
});
