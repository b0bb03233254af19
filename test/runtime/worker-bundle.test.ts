// The Worker bundle builds: `npm run deploy:check` (scripts/deploy-check.mjs) dry-runs `wrangler deploy`
// offline, passes on wrangler.toml, and fails on what the dry run alone lets through. The bundle it leaves
// behind imports no `node:` built-in and no native module.

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const script = join(root, "scripts", "deploy-check.mjs");
const wranglerToml = readFileSync(join(root, "wrangler.toml"), "utf8");
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "memoria-deploy-check-"));
  dirs.push(dir);
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function deployCheck(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd: root, timeout: 170_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** wrangler.toml with one change, in a temp directory, its Worker entry made absolute. */
function variant(change: (toml: string) => string, main = join(root, "src/runtime/worker.ts")): string {
  const dir = tempDir();
  const toml = change(wranglerToml).replace(/^main = ".*"$/m, `main = ${JSON.stringify(main)}`);
  const path = join(dir, "wrangler.toml");
  writeFileSync(path, toml);
  return path;
}

/** Every module specifier a bundle's text imports, statically, dynamically or by require. */
function importedSpecifiers(code: string): string[] {
  const found = new Set<string>();
  for (const pattern of [
    /\bimport\s*(?:[\w*${}\s,]+\s*from\s*)?["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ]) {
    for (const match of code.matchAll(pattern)) found.add(match[1] as string);
  }
  return [...found];
}

const builtins = new Set(builtinModules);

describe("npm run deploy:check", () => {
  it("passes on wrangler.toml and leaves a bundle with no node: built-in or native module", {
    timeout: 180_000,
  }, async () => {
    const outdir = tempDir();
    const run = await deployCheck(["--outdir", outdir]);
    expect(run.stderr + run.stdout, "deploy-check output").toContain("deploy-check: passed");
    expect(run.code).toBe(0);
    for (const checked of ["migrations:", "crons:", "wrangler deploy --dry-run:", "bundle:", "types:"]) {
      expect(run.stdout).toContain(`ok    ${checked}`);
    }

    const meta = JSON.parse(readFileSync(join(outdir, "bundle-meta.json"), "utf8")) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
    };
    const bundles = Object.keys(meta.outputs).filter((file) => file.endsWith(".js"));
    expect(bundles.length).toBeGreaterThan(0);
    const external = Object.values(meta.outputs).flatMap((o) =>
      o.imports.filter((i) => i.external).map((i) => i.path),
    );
    expect(external.length).toBeGreaterThan(0);
    for (const path of external) expect(path).toMatch(/^cloudflare:/);

    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("src/runtime/worker.ts");
    for (const input of inputs) {
      expect(input).not.toMatch(/^node:|\.node$|node_modules\/(libsql|@libsql)\//);
      expect(input).not.toMatch(/^src\/(store|index|teams)\//);
    }

    const code = readFileSync(join(outdir, "worker.js"), "utf8");
    const specifiers = importedSpecifiers(code);
    expect(specifiers).toContain("cloudflare:workers");
    for (const specifier of specifiers) {
      expect(specifier).not.toMatch(/^node:/);
      expect(specifier).not.toMatch(/\.node$/);
      expect(builtins.has(specifier)).toBe(false);
    }
    // The bundle exports the classes wrangler.toml binds (tested as booleans: a failure would print the bundle).
    const exported =
      /\bexport\s*\{([^}]*)\}/
        .exec(code)?.[1]
        ?.split(",")
        .map((name) => name.trim()) ?? [];
    expect(exported).toEqual(expect.arrayContaining(["MemoriaContainer", "ActiveTeams"]));
  });

  it("fails on what the dry run lets through: a class without a migration, a bad cron, a node: import", {
    timeout: 180_000,
  }, async () => {
    const noMigration = await deployCheck([
      "--outdir",
      tempDir(),
      "--config",
      variant((t) => t.replace(/new_sqlite_classes = \[.*\]/, 'new_sqlite_classes = ["MemoriaContainer"]')),
    ]);
    expect(noMigration.code).toBe(1);
    expect(noMigration.stderr).toContain("Durable Object class ActiveTeams has no migration");

    const badCron = await deployCheck([
      "--outdir",
      tempDir(),
      "--config",
      variant((t) => t.replace('crons = ["*/5 * * * *"]', 'crons = ["*/5 * * * *", "61 * * *"]')),
    ]);
    expect(badCron.code).toBe(1);
    expect(badCron.stderr).toContain('cron "61 * * *" has 4 fields');

    const entry = join(tempDir(), "worker.js");
    writeFileSync(
      entry,
      [
        'import { readFileSync } from "node:fs";',
        "export class MemoriaContainer {}",
        "export class ActiveTeams {}",
        "export default { fetch: () => new Response(typeof readFileSync) };",
      ].join("\n"),
    );
    const nodeImport = await deployCheck(["--outdir", tempDir(), "--config", variant((t) => t, entry)]);
    expect(nodeImport.code).toBe(1);
    expect(nodeImport.stderr).toMatch(/imports node:fs: a node: built-in/);
  });
});
