// A test collection on disk, in the layout ../shared/eval/README.md describes: corpus.jsonl
// ({"id","title","text"}), queries.jsonl ({"id","text"}) and qrels.tsv (qid<TAB>docid<TAB>rel, no header).
// Read at run time, never copied into the repository.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Judgments } from "./metrics.js";

const documentLine = z.object({
  id: z.string(),
  title: z.string().default(""),
  text: z.string().default(""),
});
const queryLine = z.object({ id: z.string(), text: z.string() });

export type CollectionDocument = z.infer<typeof documentLine>;
export type CollectionQuery = z.infer<typeof queryLine>;

export interface Collection {
  name: string;
  documents: CollectionDocument[];
  queries: CollectionQuery[];
  judgments: Judgments;
}

function jsonLines<T>(path: string, schema: z.ZodType<T>): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      const parsed = schema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${path}:${i + 1}: ${z.prettifyError(parsed.error)}`);
      return parsed.data;
    });
}

/** Both qrels layouts the collection's scripts accept: 3 columns, or TREC's 4 (`qid 0 docid rel`). */
export function parseJudgments(text: string, source = "qrels"): Judgments {
  const judgments: Judgments = new Map();
  text.split("\n").forEach((line, i) => {
    const parts = line.trim().split(/\s+/);
    if (parts.length === 1 && parts[0] === "") return;
    let queryId: string;
    let docId: string;
    let rel: string;
    if (parts.length === 3) [queryId, docId, rel] = parts as [string, string, string];
    else if (parts.length === 4) [queryId, , docId, rel] = parts as [string, string, string, string];
    else throw new Error(`${source}:${i + 1}: expected 3 or 4 columns`);
    // A header line ("query-id corpus-id score") is skipped, as the collection's script skips it.
    if (!/^-?\d+$/.test(rel)) return;
    const judged = judgments.get(queryId) ?? new Map<string, number>();
    judged.set(docId, Number(rel));
    judgments.set(queryId, judged);
  });
  return judgments;
}

export function readCollection(dir: string): Collection {
  return {
    name: dir.replace(/\/+$/, "").split("/").at(-1) ?? dir,
    documents: jsonLines(join(dir, "corpus.jsonl"), documentLine),
    queries: jsonLines(join(dir, "queries.jsonl"), queryLine),
    judgments: parseJudgments(readFileSync(join(dir, "qrels.tsv"), "utf8"), join(dir, "qrels.tsv")),
  };
}
