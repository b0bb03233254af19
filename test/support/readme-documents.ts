// Documents as a build gathers them (IndexedDocument), from markdown shipped in node_modules, cut as ingest cuts
// it: text nobody here wrote, present on every clone once `npm ci` has run.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { IndexedDocument } from "../../src/index/passages/passage-index.js";
import { MATCH_CLOSE, MATCH_OPEN } from "../../src/index/snippets/snippet.js";
import { chunkDocument } from "../../src/ingest/chunk.js";

const PACKAGES = ["fast-check", "semver", "hono", "zod", "qs"];

/**
 * One document a package README; the first passage of the first holds the match markers a passage's text may
 * carry (the index keeps them out of what it stores).
 */
export function readmeDocuments(): IndexedDocument[] {
  return PACKAGES.map((pkg, d) => {
    const content = readFileSync(join("node_modules", pkg, "README.md"), "utf8");
    const passages = chunkDocument({ title: `${pkg} README`, content, format: "markdown" }).map((p, i) => ({
      chunkId: `${pkg}-${i}`,
      ordinal: i,
      heading: p.heading,
      text: d === 0 && i === 0 ? `${MATCH_OPEN}quokkamark${MATCH_CLOSE} ${p.text}` : p.text,
    }));
    return { id: `doc-${pkg}`, title: `${pkg} README`, path: ["node_modules", pkg], passages };
  });
}
