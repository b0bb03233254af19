// What of an HTML page is the site and not the page: the elements a reader skips (navigation, banners,
// sidebars, footers, search boxes, popups, hidden elements, permalink marks) and the ones that hold the page's
// own content (<main>, [role=main], <article>). Decided from one start tag at a time, so the streaming
// reader (html.ts) can act on it without building a tree. The generators' class and id names below were
// read off their real output (Debian's documentation packages) or their published templates; see
// docs/ingest/html.md for the survey and docs/decisions/0031-html-main-content.md for the measurements.

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

const attributePattern = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/**
 * The attributes of a start tag's source that tagRole reads. Attributes are read once each, left to right;
 * the first of a name counts, as in browsers. Called for most start tags of a page, so it allocates nothing
 * for the attributes it does not read and lowercases a name only when its length could be one of them.
 */
export function tagAttributes(tag: string, nameLength: number): TagAttributes {
  const found: TagAttributes = { classes: [], id: "", role: "", href: null, hidden: false, open: false };
  // One bit per attribute read: class, id, role, href, hidden, aria-hidden, style, open.
  let seen = 0;
  attributePattern.lastIndex = 1 + nameLength;
  const end = tag.length - 1;
  for (
    let match = attributePattern.exec(tag);
    match && match.index < end;
    match = attributePattern.exec(tag)
  ) {
    const raw = match[1] ?? "";
    const length = raw.length;
    if (length !== 2 && length !== 4 && length !== 5 && length !== 6 && length !== 11) continue;
    const key = raw.toLowerCase();
    const bit = attributeBits.get(key);
    if (bit === undefined || (seen & bit) !== 0) continue;
    seen |= bit;
    const value = match[2] ?? match[3] ?? match[4] ?? "";
    switch (key) {
      case "class":
        found.classes = value.split(/[\t\n\f\r ]+/).filter((c) => c !== "");
        break;
      case "id":
        found.id = value.toLowerCase();
        break;
      case "role":
        // A role attribute lists fallbacks; the first one a browser knows wins, and these are all known.
        found.role = (value.trim().split(/\s+/)[0] ?? "").toLowerCase();
        break;
      case "href":
        found.href = value;
        break;
      case "hidden":
        found.hidden = true;
        break;
      case "aria-hidden":
        if (value.trim().toLowerCase() === "true") found.hidden = true;
        break;
      case "style":
        if (hiddenByStyle(value)) found.hidden = true;
        break;
      case "open":
        found.open = true;
        break;
    }
  }
  return found;
}

const attributeBits: ReadonlyMap<string, number> = new Map([
  ["class", 1],
  ["id", 2],
  ["role", 4],
  ["href", 8],
  ["hidden", 16],
  ["aria-hidden", 32],
  ["style", 64],
  ["open", 128],
]);
