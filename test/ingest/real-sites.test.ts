// Real generated documentation sites nobody here wrote, as Debian's documentation packages install them
// (the packages are installed by .ci/run): each page must be titled as itself, not as its site or its
// sidebar, and no passage may hold the site's navigation. A fixed, evenly spaced sample of each site's pages
// keeps the run short and the same on every machine. A site whose package is absent is skipped, and says so.

import { describe, expect } from "vitest";
import { chunkDocument, type Passage } from "../../src/ingest/chunk.js";
import { titleOf } from "../../src/ingest/document-title.js";
import { loadFrontMatterParsers } from "../../src/ingest/front-matter-parsers.js";
import {
  chromeTitles,
  markInHeading,
  maxPagesSharingATitle,
  minOwnTitleShare,
  navigationLines,
  packageFiles,
  samplePages,
  sites,
} from "../support/doc-sites.js";
import { debianPackage, needs } from "../support/outside.js";
import { goldenTitles } from "./real-sites.golden.js";

const parsers = await loadFrontMatterParsers();

function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

describe.each(sites)("the $generator site of $package", (site) => {
  const files = packageFiles(site.package);
  const pages = files ? samplePages(site, files) : [];
  const installed = needs(debianPackage(site.package, pages.length > 0));
  const read = pages.map((page) => {
    const title = titleOf(page.content, "html", fileName(page.path), parsers);
    const passages: Passage[] = chunkDocument({ title, content: page.content, format: "html" });
    return { ...page, title, passages };
  });

  installed.it("titles at least 95% of its pages as themselves, not as the site or a sidebar", () => {
    const counts = new Map<string, number>();
    for (const page of read) counts.set(page.title, (counts.get(page.title) ?? 0) + 1);
    const notOwn = read.filter(
      (page) =>
        chromeTitles.has(page.title.toLowerCase()) ||
        page.title === fileName(page.path).replace(/\.html?$/, "") ||
        (counts.get(page.title) ?? 0) > maxPagesSharingATitle,
    );
    const share = 1 - notOwn.length / read.length;
    expect(share, notOwn.map((page) => `${page.path}: ${page.title}`).join("\n")).toBeGreaterThanOrEqual(
      minOwnTitleShare,
    );
  });

  installed.it("titles the pages checked by hand as they title themselves", () => {
    const checked = read.filter((page) => goldenTitles[page.path] !== undefined);
    for (const page of checked) expect(page.title, page.path).toBe(goldenTitles[page.path]);
  });

  installed.it("keeps its navigation, sidebars and permalink marks out of every passage", () => {
    const found: string[] = [];
    for (const page of read) {
      for (const passage of page.passages) {
        for (const pattern of navigationLines) {
          if (pattern.test(passage.text))
            found.push(`${page.path}: ${pattern} in passage ${passage.ordinal}`);
        }
        if (markInHeading.test(passage.heading))
          found.push(`${page.path}: a mark in heading ${passage.ordinal}`);
      }
    }
    expect(found).toEqual([]);
  });

  // A sidebar's table of contents is a list of the site's pages, the same list on every page; content that
  // pages share (rustdoc's blanket implementations, a licence paragraph) is prose, not list items.
  installed.it("keeps no list item that most of its pages repeat (a sidebar's table of contents)", () => {
    const pagesWithLine = new Map<string, number>();
    for (const page of read) {
      const lines = new Set(
        page.passages.flatMap((passage) =>
          passage.text
            .split("\n")
            .filter((line) => /^\s*- /.test(line))
            .map((line) => line.replace(/^\s*- /, "").trim()),
        ),
      );
      for (const line of lines)
        if (/\p{L}{3}/u.test(line)) pagesWithLine.set(line, (pagesWithLine.get(line) ?? 0) + 1);
    }
    const repeated = [...pagesWithLine].filter(([, count]) => count > read.length / 2 && read.length >= 10);
    expect(repeated.map(([line, count]) => `${count}/${read.length}: ${line.slice(0, 80)}`)).toEqual([]);
  });
});
