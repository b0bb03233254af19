// Main content of real generated pages: memoria's rules on its streaming reader (src/ingest/html.ts and
// html-chrome.ts) against a maintained extractor, Mozilla's Readability over a linkedom DOM, on the same
// sampled pages of Debian's documentation sites (test/support/doc-sites.ts). Per generator: the share of
// pages titled as themselves (not a sidebar's or the site's title, not shared by more than two pages, not the
// file name), the passages that hold navigation, and the median milliseconds a page, also as a ratio to a
// floor measured in the same run (the page chunked as plain text: reading it with no markup rules at all).
//
//   npx tsx bench/html-extractors.ts
//
// Timings on a shared machine are noisy; the ratios are what to compare.

import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { chunkDocument, defaultChunkLimits, type Passage } from "../src/ingest/chunk.js";
import { titleOf } from "../src/ingest/document-title.js";
import { loadFrontMatterParsers } from "../src/ingest/front-matter-parsers.js";
import { renderHtml } from "../src/ingest/html.js";
import { SectionBuilder } from "../src/ingest/sections.js";
import {
  chromeTitles,
  markInHeading,
  maxPagesSharingATitle,
  navigationLines,
  packageFiles,
  samplePages,
  sites,
} from "../test/support/doc-sites.js";
import { realPagesHtml } from "./chunk.js";

interface Read {
  path: string;
  title: string;
  passages: Passage[];
  ms: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function ownTitleShare(read: readonly Read[]): number {
  const counts = new Map<string, number>();
  for (const page of read) counts.set(page.title, (counts.get(page.title) ?? 0) + 1);
  const own = read.filter(
    (page) =>
      page.title !== "" &&
      !chromeTitles.has(page.title.toLowerCase()) &&
      page.title !== fileName(page.path).replace(/\.html?$/, "") &&
      (counts.get(page.title) ?? 0) <= maxPagesSharingATitle,
  );
  return own.length / Math.max(1, read.length);
}

function chromePassages(read: readonly Read[]): number {
  let count = 0;
  for (const page of read)
    for (const passage of page.passages)
      if (navigationLines.some((p) => p.test(passage.text)) || markInHeading.test(passage.heading)) count++;
  return count;
}

function timed<T>(work: () => T): [T, number] {
  const start = performance.now();
  const result = work();
  return [result, performance.now() - start];
}

const parsers = await loadFrontMatterParsers();
const rows: string[] = [
  "| generator | pages | titled right: rules | titled right: Readability | chrome passages: rules | chrome passages: Readability | ms a page: floor | rules (× floor) | Readability (× floor) |",
  "|---|---|---|---|---|---|---|---|---|",
];
const onlyBigPage = process.argv.includes("--big-page-only");
for (const site of onlyBigPage ? [] : sites) {
  const files = packageFiles(site.package);
  if (!files) {
    console.error(`skipped ${site.generator}: ${site.package} is not installed`);
    continue;
  }
  const pages = samplePages(site, files);
  const floor: number[] = [];
  const rules: Read[] = [];
  const readability: Read[] = [];
  for (const page of pages) {
    const name = fileName(page.path);
    floor.push(timed(() => chunkDocument({ title: name, content: page.content, format: "text" }))[1]);
    const [ours, oursMs] = timed(() => {
      const title = titleOf(page.content, "html", name, parsers);
      return { title, passages: chunkDocument({ title, content: page.content, format: "html" }) };
    });
    rules.push({ path: page.path, ...ours, ms: oursMs });
    const [theirs, theirsMs] = timed(() => {
      const { document } = parseHTML(page.content);
      const article = new Readability(
        document as unknown as ConstructorParameters<typeof Readability>[0],
      ).parse();
      const title = article?.title?.trim() || name.replace(/\.html?$/, "");
      // Readability's article HTML, chunked as memoria chunks HTML, so passages compare like for like.
      const passages = chunkDocument({ title, content: article?.content ?? "", format: "html" });
      return { title, passages };
    });
    readability.push({ path: page.path, ...theirs, ms: theirsMs });
  }
  const floorMs = median(floor);
  const pct = (share: number) => `${Math.round(share * 100)}%`;
  const ratio = (read: Read[]) =>
    `${median(read.map((r) => r.ms)).toFixed(2)} (${(median(read.map((r) => r.ms)) / floorMs).toFixed(1)}×)`;
  rows.push(
    `| ${site.generator} | ${pages.length} | ${pct(ownTitleShare(rules))} | ${pct(ownTitleShare(readability))} | ${chromePassages(rules)} | ${chromePassages(readability)} | ${floorMs.toFixed(2)} | ${ratio(rules)} | ${ratio(readability)} |`,
  );
}
console.log(rows.join("\n"));

// A 5 MiB page (the largest document memoria takes) made of real pages, Sphinx's and rustdoc's, each whole
// with its chrome, one after another (realPagesHtml, the page the chunk suite measures in fresh processes):
// chunked as HTML against the same bytes chunked as plain text (the floor), medians of 5 runs after a
// warm-up. The bar is 3×.
const big = realPagesHtml(5 * 1024 * 1024);
if (big !== null) {
  const runs = (work: () => unknown) => {
    work();
    return median(Array.from({ length: 5 }, () => timed(work)[1]));
  };
  const text = runs(() => chunkDocument({ title: "big", content: big, format: "text" }));
  const html = runs(() => chunkDocument({ title: "big", content: big, format: "html" }));
  // The same reader without the page rules (as HTML inside markdown is read): what the rules themselves cost.
  const fragment = runs(() => {
    const sections = new SectionBuilder("big", defaultChunkLimits.maxPassageChars);
    renderHtml(big, sections);
    return sections.finish();
  });
  console.log(
    `\n5 MiB page of real pages, median ms: floor (as text) ${text.toFixed(0)}, HTML ${html.toFixed(0)} ` +
      `(${(html / text).toFixed(2)}×), HTML without the page rules ${fragment.toFixed(0)} (${(fragment / text).toFixed(2)}×)`,
  );
}
