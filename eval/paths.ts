import { resolve } from "node:path";

/** Where the public collections sit beside this repository; read at run time, never copied in. */
export const DEFAULT_COLLECTION = resolve(import.meta.dirname, "../../shared/eval/cranfield");
