// Real passages in the snippet table's four columns, for the snippet tests: git's manuals as Debian installs
// them (.ci/run installs git-doc) and markdown shipped in node_modules, cut as the index cuts them.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SnippetSource } from "../../src/index/snippets/snippet-table.js";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { gitManualTexts } from "./outside.js";

export function manualPassages(): SnippetSource[] {
  const texts = gitManualTexts().map(({ name, content }) => ({
    title: name,
    content,
    format: "text" as const,
  }));
  for (const pkg of ["hono", "zod", "vitest"]) {
    texts.push({
      title: `${pkg} README`,
      content: readFileSync(join("node_modules", pkg, "README.md"), "utf8"),
      format: "text" as const,
    });
  }
  return texts.flatMap((doc) =>
    chunkDocument(doc).map((p) => ({ heading: p.heading, body: p.text, title: doc.title, path: "git-doc" })),
  );
}
