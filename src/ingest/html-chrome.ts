// What of an HTML page is the site and not the page: the elements a reader skips (navigation, banners,
// sidebars, footers, search boxes, popups, hidden elements, permalink marks) and the ones that hold the page's
// own content (<main>, [role=main], <article>). Decided from one start tag at a time, so the streaming
// reader (html.ts, through html-page-policy.ts) can act on it without building a tree. The generators' class
// and id names below were read off their real output (Debian's documentation packages) or their published
// templates; see docs/ingest/html.md for the survey and docs/decisions/0031-html-main-content.md for the
// measurements.

/** The attributes of a start tag that decide its part in the page, lowercased where HTML ignores case. */
export interface TagAttributes {
  classes: readonly string[];
  id: string;
  role: string;
  href: string | null;
  hidden: boolean;
  open: boolean;
}

/** Which documentation generator wrote the page, where its markup needs rules of its own. */
export type Generator = "texinfo" | "doxygen" | "other";

/** What a start tag opens: chrome to skip, the page's main content, an article, or an ordinary element. */
export type TagRole = "chrome" | "main" | "article" | "title" | "content";

// Elements that are the site around a page wherever they stand.
const chromeElements: ReadonlySet<string> = new Set(["nav", "aside", "footer", "button", "search", "menu"]);

// ARIA roles of the same landmarks, and of widgets that are controls or popups, not text.
const chromeRoles: ReadonlySet<string> = new Set([
  "navigation",
  "banner",
  "search",
  "contentinfo",
  "complementary",
  "dialog",
  "alertdialog",
  "menu",
  "menubar",
  "toolbar",
  "tooltip",
  "button",
]);

/**
 * Class names of sidebars, headers, popups and permalinks that mean the same on any site: each names one
 * generator's or theme's chrome and no content anywhere else (so "header" or "contents", which Doxygen and
 * Javadoc use for content, are not here but under their generator).
 */
const chromeClasses: ReadonlySet<string> = new Set([
  // Sphinx (basic, alabaster, classic, sphinx13, Read the Docs, Furo, PyData) and docutils.
  "sphinxsidebar",
  "sphinxsidebarwrapper",
  "related",
  "headerlink",
  "wy-nav-side",
  "wy-breadcrumbs",
  "rst-versions",
  "rst-footer-buttons",
  "sidebar-drawer",
  "toc-drawer",
  "related-pages",
  "mobile-header",
  "bd-sidebar",
  "bd-sidebar-primary",
  "bd-sidebar-secondary",
  "prev-next-area",
  // MkDocs (mkdocs and readthedocs themes) and Material for MkDocs.
  "navbar",
  "bs-sidebar",
  "md-header",
  "md-sidebar",
  "md-footer",
  "md-search",
  "md-dialog",
  "md-tabs",
  "md-source-file",
  "md-content__button",
  // mdBook.
  "menu-bar",
  "nav-wrapper",
  "nav-wide-wrapper",
  "nav-chapters",
  "mobile-nav-chapters",
  "theme-popup",
  // rustdoc: the sidebar, the "§" anchors, "Source" links, the version and source at a heading's right,
  // "Copy item path", the notable-traits popup and the "Expand description" toggle.
  "sidebar",
  "anchor",
  "src",
  "srclink",
  "rightside",
  "out-of-band",
  "since",
  "notable-traits-tooltiptext",
  "hideme",
  "sub-heading",
  "search-form",
  "sub-logo-container",
  "logo-container",
  "test-arrow",
  // Javadoc.
  "top-nav",
  "sub-nav",
  "bottom-nav",
  "skip-nav",
  "nav-list-search",
  "legal-copy",
  // Doxygen.
  "navpath",
  "footer",
  "summary-links",
  // Docusaurus.
  "theme-doc-sidebar-container",
  "theme-doc-toc-desktop",
  "theme-doc-toc-mobile",
  "theme-doc-breadcrumbs",
  "theme-doc-footer",
  "theme-edit-this-page",
  "theme-last-updated",
  "theme-doc-version-badge",
  "pagination-nav",
  "table-of-contents",
  "hash-link",
  "navbar-sidebar",
  // Hugo and Jekyll themes (minima, just-the-docs, docsy, PaperMod, Ananke).
  "site-header",
  "site-footer",
  "site-nav",
  "side-bar",
  "breadcrumb",
  "breadcrumbs",
  "skip-link",
  "td-sidebar",
  "td-sidebar-toc",
  "td-page-meta",
  "post-nav",
  "paginav",
  "share-buttons",
  "toc",
  // Confluence exports.
  "page-metadata",
  "breadcrumb-section",
  "pageSection",
  // Pages that hide parts until asked: screen-reader-only skip links and print-only blocks.
  "visually-hidden",
  "sr-only",
  "screen-reader-text",
  "hidden",
]);

/** Ids of the same, where a generator names its chrome by id. */
const chromeIds: ReadonlySet<string> = new Set([
  // mdBook: the sidebar, the menu bar, the search box and the keyboard-shortcuts popup.
  "sidebar",
  "menu-bar",
  "menu-bar-hover-placeholder",
  "search-wrapper",
  "searchbar-outer",
  "mdbook-help-container",
  "mdbook-help-popup",
  "help",
  "settings",
  // rustdoc.
  "copy-path",
  "toggle-all-docs",
  "rustdoc-toc",
  "rustdoc-modnav",
  // Sphinx's search box, Django's documentation theme (header, global navigation, sidebar, footer).
  "searchbox",
  "hd",
  "global-nav",
  "ft",
  // Doxygen's menus, tree and search.
  "titlearea",
  "main-nav",
  "nav-tree",
  "side-nav",
  "nav-path",
  "msearchbox",
  "msearchselectwindow",
  "msearchresultswindow",
  "navrow1",
  "navrow2",
  // AsciiDoc's "Last updated" footer and its generated table of contents.
  "footer",
  "toc",
  "toctitle",
  // Confluence exports.
  "breadcrumb-section",
  "main-header",
  "footer-logo",
  // Hugo's generated table of contents.
  "tableofcontents",
]);

// Texinfo's navigation line ("Next: …, Previous: …, Up: …") and its tables of contents.
const texinfoChromeClasses: ReadonlySet<string> = new Set([
  "header",
  "nav-panel",
  "contents",
  "shortcontents",
  "contents-heading",
  "shortcontents-heading",
  "region-contents",
  "Contents_element",
  "Overview_element",
]);
// Doxygen's title bar (a Texinfo manual's first node has the same id, and holds the whole manual).
const doxygenChromeIds: ReadonlySet<string> = new Set(["top"]);
// Doxygen's "Data Structures | Macros | Functions" line at the top of a file's page.
const doxygenChromeClasses: ReadonlySet<string> = new Set(["summary"]);
// Doxygen's page title is a <div class="title"> inside <div class="headertitle">, not a heading.
const doxygenTitleClasses: ReadonlySet<string> = new Set(["title"]);

/** Which generator a `<meta name="generator" content="…">` names. */
export function generatorOf(content: string): Generator {
  if (/makeinfo|texi2any|texi2html/i.test(content)) return "texinfo";
  if (/doxygen/i.test(content)) return "doxygen";
  return "other";
}

/** Whether an inline style hides the element (display: none or visibility: hidden). */
function hiddenByStyle(style: string): boolean {
  return /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i.test(style);
}

/**
 * What a start tag opens. `inSection` says whether it stands inside <main>, <article> or <section>, where a
 * <header> is the section's own (its title), not the site's banner.
 */
export function tagRole(
  name: string,
  attributes: TagAttributes,
  generator: Generator,
  inSection: boolean,
): TagRole {
  if (attributes.hidden) return "chrome";
  if (name === "dialog" && !attributes.open) return "chrome";
  if (chromeElements.has(name)) return "chrome";
  if (name === "header" && !inSection) return "chrome";
  if (attributes.role !== "" && chromeRoles.has(attributes.role)) return "chrome";
  if (attributes.id !== "" && chromeIds.has(attributes.id)) return "chrome";
  if (generator === "doxygen" && doxygenChromeIds.has(attributes.id)) return "chrome";
  for (const token of attributes.classes) {
    if (chromeClasses.has(token)) return "chrome";
    if (generator === "texinfo" && texinfoChromeClasses.has(token)) return "chrome";
    if (generator === "doxygen" && doxygenChromeClasses.has(token)) return "chrome";
  }
  if (name === "main" || attributes.role === "main") return "main";
  if (name === "article") return "article";
  if (generator === "doxygen" && name === "div" && attributes.classes.some((c) => doxygenTitleClasses.has(c)))
    return "title";
  return "content";
}

/** JavaScript's `\s`, by UTF-16 unit: the ASCII cases inline, the rare others through the class. */
function isSpaceUnit(tag: string, at: number): boolean {
  const c = tag.charCodeAt(at);
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  return c >= 128 && /\s/.test(tag.charAt(at));
}

/** A unit of an attribute's name: not white space, `"`, `'`, `>`, `/` or `=`. */
function isNameUnit(tag: string, at: number): boolean {
  const c = tag.charCodeAt(at);
  if (c === 34 || c === 39 || c === 62 || c === 47 || c === 61) return false;
  return !isSpaceUnit(tag, at);
}

/** A unit of an unquoted value: not white space, `"`, `'`, `=`, `<`, `>` or a backtick. */
function isUnquotedUnit(tag: string, at: number): boolean {
  const c = tag.charCodeAt(at);
  if (c === 34 || c === 39 || c === 61 || c === 60 || c === 62 || c === 96) return false;
  return !isSpaceUnit(tag, at);
}

/** A class attribute's tokens, split at HTML's white space. */
function classTokens(value: string): string[] {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i <= value.length; i++) {
    const c = i < value.length ? value.charCodeAt(i) : 32;
    const space = c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
    if (!space && start < 0) start = i;
    else if (space && start >= 0) {
      tokens.push(start === 0 && i === value.length ? value : value.slice(start, i));
      start = -1;
    }
  }
  return tokens;
}

/**
 * The attributes of a start tag's source that tagRole reads. Attributes are read once each, left to right;
 * the first of a name counts, as in browsers. Called for most start tags of a page, so it allocates nothing
 * for the attributes it does not read and lowercases a name only when its length could be one of them.
 * Read by a scan that takes what the pattern
 * /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g would match, left to right: the
 * pattern's exec allocated a match of four groups per attribute, and was an eighth of reading a 5 MiB page
 * of real pages (decision 0052).
 */
export function tagAttributes(tag: string, nameLength: number): TagAttributes {
  const found: TagAttributes = { classes: [], id: "", role: "", href: null, hidden: false, open: false };
  // One bit per attribute read: class, id, role, href, hidden, aria-hidden, style, open.
  let seen = 0;
  // The tag's closing ">": an attribute must start before it.
  const end = tag.length - 1;
  let i = 1 + nameLength;
  while (i < tag.length) {
    while (i < tag.length && !isNameUnit(tag, i)) i++;
    if (i >= end) break;
    const nameStart = i;
    while (i < tag.length && isNameUnit(tag, i)) i++;
    const nameEnd = i;
    // A value when "=" follows (white space around it allowed); else, or when the value is none of the
    // three forms (an unclosed quote), the attribute is its name alone and the scan goes on after it.
    let valueStart = -1;
    let valueEnd = -1;
    let j = nameEnd;
    while (j < tag.length && isSpaceUnit(tag, j)) j++;
    if (tag.charCodeAt(j) === 61) {
      j++;
      while (j < tag.length && isSpaceUnit(tag, j)) j++;
      const quote = tag.charCodeAt(j);
      if (quote === 34 || quote === 39) {
        const close = tag.indexOf(quote === 34 ? '"' : "'", j + 1);
        if (close !== -1) {
          valueStart = j + 1;
          valueEnd = close;
          i = close + 1;
        }
      } else {
        let k = j;
        while (k < tag.length && isUnquotedUnit(tag, k)) k++;
        if (k > j) {
          valueStart = j;
          valueEnd = k;
          i = k;
        }
      }
    }
    const bit = attributeBit(tag, nameStart, nameEnd - nameStart);
    if (bit === 0 || (seen & bit) !== 0) continue;
    seen |= bit;
    const value = valueStart < 0 ? "" : tag.slice(valueStart, valueEnd);
    switch (bit) {
      case classBit:
        found.classes = classTokens(value);
        break;
      case idBit:
        found.id = value.toLowerCase();
        break;
      case roleBit:
        // A role attribute lists fallbacks; the first one a browser knows wins, and these are all known.
        found.role = (value.trim().split(/\s+/)[0] ?? "").toLowerCase();
        break;
      case hrefBit:
        found.href = value;
        break;
      case hiddenBit:
        found.hidden = true;
        break;
      case ariaHiddenBit:
        if (value.trim().toLowerCase() === "true") found.hidden = true;
        break;
      case styleBit:
        if (hiddenByStyle(value)) found.hidden = true;
        break;
      case openBit:
        found.open = true;
        break;
    }
  }
  return found;
}

const classBit = 1;
const idBit = 2;
const roleBit = 4;
const hrefBit = 8;
const hiddenBit = 16;
const ariaHiddenBit = 32;
const styleBit = 64;
const openBit = 128;

/** The attributes read, by the length of their names (only these lengths can be one). */
const attributesByLength: ReadonlyMap<number, ReadonlyArray<readonly [string, number]>> = new Map([
  [2, [["id", idBit]]],
  [
    4,
    [
      ["role", roleBit],
      ["href", hrefBit],
      ["open", openBit],
    ],
  ],
  [
    5,
    [
      ["class", classBit],
      ["style", styleBit],
    ],
  ],
  [6, [["hidden", hiddenBit]]],
  [11, [["aria-hidden", ariaHiddenBit]]],
]);

/**
 * The bit of the attribute named at `start` (ASCII case-insensitively), or 0 for one that is not read:
 * compared in place, so the names of the attributes not read (most of a page's) are never copied.
 */
function attributeBit(tag: string, start: number, length: number): number {
  const candidates = attributesByLength.get(length);
  if (!candidates) return 0;
  next: for (const [name, bit] of candidates) {
    // `| 32` lowercases an ASCII letter and leaves "-" as it is; no other unit of a name maps onto these.
    for (let i = 0; i < length; i++)
      if ((tag.charCodeAt(start + i) | 32) !== name.charCodeAt(i)) continue next;
    return bit;
  }
  return 0;
}
