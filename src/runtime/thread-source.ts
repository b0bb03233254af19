// A search thread's code when memoria runs from its TypeScript source under Node (vitest, the bench's
// in-process app, anything run through tsx): the worker's entry and the source files it imports, bundled by
// esbuild into one CommonJS script that the thread runs as it is (`eval`). The alternative, loading the entry
// through tsx's API in the thread (chunk-thread-tsx.mjs), registers tsx's module hooks in that thread, and
// Node 20 runs module hooks on a thread of their own: measured, a search thread started that way added
// 38.5 MiB to the process, one started from the bundle 11.3 MiB (two threads each, RSS after 4 s;
// docs/decisions/0067-search-thread-start-and-heap.md). `npm start` and the image run dist/, and Deno the
// .ts entry, each loading the entry itself: they never come here.

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Packages the bundle leaves to the thread's require(): native addons esbuild cannot bundle. */
const NATIVE_PACKAGES = ["libsql", "@photostructure/sqlite"];

const bundles = new Map<string, Promise<string>>();

/**
 * The script a worker thread runs for `entry` (a .ts file URL): bundled once per process, on the first call.
 * esbuild's service (a child process) is stopped once the bundle is made, so nothing of it stays in memory.
 */
export function threadScript(entry: URL): Promise<string> {
  const path = fileURLToPath(entry);
  let bundle = bundles.get(path);
  if (!bundle) {
    bundle = bundled(path);
    // A failed bundle is tried again by the next thread's start.
    bundle.catch(() => bundles.delete(path));
    bundles.set(path, bundle);
  }
  return bundle;
}

async function bundled(path: string): Promise<string> {
  // Loaded only here: a process on the source that never starts a search thread never loads esbuild.
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  try {
    const result = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      external: NATIVE_PACKAGES,
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.text;
    if (code === undefined || result.warnings.length > 0)
      throw new Error(`bundling a worker's entry gave ${result.warnings.length} warnings and no code`);
    // The native packages are required from the entry's own folder, as its imports would be resolved.
    return `(function (require) {\n${code}\n})(require("node:module").createRequire(${JSON.stringify(path)}));`;
  } finally {
    await esbuild.stop();
  }
}
