// `npm run build`, and the first step of `npm start`: memoria's Node entry and its three worker-thread entries
// bundled by esbuild into dist/ (dist/runtime/node.js and the workers beside it), with the code they share in
// chunks of its own and every dynamic import (the MCP server, PDF and DOCX reading) left to a chunk loaded
// when first needed. One bundle instead of ~470 modules, each resolved, read and compiled on its own, is what
// makes a start fast (docs/decisions/0100-bundled-start.md). dist/ holds memoria's code only, never a team's
// data.
//
// `node scripts/build.mjs [--outdir <dir>]`; esbuild is a dependency, so `npm ci --omit=dev` can build too.

import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, stop } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Where `npm run build` and `npm start` write, and the image runs from. */
const DIST = join(root, "dist");

/** The entries Node runs: the server, and the files its worker threads start from (found beside it). */
const ENTRIES = ["node", "chunk-thread", "extract-thread", "search-thread"].map((name) =>
  join(root, `src/runtime/${name}.ts`),
);

/** Native addons: required from node_modules at run time, as esbuild cannot bundle them. */
const NATIVE_PACKAGES = ["libsql", "@photostructure/sqlite", "koffi", "@node-rs/argon2"];

/**
 * The bundled CommonJS packages (prom-client, ws, …) call require() for Node's own modules; an ES module has
 * no require of its own, so each output file gets one, made for the file's own place.
 */
const REQUIRE_BANNER =
  'import { createRequire as __memoriaRequire } from "node:module"; const require = __memoriaRequire(import.meta.url);';

/**
 * What a build is made from: src/, the compiler options esbuild reads (tsconfig.json), the packages bundled in
 * (package.json, the lock file, and npm's record of what node_modules holds, which changes with `npm ci` even
 * when the lock file came first) and this script. Their digest is kept beside the output (STAMP); a build
 * whose inputs have not changed since the last one into the same folder writes nothing. `npm start` then
 * starts in ~0.4 s instead of ~1.4 s, the bundling's ~1 s on this 2-core machine saved.
 */
function inputsDigest() {
  const hash = createHash("sha256");
  for (const file of [
    ...filesUnder(join(root, "src")).sort(),
    join(root, "tsconfig.json"),
    join(root, "package.json"),
    join(root, "package-lock.json"),
    join(root, "node_modules/.package-lock.json"),
    fileURLToPath(import.meta.url),
  ]) {
    hash.update(`${relative(root, file)}\0`);
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update("(none)");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * zod's namespace object carries its 60-odd error-message locales (`z.locales`), and `@hono/zod-openapi` hands
 * that object to a function, so the bundler keeps every locale: ~360 KB that a start compiled for nothing
 * (zod registers English itself, and memoria never picks another). This plugin gives zod a `locales` of
 * English alone. Exec to a ready answer took 8–16 ms less (docs/decisions/0106).
 */
const ZOD_ENGLISH_ONLY = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: join(args.resolveDir, "../locales/en.js"), namespace: "zod-english-only" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: root,
    }));
  },
};

const STAMP = ".build-inputs.json";

/** File names a stamp lists, kept to those inside `out`. */
function namesInside(out, names) {
  return Array.isArray(names)
    ? names.filter((name) => typeof name === "string" && resolve(out, name).startsWith(`${out}/`))
    : [];
}

/**
 * The stamp of the last build into `out`: its digest, the files it wrote, and those the build before it wrote
 * (`earlier`); null when there is none.
 */
function lastBuild(out) {
  try {
    const stamp = JSON.parse(readFileSync(join(out, STAMP), "utf8"));
    if (typeof stamp.digest !== "string" || !Array.isArray(stamp.files)) return null;
    return {
      digest: stamp.digest,
      files: namesInside(out, stamp.files),
      earlier: namesInside(out, stamp.earlier),
    };
  } catch {
    return null;
  }
}

/** Writes `contents` to `path` under a temporary name, then renames it into place. */
function writeWhole(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, contents);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Bundles into `outdir`. Each file is written under a temporary name and renamed into place, and left alone
 * when its content is unchanged, so a process reading one never reads half of it. A server may be running from
 * `outdir` (a developer's `npm start` while a test builds the same checkout), and it loads its lazy chunks
 * from there later: the shared chunks' names carry a hash of their content, and those of the last build are
 * kept, so such a server still finds its own; only the files of the build before the last, and this one does
 * not write, are removed. The entries keep their names: a worker started after a rebuild of changed sources
 * runs the new code.
 */
export async function buildServer(outdir = DIST) {
  const out = resolve(outdir);
  const digest = inputsDigest();
  const last = lastBuild(out);
  if (last?.digest === digest && last.files.every((file) => existsSync(join(out, file))))
    return { outdir: out, files: last.files.length, built: false };
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: ENTRIES,
      outbase: join(root, "src"),
      outdir: out,
      // Shared chunks beside the entries: code that finds a worker's file from its own URL
      // (`new URL("./chunk-thread.js", import.meta.url)`) finds it wherever the bundler put that code.
      chunkNames: "runtime/shared-[hash]",
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      external: NATIVE_PACKAGES,
      banner: { js: REQUIRE_BANNER },
      plugins: [ZOD_ENGLISH_ONLY],
      write: false,
      logLevel: "warning",
    });
    const written = new Set();
    for (const file of result.outputFiles) {
      written.add(file.path);
      let same = false;
      try {
        same = readFileSync(file.path).equals(file.contents);
      } catch {}
      if (!same) writeWhole(file.path, file.contents);
    }
    // Only what a build wrote is removed: the files of the build before the last, or, in dist/ itself before
    // any stamp, what the per-file builds before the bundle left there. A folder given with --outdir may hold
    // other files.
    const kept = new Set([...written, ...(last?.files ?? []).map((file) => join(out, file))]);
    const stale = last
      ? last.earlier.map((file) => join(out, file))
      : out === DIST
        ? filesUnder(out).filter((path) => /\.js$/.test(path))
        : [];
    for (const path of stale) {
      if (kept.has(path)) continue;
      rmSync(path, { force: true });
      removeEmptyFolders(dirname(path), out);
    }
    const files = [...written].map((path) => relative(out, path)).sort();
    const earlier = (last?.files ?? []).filter((file) => !written.has(join(out, file))).sort();
    writeWhole(join(out, STAMP), `${JSON.stringify({ digest, files, earlier })}\n`);
    return { outdir: out, files: files.length, built: true };
  } finally {
    // esbuild's service is a child process: ended here, so nothing of the build outlives it.
    await stop();
  }
}

function filesUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** `dir` and the folders above it up to `out`, each while it is empty. */
function removeEmptyFolders(dir, out) {
  for (let folder = dir; folder !== out && folder.startsWith(`${out}/`); folder = dirname(folder)) {
    try {
      rmdirSync(folder);
    } catch {
      return;
    }
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const at = process.argv.indexOf("--outdir");
  if (at > 0 && !process.argv[at + 1]) {
    console.error("usage: node scripts/build.mjs [--outdir <dir>]");
    process.exit(1);
  }
  const built = await buildServer(at > 0 ? process.argv[at + 1] : undefined);
  const where = relative(process.cwd(), built.outdir) || ".";
  console.log(
    built.built
      ? `built ${built.files} files into ${where}`
      : `${where} is up to date (${built.files} files)`,
  );
}
