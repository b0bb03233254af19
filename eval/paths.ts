import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** Where the public collections sit beside this repository; read at run time, never copied in. */
export const DEFAULT_COLLECTION = resolve(import.meta.dirname, "../../shared/eval/cranfield");

/** Where the Cranfield collection is read from: MEMORIA_EVAL_DIR, else beside the repository. */
export function cranfieldDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.MEMORIA_EVAL_DIR;
  if (dir === undefined) return DEFAULT_COLLECTION;
  // MEMORIA_EVAL_DIR may name the collection itself or the folder holding it.
  return existsSync(join(dir, "corpus.jsonl")) ? dir : join(dir, "cranfield");
}
