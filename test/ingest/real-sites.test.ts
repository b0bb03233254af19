// Real generated documentation sites nobody here wrote, as Debian's documentation packages install them
// (the packages are installed by .ci/run): each page must be titled as itself, not as its site or its
// sidebar, and no passage may hold the site's navigation. A fixed, evenly spaced sample of each site's pages
// keeps the run short and the same on every machine. A site whose package is absent is skipped, and says so.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { chunkDocument, type Passage } from "../../src/ingest/chunk.js";
import { titleOf } from "../../src/ingest/title.js";
import { goldenTitles } from "./real-sites.golden.js";

interface Site {
  generator: string;
  package: string;
  /** Which of the package's HTML files are pages of this site. */
  pages: RegExp;
}

const sites: readonly Site[] = [
  { generator: "Sphinx", package: "sphinx-doc", pages: /\/sphinx-doc\/html\/(?!_modules\/)/ },
  { generator: "Sphinx (Django's theme)", package: "python-django-doc", pages: /\/html\/(?!_modules\/)/ },
  { generator: "MkDocs", package: "mkdocs-doc", pages: /\/mkdocs\/html\/(?!404)/ },
  {
    generator: "mdBook",
    package: "rust-doc",
    pages: /\/rust-doc\/html\/(?:book|reference|nomicon|edition-guide|rust-by-example|embedded-book|rustc)\//,
  },
  { generator: "rustdoc", package: "rust-doc", pages: /\/rust-doc\/html\/(?:std|alloc|core)\/(?!.*\/src\/)/ },
  { generator: "rustdoc (a crate's docs)", package: "cargo-doc", pages: /\/cargo\/doc\/(?!src\/)/ },
  { generator: "Javadoc", package: "libcommons-lang3-java-doc", pages: /\/api\/(?!src-html\/)/ },
  // Doxygen's alphabetical member indexes (functions_a.html … globals_z.html) are one page cut by letter,
  // and Doxygen titles every part alike ("Data Fields"); they are left out of the sample.
  {
    generator: "Doxygen (SDL)",
    package: "libsdl2-doc",
    pages: /\/html\/(?!(?:.*\/)?(?:functions|globals)[^/]*$)/,
  },
  {
    generator: "Doxygen (Xerces-C)",
    package: "libxerces-c-doc",
    pages: /\/html\/apiDocs-3\/(?!(?:functions|globals|namespacemembers)[^/]*$)/,
  },
  { generator: "Texinfo (texi2html)", package: "gettext-doc", pages: /\/gettext_\d+\.html$/ },
  {
    generator: "Texinfo (texi2any)",
    package: "r-doc-html",
    pages: /^\/usr\/share\/R\/doc\/manual\/R-[^/]+\.html$/,
  },
  { generator: "AsciiDoc", package: "git-doc", pages: /\/git-doc\/[^/]+\.html$/ },
];

// Enough pages to tell a site's own title from a shared one, few enough to keep this test to seconds.
const samplePerSite = 40;
// Pages the site itself calls by one name are few: mdBook's editions of a chapter ("Comments" twice).
const maxPagesSharingATitle = 2;
// The share of pages that must be titled as themselves (the bar).
const minOwnTitleShare = 0.95;

// Titles that name a sidebar, a popup or a placeholder, never a page.
const chromeTitles = new Set(
  [
    "Previous topic",
    "Next topic",
    "This Page",
    "Quick search",
    "Navigation",
    "Site navigation",
    "On this page",
    "Table of Contents",
    "Contents",
    "Keyboard shortcuts",
    "Settings",
    "Help",
    "logo",
    "Redirection",
    "Redirecting...",
    "Source code",
  ].map((title) => title.toLowerCase()),
);

// What navigation leaves in a passage, as lines of their own (a changelog that mentions "Show Source" in a
// sentence is content): Sphinx's sidebar, rustdoc's and mdBook's controls, Texinfo's navigation line and
// bracketed link rows, Javadoc's bars, Doxygen's menus, generators' footers, and permalink marks.
const navigationLines: readonly RegExp[] = [
  /^(?:Previous topic|Next topic|Show Source|Show this page source|Report a Bug|Quick search|This Page|Navigation)$/m,
  /^(?:Keyboard shortcuts|Copy item path|Expand description|Toggle Table of Contents|Change theme|Source|source)$/m,
  /^(?:Next|Previous|Up):/m,
  /^\s*(?:\[\s*(?:<<|>>|<|>|\?|Top|Contents|Index|Up|)\s*\][\s|]*){2,}$/m,
  /^(?:Skip navigation links|PREV NEXT|FRAMES NO FRAMES)/m,
  /^(?:Main Page|Related Pages)\b.*\|/m,
  /^This document was generated .* using texi2html/m,
  /^\s*[¶§]\s*$/m,
];
// A permalink mark left at the end of a heading of the trail ("Installation¶ › Linux§").
const markInHeading = /[¶§]\s*(?:›|$)/;

function packageFiles(name: string): string[] | null {
  try {
    return execFileSync("dpkg-query", ["-L", name], { encoding: "utf8", maxBuffer: 1 << 28 }).split("\n");
  } catch {
    return null;
  }
}

/**
 * The site's pages as a fixed sample: sorted by path, evenly spaced, each the first page at or after its
 * place that is not a redirect stub (rustdoc's and mdBook's "Redirecting…" pages have no content).
 */
function samplePages(site: Site, files: readonly string[]): { path: string; content: string }[] {
  const candidates = files.filter((file) => /\.html?$/.test(file) && site.pages.test(file)).sort();
  const step = Math.max(1, candidates.length / samplePerSite);
  const pages: { path: string; content: string }[] = [];
  for (let place = 0; place < candidates.length; place += step) {
    for (let i = Math.floor(place); i < Math.min(candidates.length, Math.floor(place + step)); i++) {
      const path = candidates[i] as string;
      const content = readFileSync(path, "utf8");
      if (/<meta[^>]+http-equiv\s*=\s*["']?refresh/i.test(content)) continue;
      pages.push({ path, content });
      break;
    }
  }
  return pages;
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

describe.each(sites)("the $generator site of $package", (site) => {
  const files = packageFiles(site.package);
  const pages = files ? samplePages(site, files) : [];
  const absent = pages.length === 0;
  if (absent)
    console.warn(
      `skipped: Debian package ${site.package} is not installed (apt-get install ${site.package})`,
    );
  const read = pages.map((page) => {
    const title = titleOf(page.content, "html", fileName(page.path));
    const passages: Passage[] = chunkDocument({ title, content: page.content, format: "html" });
    return { ...page, title, passages };
  });

  it.skipIf(absent)("titles at least 95% of its pages as themselves, not as the site or a sidebar", () => {
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

  it.skipIf(absent)("titles the pages checked by hand as they title themselves", () => {
    const checked = read.filter((page) => goldenTitles[page.path] !== undefined);
    for (const page of checked) expect(page.title, page.path).toBe(goldenTitles[page.path]);
  });

  it.skipIf(absent)("keeps its navigation, sidebars and permalink marks out of every passage", () => {
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
  it.skipIf(absent)(
    "keeps no list item that most of its pages repeat (a sidebar's table of contents)",
    () => {
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
    },
  );
});
