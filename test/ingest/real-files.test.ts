// Real documents nobody here wrote: every *.md the project's dependencies ship (node_modules, read at test
// time) and Debian's HTML documentation under /usr/share/doc. Each must chunk without error and keep every
// word a reader sees, as the reference parsers (micromark, parse5) find it. Skipped where none exist.

import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkDocument, defaultChunkLimits } from "../../src/ingest/chunk.js";
import { codePointLength } from "../../src/text/length.js";
import { debianHtml, needs } from "../support/outside.js";
import { htmlVisibleText, markdownVisibleText, missingWords } from "./visible-words.js";

// Enough to cover every dependency's README and CHANGELOG here (~430 files) while keeping the suite fast;
// beyond it, files are sampled evenly by path so the choice is the same on every run.
const maxFiles = 600;
// The reference parsers build whole trees; past this size a file costs the oracle seconds, not the chunker.
const maxBytes = 1024 * 1024;

function findFiles(root: string, extension: RegExp): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of entries) {
      const path = join(dir, name);
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) stack.push(path);
      else if (stat.isFile() && extension.test(name) && stat.size <= maxBytes) found.push(path);
    }
  }
  found.sort();
  if (found.length <= maxFiles) return found;
  const step = found.length / maxFiles;
  return Array.from({ length: maxFiles }, (_, i) => found[Math.floor(i * step)] as string);
}

const markdownFiles = findFiles(join(import.meta.dirname, "../../node_modules"), /\.(md|markdown)$/i);
const htmlFiles = findFiles("/usr/share/doc", /\.html?$/i);

/**
 * Files per test. The reference parser costs ~18 s of CPU for the 480 READMEs here (measured on this
 * project's shared 2-core machine), so one test over them all ran past its timeout when the machine was
 * loaded; in shards each test holds a quarter of it, and every file is still read.
 */
const markdownShard = 120;

describe("real markdown files", () => {
  const shards = Array.from({ length: Math.ceil(markdownFiles.length / markdownShard) }, (_, i) =>
    markdownFiles.slice(i * markdownShard, (i + 1) * markdownShard),
  );
  shards.forEach((files, i) => {
    const first = i * markdownShard + 1;
    it(`chunk without error and keep every visible word (files ${first}–${first + files.length - 1} of ${markdownFiles.length} under node_modules)`, () => {
      const failures: string[] = [];
      for (const file of files) {
        const content = readFileSync(file, "utf8");
        const passages = chunkDocument({ title: file, content, format: "markdown" });
        const longest = Math.max(...passages.map((passage) => codePointLength(passage.text)));
        if (longest > defaultChunkLimits.maxPassageChars) failures.push(`${file}: a passage of ${longest}`);
        const missing = missingWords(markdownVisibleText(content), passages);
        // Names the file and a count, never the words: test output is a log too.
        if (missing.length > 0) failures.push(`${file}: ${missing.length} words missing`);
      }
      expect(failures).toEqual([]);
    }, 120_000); // ~4.5 s of CPU a shard, nearly all of it the reference parser; the margin is for a loaded machine.
  });
});

describe("real HTML files", () => {
  needs(debianHtml(htmlFiles.length > 0)).it(
    `chunk without error and keep every visible word (${htmlFiles.length} files under /usr/share/doc)`,
    () => {
      const failures: string[] = [];
      for (const file of htmlFiles) {
        const content = readFileSync(file, "utf8");
        const passages = chunkDocument({ title: file, content, format: "html" });
        const missing = missingWords(htmlVisibleText(content), passages);
        if (missing.length > 0) failures.push(`${file}: ${missing.length} words missing`);
      }
      expect(failures).toEqual([]);
    },
    // A few seconds of CPU here, most of it parse5; the margin is for a loaded machine.
    120_000,
  );
});
