// `memoria import` over folders nobody here wrote: the README and CHANGELOG files this project's own
// dependencies ship, and the HTML documentation of the machine's Debian packages, read at test time. Every
// file must be sent, none may fail, and each is then found through search by a word of its own.

import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import type { DocumentFormat } from "../../src/ingest/formats.js";
import { search } from "../support/app.js";
import { debianHtml } from "../support/outside.js";
import { runCli, summaryOf, withServer } from "./harness.js";

const NODE_MODULES = join(import.meta.dirname, "../../node_modules");
const DEBIAN_DOCS = "/usr/share/doc";
/** Enough real files to meet every kind of markup they hold, few enough for the suite (~1–2 s a hundred). */
const MAX_MARKDOWN = 160;
const MAX_HTML = 60;
/** Files larger than this are left to the chunker's own tests: the import would spend the suite's time on them. */
const MAX_FILE_BYTES = 512 * 1024;

function walk(root: string, accept: (name: string) => boolean, out: string[] = [], depth = 0): string[] {
  if (depth > 6) return out;
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) walk(path, accept, out, depth + 1);
    else if (entry.isFile() && accept(entry.name) && statSync(path).size <= MAX_FILE_BYTES) out.push(path);
  }
  return out;
}

/** Every `step`-th of `files`, so the sample spreads over the whole tree rather than its first folders. */
function spread(files: string[], most: number): string[] {
  if (files.length <= most) return files;
  const step = files.length / most;
  return Array.from({ length: most }, (_, i) => files[Math.floor(i * step)] as string);
}

/**
 * A document's long words as the index will hold them: tokens of letters and digits, as the index splits text
 * ("decodeBase64" is one token, never "decodebase"), kept when they are 9 letters or more and not all capitals.
 */
function longWordsOf(content: string, format: DocumentFormat): Set<string> {
  const passages = chunkDocument({ title: "x", content, format });
  const words = passages
    .flatMap((p) => p.text.match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => /^\p{L}{9,}$/u.test(w) && !/^\p{Lu}+$/u.test(w))
    .map((w) => w.toLowerCase());
  return new Set(words);
}

/**
 * The word of `own` that the fewest of `all` hold, the longest of those: a word the document has nearly to
 * itself, so that it is among the first 100 hits. The longest word alone was often a common one
 * ("documentation"), held by dozens of the READMEs, and a long README with it once ranked below them.
 */
function rarestWordOf(own: Set<string>, all: readonly Set<string>[]): string | null {
  let best: { word: string; holders: number } | null = null;
  for (const word of own) {
    const holders = all.reduce((n, words) => n + (words.has(word) ? 1 : 0), 0);
    if (
      best === null ||
      holders < best.holders ||
      (holders === best.holders &&
        (word.length > best.word.length || (word.length === best.word.length && word < best.word)))
    )
      best = { word, holders };
  }
  return best?.word ?? null;
}

async function importFolder(sources: string[], base: string, format: DocumentFormat) {
  return withServer(async (s) => {
    const copied = sources.map((source) => {
      const target = join(s.folder, relative(base, source));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(source, target);
      return { source, relativePath: relative(s.folder, target) };
    });
    const run = await runCli(["import", s.folder, "--url", s.url, "--key", s.apiKey]);
    const summary = summaryOf(run.stdout);
    const documents = await s.documents();
    // Found by a word of its own: a document is in the hits for its rarest long word.
    const missing: string[] = [];
    const words = copied.map((file) => longWordsOf(readFileSync(file.source, "utf8"), format));
    for (const [i, file] of copied.entries()) {
      if (i % 8 !== 0) continue;
      const word = rarestWordOf(words[i] ?? new Set(), words);
      if (!word) continue;
      const id = documents.find((d) => d.externalId === `file:notes/${file.relativePath}`)?.id;
      const hits = (await search(s.app, s.apiKey, word, 100)).hits;
      if (!id || !hits.some((h) => h.documentId === id)) missing.push(`${file.relativePath} (${word})`);
    }
    return { run, summary, documents: documents.length, files: copied.length, missing };
  });
}

describe("import of real folders", () => {
  it("sends every README and CHANGELOG of the dependencies, none failed, each findable", async () => {
    const files = spread(
      walk(NODE_MODULES, (name) => /^(readme|changelog|history)\.md$/i.test(name)),
      MAX_MARKDOWN,
    );
    expect(files.length).toBeGreaterThan(50);
    const { run, summary, documents, missing } = await importFolder(files, NODE_MODULES, "markdown");
    expect(run.code, run.stderr).toBe(0);
    expect(summary).toEqual({ sent: files.length, unchanged: 0, deleted: 0, failed: 0 });
    expect(documents).toBe(files.length);
    expect(missing).toEqual([]);
  }, 180_000);

  it("sends the HTML documentation of the machine's Debian packages, none failed, each findable", async (ctx) => {
    const files = spread(
      walk(DEBIAN_DOCS, (name) => /\.html?$/i.test(name)),
      MAX_HTML,
    );
    ctx.skip(files.length === 0, debianHtml(false).missing ?? undefined);
    const { run, summary, documents, missing } = await importFolder(files, DEBIAN_DOCS, "html");
    expect(run.code, run.stderr).toBe(0);
    expect(summary).toEqual({ sent: files.length, unchanged: 0, deleted: 0, failed: 0 });
    expect(documents).toBe(files.length);
    expect(missing).toEqual([]);
  }, 180_000);

  it("two dependencies' folders sharing relative paths, imported with --prune in turn, both survive", async () => {
    // Packages whose markdown files share relative paths (README.md, CHANGELOG.md, docs/…): the case where
    // ids without a source made one folder's import replace and prune the other's.
    const byPackage = new Map<string, string[]>();
    for (const name of readdirSync(NODE_MODULES).sort()) {
      if (name.startsWith(".") || name.startsWith("@")) continue;
      const root = join(NODE_MODULES, name);
      const files = walk(root, (file) => /\.md$/i.test(file)).map((path) => relative(root, path));
      if (files.length > 0) byPackage.set(name, files);
    }
    const [first, second] = [...byPackage.entries()]
      .filter(([, files]) => files.some((f) => f.toLowerCase() === "readme.md"))
      .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
    if (!first || !second) throw new Error("no two dependencies with a README.md");
    const shared = first[1].filter((f) => second[1].includes(f));
    expect(shared.length).toBeGreaterThan(0);
    await withServer(async (s) => {
      const folders = [first, second].map(([name, files]) => {
        const folder = join(s.tmp, name);
        for (const file of files) {
          mkdirSync(dirname(join(folder, file)), { recursive: true });
          copyFileSync(join(NODE_MODULES, name, file), join(folder, file));
        }
        return { name, folder, files };
      });
      const importOne = (folder: string) =>
        runCli(["import", folder, "--url", s.url, "--key", s.apiKey, "--prune"]);
      for (let turn = 0; turn < 2; turn++) {
        for (const { folder } of folders) {
          const run = await importOne(folder);
          expect(run.code, run.stderr).toBe(0);
          expect(summaryOf(run.stdout)).toMatchObject({ deleted: 0, failed: 0 });
        }
      }
      const ids = new Set((await s.documents()).map((d) => d.externalId));
      for (const { name, files } of folders) {
        for (const file of files) expect(ids.has(`file:${name}/${file}`), `${name}/${file}`).toBe(true);
      }
      expect(ids.size).toBe(folders.reduce((sum, { files }) => sum + files.length, 0));
    });
  }, 180_000);
});
