// The server entries as a user starts them: `node --import tsx src/runtime/node.ts`, and the Deno entry with
// exactly the arguments of package.json's `start:deno` script. Each child gets only PATH (and Deno's cache
// location) besides the environment a test gives it, so NODE_ENV and the rest of the test process stay out.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const root = join(import.meta.dirname, "../..");
const nodeEntry = join(root, "src/runtime/node.ts");
// tsx by path, not by name: `--import tsx` resolves from the working directory, which a test may move.
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;
/** The binary `npm run start:deno` finds first on its PATH: the `deno` dev dependency. */
export const denoBinary = join(root, "node_modules/.bin/deno");

/** The arguments after `deno` in package.json's `start:deno` script (`exec deno run … src/runtime/deno.ts`). */
export function denoArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const words = (pkg.scripts["start:deno"] ?? "").trim().split(/\s+/);
  const at = words.indexOf("deno");
  if (at < 0) throw new Error(`start:deno does not run deno: ${pkg.scripts["start:deno"]}`);
  return words.slice(at + 1);
}

/** Why the deno binary cannot run here, or null when it can. */
export function denoUnavailable(): string | null {
  const result = spawnSync(denoBinary, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (result.error) return `${denoBinary} cannot be started: ${result.error.message}`;
  if (result.status !== 0) return `${denoBinary} --version exited ${result.status}: ${result.stderr}`;
  return null;
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
  // Deno keeps its cache under DENO_DIR, else under HOME; neither is read by memoria.
  for (const name of ["HOME", "DENO_DIR"]) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}

export interface StartOptions {
  /**
   * The umask the child starts with (through `sh -c 'umask …; exec …'`), so a test of file modes does not
   * depend on the umask of whoever runs the tests.
   */
  umask?: number;
  /** The working directory (default: the repository); the entries must not depend on it. */
  cwd?: string;
  /** Modules Node imports before tsx and the entry (`--import`), such as a probe of what the entry loads. */
  preload?: string[];
}

function spawnEntry(command: string, args: string[], env: Record<string, string>, options: StartOptions) {
  const [file, argv] =
    options.umask === undefined
      ? [command, args]
      : [
          "/bin/sh",
          ["-c", `umask ${options.umask.toString(8).padStart(3, "0")} && exec "$@"`, "sh", command, ...args],
        ];
  return spawn(file, argv, {
    cwd: options.cwd ?? root,
    env: { ...baseEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function startNode(env: Record<string, string>, options: StartOptions = {}): ChildProcess {
  const preload = (options.preload ?? []).flatMap((file) => ["--import", pathToFileURL(file).href]);
  return spawnEntry(process.execPath, [...preload, "--import", tsxLoader, nodeEntry], env, options);
}

export function startDeno(env: Record<string, string>, options: StartOptions = {}): ChildProcess {
  return spawnEntry(denoBinary, denoArgs(), env, options);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Resolves when the child exits, with everything it printed. Call it right after starting the child. */
export function finished(child: ChildProcess): Promise<Exit> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Resolves with the port once the server logs that it listens. */
export function listening(child: ChildProcess): Promise<number> {
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
