// `npm start`: memoria's Node entry bundled from src/ into dist/ as the start begins (scripts/build.mjs, esbuild,
// well under a second), then run in this same process. Running the TypeScript through tsx instead kept tsx's
// module hooks loaded for the process's whole life, on a thread of their own with their own heap: ~35 MiB of
// an empty server, and as much again in each worker thread started through them
// (docs/decisions/0065-rss-account.md). dist/ is also what `npm run build` writes and the image runs; it holds
// memoria's code only, never a team's data.

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildServer } from "./build.mjs";

const { outdir } = await buildServer();
await import(pathToFileURL(join(outdir, "runtime/node.js")).href);
