// A pool's worker (the chunk pool's, the extract pool's) when memoria runs from its TypeScript source under
// Node through tsx (vitest, the bench's in-process app): a worker thread is a plain Node thread that does not
// inherit tsx's loader (vitest's transform never reaches it either), so this loads the TypeScript entry
// through tsx's API. `npm start` and the image run dist/runtime/*-worker.js themselves, and Deno runs the .ts
// entry itself; none of them comes here.

import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.entry, import.meta.url);
