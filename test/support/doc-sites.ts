// Real generated documentation sites, as Debian's documentation packages install them (.ci/run installs
// the packages): which package holds which generator's pages, and a fixed, evenly spaced sample of each
// site's pages. Used by test/ingest/real-sites.test.ts and by bench/html-extractors.ts.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

export interface Site {
  generator: string;
  package: string;
  /** Which of the package's HTML files are pages of this site. */
  pages: RegExp;
}

export const sites: readonly Site[] = [
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

// Enough pages to tell a site's own title from a shared one, few enough to keep a test to seconds.
export const samplePerSite = 40;

/** The HTML and other files a Debian package installed, or null when it is not installed. */
export function packageFiles(name: string): string[] | null {
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
export function samplePages(site: Site, files: readonly string[]): { path: string; content: string }[] {
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

// Pages the site itself calls by one name are few: mdBook's editions of a chapter ("Comments" twice).
export const maxPagesSharingATitle = 2;
// The share of pages that must be titled as themselves (the bar).
export const minOwnTitleShare = 0.95;

// Titles that name a sidebar, a popup or a placeholder, never a page.
export const chromeTitles = new Set(
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
export const navigationLines: readonly RegExp[] = [
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
export const markInHeading = /[¶§]\s*(?:›|$)/;
