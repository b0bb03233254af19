// The build (scripts/build.mjs, `npm run build` and the first step of `npm start`), run as a user runs it:
// the server's entry and its three worker entries bundled side by side; a second build of the same inputs
// writes nothing; a rebuild keeps the last build's files for a server still running from them, and removes
// only what the build before wrote and no longer makes.

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packDocumentText } from "../../src/index/passages/passage-document.js";
import type { PackedBlock } from "../../src/index/passages/passage-text.js";
import type { ChunkReply, ChunkRequest } from "../../src/runtime/chunk-pool.js";
import { tempDir } from "../support/app.js";
import { root } from "../support/processes.js";
import { readmeDocuments } from "../support/readme-documents.js";

const STAMP = ".build-inputs.json";

function build(outdir: string): string {
  return execFileSync(process.execPath, [join(root, "scripts/build.mjs"), "--outdir", outdir], {
    cwd: root,
    encoding: "utf8",
  }).trim();
}

describe("the build", () => {
  let out: ReturnType<typeof tempDir>;
  let first: string;
  beforeAll(() => {
    out = tempDir();
    first = build(out.dir);
  }, 120_000);
  afterAll(() => out?.cleanup());

  it("bundles the server and its worker entries into runtime/, each found beside the others", () => {
    expect(first).toMatch(/^built \d+ files into /);
    const runtime = readdirSync(join(out.dir, "runtime"));
    for (const entry of ["node.js", "chunk-thread.js", "extract-thread.js", "search-thread.js"])
      expect(runtime).toContain(entry);
    // Nothing but runtime/ and the stamp: shared code is in chunks beside the entries, where the code that
    // starts a worker from its own URL looks for the worker's file.
    expect(readdirSync(out.dir).sort()).toEqual([STAMP, "runtime"].sort());
    const stamp = JSON.parse(readFileSync(join(out.dir, STAMP), "utf8")) as { files: string[] };
    expect(stamp.files.sort()).toEqual(runtime.map((name) => `runtime/${name}`).sort());
    // Native addons are left to node_modules; the CommonJS packages bundled in get a require of their own.
    const code = runtime.map((name) => readFileSync(join(out.dir, "runtime", name), "utf8"));
    for (const addon of ["libsql", "@photostructure/sqlite"])
      expect(
        code.some((text) => text.includes(`from "${addon}"`) || text.includes(`import("${addon}")`)),
      ).toBe(true);
    expect(code.every((text) => text.includes("const require = "))).toBe(true);
  });

  it("bundles a chunk worker that packs a build's text as the source packs it", async () => {
    const documents = readmeDocuments();
    const worker = new Worker(join(out.dir, "runtime", "chunk-thread.js"), { execArgv: [] });
    try {
      const request: ChunkRequest = { id: 7, pack: documents.map((d) => d.passages) };
      const reply = new Promise<ChunkReply>((resolve) => worker.once("message", resolve));
      worker.postMessage(request);
      const answer = await reply;
      const base64 = (blocks: readonly PackedBlock[]) =>
        blocks.map((b) => [b.first, Buffer.from(b.packed).toString("base64")]);
      expect("packed" in answer && answer.packed.map(base64)).toEqual(
        documents.map((d) => base64(packDocumentText(d.passages))),
      );
    } finally {
      await worker.terminate();
    }
  });

  it("loads at start only what the first request needs: no front matter parsers, remote client or other locales", () => {
    // The files a start evaluates: the server's entry and a search thread's, and the chunks they import
    // statically (`import { … } from "./shared-….js"`, or `import "./shared-….js"` alone), transitively.
    const runtime = join(out.dir, "runtime");
    const read = (name: string) => readFileSync(join(runtime, name), "utf8");
    const atStart = new Set<string>();
    const pending = ["node.js", "search-thread.js"];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (atStart.has(name)) continue;
      atStart.add(name);
      for (const found of read(name).matchAll(
        /^(?:import|\})(?: [^;]*? from)? "\.\/(shared-[\w-]+\.js)";?$/gm,
      ))
        if (found[1]) pending.push(found[1]);
    }
    // esbuild names every bundled file in a comment above its code.
    const sources = (names: Iterable<string>) =>
      [...names].flatMap((name) => [...read(name).matchAll(/^\/\/ (node_modules\/\S+)$/gm)].map((m) => m[1]));
    const startSources = sources(atStart);
    const allSources = sources(readdirSync(runtime).filter((name) => name.endsWith(".js")));
    expect(startSources.some((path) => path?.startsWith("node_modules/hono/"))).toBe(true);
    for (const lazy of [
      "node_modules/yaml/",
      "node_modules/smol-toml/",
      "node_modules/@libsql/hrana-client/",
    ]) {
      expect(startSources.filter((path) => path?.startsWith(lazy))).toEqual([]);
      expect(allSources.some((path) => path?.startsWith(lazy))).toBe(true);
    }
    const locales = allSources.filter((path) => path?.startsWith("node_modules/zod/v4/locales/"));
    expect([...new Set(locales)]).toEqual(["node_modules/zod/v4/locales/en.js"]);
  });

  it("a second build of the same inputs writes nothing", () => {
    const before = statSync(join(out.dir, "runtime/node.js")).mtimeMs;
    expect(build(out.dir)).toMatch(/is up to date \(\d+ files\)$/);
    expect(statSync(join(out.dir, "runtime/node.js")).mtimeMs).toBe(before);
  });

  it("a rebuild keeps the last build's chunks for a server still running from it, and removes older ones", () => {
    const stampPath = join(out.dir, STAMP);
    const stamp = JSON.parse(readFileSync(stampPath, "utf8")) as { digest: string; files: string[] };
    const forceRebuild = (files: string[], earlier: string[]) =>
      writeFileSync(stampPath, JSON.stringify({ digest: "an earlier build", files, earlier }));
    // As if the last build had been made from other sources and had written one more chunk, and the build
    // before it another; beside them, a file no build wrote, and one outside the folder that a stamp names.
    writeFileSync(join(out.dir, "runtime/shared-LAST1234.js"), "export {};\n");
    writeFileSync(join(out.dir, "runtime/shared-OLDER123.js"), "export {};\n");
    writeFileSync(join(out.dir, "runtime/notes.txt"), "kept\n");
    const outside = tempDir();
    writeFileSync(join(outside.dir, "precious.js"), "kept\n");
    const outsideName = relative(out.dir, join(outside.dir, "precious.js"));
    try {
      forceRebuild(
        [...stamp.files, "runtime/shared-LAST1234.js"],
        ["runtime/shared-OLDER123.js", outsideName],
      );
      expect(build(out.dir)).toMatch(/^built \d+ files into /);
      expect(existsSync(join(out.dir, "runtime/shared-LAST1234.js"))).toBe(true);
      expect(existsSync(join(out.dir, "runtime/shared-OLDER123.js"))).toBe(false);
      expect(readFileSync(join(out.dir, "runtime/notes.txt"), "utf8")).toBe("kept\n");
      expect(readFileSync(join(outside.dir, "precious.js"), "utf8")).toBe("kept\n");
      expect(existsSync(join(out.dir, "runtime/node.js"))).toBe(true);
      // The next build's "before the last" is that last one: now its chunk goes.
      const next = JSON.parse(readFileSync(stampPath, "utf8")) as { files: string[]; earlier: string[] };
      expect(next.earlier).toEqual(["runtime/shared-LAST1234.js"]);
      forceRebuild(next.files, next.earlier);
      build(out.dir);
      expect(existsSync(join(out.dir, "runtime/shared-LAST1234.js"))).toBe(false);
    } finally {
      outside.cleanup();
    }
  }, 120_000);

  it("builds again when a file of the last build is missing", () => {
    const worker = join(out.dir, "runtime/search-thread.js");
    rmSync(worker);
    expect(build(out.dir)).toMatch(/^built \d+ files into /);
    expect(existsSync(worker)).toBe(true);
  }, 120_000);
});
