// `npm start`: memoria's Node entry on JavaScript transpiled from src/ into dist/ as the start begins (esbuild,
// about half a second), then run in this same process. Running the TypeScript through tsx instead kept tsx's
// module hooks loaded for the process's whole life, on a thread of their own with their own heap: ~35 MiB of
// an empty server, and as much again in each worker thread started through them
// (docs/decisions/0065-rss-account.md). dist/ is also what `npm run build` writes and the image runs; it holds
// memoria's code only, never a team's data.

import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, stop } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
/** As tsconfig.build.json: Deno runs src/ itself, and the Cloudflare Worker is bundled by wrangler. */
const NOT_NODE = new Set(["src/runtime/deno.ts", "src/runtime/worker.ts"]);

function sources(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !NOT_NODE.has(path) ? [path] : [];
  });
}

await build({
  absWorkingDir: root,
  entryPoints: sources("src"),
  outbase: "src",
  outdir: "dist",
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
});
// esbuild's service is a child process: ended here, so nothing of the build outlives the start.
await stop();
await import(
  `./${relative(fileURLToPath(new URL(".", import.meta.url)), join(root, "dist/runtime/node.js"))}`
);
