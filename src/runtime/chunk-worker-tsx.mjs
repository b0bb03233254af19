// The chunk pool's worker when memoria runs from its TypeScript source under Node (`npm start`, vitest, the
// bench): a worker thread is a plain Node thread that does not inherit tsx's loader (vitest's transform never
// reaches it either), so this loads the TypeScript entry through tsx's API. The compiled image runs
// dist/runtime/chunk-worker.js itself, and Deno runs chunk-worker.ts itself; neither comes here.

import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.entry, import.meta.url);
