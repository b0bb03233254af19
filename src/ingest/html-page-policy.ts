// Which parts of a whole page the HTML reader (html.ts) passes on: the site's chrome is skipped, Doxygen's
// title <div> is read as a heading, permalink marks and navigation lines are left out, and of what remains
// only the main content is reported. What each start tag opens is html-chrome.ts's to say; this keeps the
// regions open while the page streams by, as counts rather than a stack, so nesting costs nothing.

import type { Generator, TagAttributes } from "./html-chrome.js";
import { generatorOf, tagAttributes, tagRole } from "./html-chrome.js";
import type { BlockKind, Outline } from "./outline.js";

// Elements with no content: they open no region, whatever their attributes.
const voidElements: ReadonlySet<string> = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
// Elements whose end tag may be left out: a region opened on one could never be seen to close, so their
// attributes decide nothing (a hidden <li> stays; none of the surveyed generators hides one).
const optionalEndElements: ReadonlySet<string> = new Set([
  "body",
  "caption",
  "colgroup",
  "dd",
  "dt",
  "head",
  "html",
  "li",
  "optgroup",
  "option",
  "p",
  "rb",
  "rp",
  "rt",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
]);

/**
 * An element the reader is inside, closed when as many end tags of its name have been read as start tags
 * since it opened: a count, not a stack, so nesting costs nothing.
 */
interface Region {
  name: string;
  depth: number;
}

/** Opens `name` inside `region` (one more of its name) or closes one; true when the region itself closed. */
function regionEnded(region: Region, name: string, start: boolean): boolean {
  if (name !== region.name) return false;
  region.depth += start ? 1 : -1;
  return region.depth === 0;
}

const noAttributes: TagAttributes = { classes: [], id: "", role: "", href: null, hidden: false, open: false };

const wordCharacter = /[\p{L}\p{N}]/u;

// Texinfo's navigation line, "Next: A, Previous: B, Up: C [Contents][Index]", where no class marks it
// (texi2html): two of its labels, or one beside the bracketed links, make the line navigation.
const navigationLabel = /(?:^|[\s,])(?:Next|Previous|Prev|Up|Forward|Back):/g;
const bracketedLinks = /\[(?:Contents|Index|Top)\]/;
// texi2html's rows of bracketed links ("[ << ] | [ >> ] | [Top] | [Contents] | [Index] | [ ? ]"): its labels
// only, as a synopsis of bracketed options ("[-v] [--all]") is content.
const bracketedRow = /^(?:[\s|]*\[\s*(?:<<|>>|<|>|\?|Top|Contents|Index|Up|)\s*\])+[\s|]*$/;
// The line texi2html ends every page with.
const generatorFooter = /^This document was generated (?:by|on) [^\n]* using texi2html\b/;
// A navigation line is short; a paragraph that happens to begin "Next:" is prose.
const maxNavigationLineChars = 400;

/** Whether a block is a navigation line or row that no class marks (texi2html's). */
export function isNavigationText(text: string): boolean {
  if (text.length > maxNavigationLineChars) return false;
  if (bracketedRow.test(text) || generatorFooter.test(text)) return true;
  const labels = text.match(navigationLabel)?.length ?? 0;
  return (
    /^\s*(?:Next|Previous|Prev|Up|Forward|Back):/.test(text) && (labels >= 2 || bracketedLinks.test(text))
  );
}

/** Where a reported heading or block stood: 2 inside the main content, 1 inside an article, 0 elsewhere. */
export type Standing = 0 | 1 | 2;

interface Reported {
  standing: Standing;
  depth: number;
  text: string;
  source: string | undefined;
  kind?: BlockKind | undefined;
}

/**
 * Holds what a page reports until its end, then passes on the main content only: what stood in <main> or
 * [role=main] if the page has any, else what stood in an <article>, else all of it. Kept in order, so the
 * outline downstream sees the page as before, minus the rest; it holds no more than the passages will.
 */
export class MainContent implements Outline {
  private readonly reported: Reported[] = [];
  private best: Standing = 0;

  /** `standing` says where the reader is when a heading or block is reported. */
  constructor(
    private readonly outline: Outline,
    private readonly standing: () => Standing,
  ) {}

  heading(depth: number, text: string, source?: string): void {
    this.keep({ standing: this.standing(), depth, text, source });
  }

  block(text: string, source?: string, kind?: BlockKind): void {
    if (isNavigationText(text)) return;
    this.keep({ standing: this.standing(), depth: 0, text, source, kind });
  }

  private keep(item: Reported): void {
    if (item.text.trim() === "") {
      if (item.depth > 0) this.reported.push(item);
      return;
    }
    if (item.standing > this.best) this.best = item.standing;
    this.reported.push(item);
  }

  finish(): void {
    for (const item of this.reported) {
      if (item.standing < this.best) continue;
      if (item.depth > 0) this.outline.heading(item.depth, item.text, item.source);
      else this.outline.block(item.text, item.source, item.kind);
    }
    this.reported.length = 0;
  }
}

/** What the page's regions need of the reader: the text it is gathering, and its ways of ending it. */
export interface PageText {
  /** The pieces of the line being gathered: an in-page link's are dropped when they hold no word. */
  line(): string[];
  headingOpen(): boolean;
  /** Separates the text around a skipped tag as that tag itself would. */
  separate(name: string): void;
  /** Ends the current run of text. */
  boundary(): void;
  /** Opens the heading a title region is read as. */
  openTitle(): void;
  closeTitle(): void;
}

/**
 * The regions of a page the reader is in, kept from tag to tag: the generator, the chrome being skipped, the
 * main content and article being read, how many sections are open (a <header> in one is the section's own),
 * Doxygen's title <div> read as a heading, and where in the line an in-page link's text began.
 */
export class PageRegions {
  private generator: Generator = "other";
  private skipping: Region | null = null;
  private mainRegion: Region | null = null;
  private articleRegion: Region | null = null;
  private sectionDepth = 0;
  private titleRegion: Region | null = null;
  private anchorFrom = -1;

  constructor(private readonly text: PageText) {}

  /** Whether the reader is inside chrome, whose text is skipped. */
  inChrome(): boolean {
    return this.skipping !== null;
  }

  standing(): Standing {
    if (this.mainRegion) return 2;
    return this.articleRegion ? 1 : 0;
  }

  /**
   * Page reading's part of a start tag: true when the tag was taken (it opened chrome, or it is inside
   * chrome), false when the reader goes on with it as usual.
   */
  start(name: string, tag: string): boolean {
    if (this.skipping) {
      regionEnded(this.skipping, name, true);
      return true;
    }
    if (name === "meta") {
      if (/\bname\s*=\s*["']?generator\b/i.test(tag)) this.generator = generatorOf(tag);
      return false;
    }
    // Most tags carry no attributes; those skip the attribute scan.
    const attributes = tag.length > name.length + 2 ? tagAttributes(tag, name.length) : noAttributes;
    if (name === "a") this.anchorFrom = attributes.href?.startsWith("#") ? this.text.line().length : -1;
    if (voidElements.has(name)) return name === "img" && attributes.hidden;
    if (optionalEndElements.has(name)) return false;
    const inSection = this.sectionDepth > 0 || this.mainRegion !== null || this.articleRegion !== null;
    const role = tagRole(name, attributes, this.generator, inSection);
    if (role === "chrome") {
      this.text.separate(name);
      this.skipping = { name, depth: 1 };
      return true;
    }
    if (this.mainRegion) regionEnded(this.mainRegion, name, true);
    if (this.articleRegion) regionEnded(this.articleRegion, name, true);
    if (this.titleRegion) regionEnded(this.titleRegion, name, true);
    if (name === "main" || name === "article" || name === "section") this.sectionDepth++;
    if (role === "main" && !this.mainRegion) {
      this.text.boundary();
      this.mainRegion = { name, depth: 1 };
    } else if (role === "article" && !this.articleRegion) {
      this.text.boundary();
      this.articleRegion = { name, depth: 1 };
    } else if (role === "title" && !this.titleRegion && !this.text.headingOpen()) {
      this.titleRegion = { name, depth: 1 };
      this.text.openTitle();
      return true;
    }
    return false;
  }

  /** Page reading's part of an end tag: true when it was taken (chrome), false when read as usual. */
  end(name: string): boolean {
    if (this.skipping) {
      if (regionEnded(this.skipping, name, false)) {
        this.skipping = null;
        this.text.separate(name);
      }
      return true;
    }
    if (name === "a" && this.anchorFrom >= 0) {
      const line = this.text.line();
      // An in-page link with no word in it is a permalink mark ("¶", "§", "#"), not text.
      if (this.anchorFrom <= line.length && !wordCharacter.test(line.slice(this.anchorFrom).join("")))
        line.length = this.anchorFrom;
      this.anchorFrom = -1;
    }
    if (this.titleRegion && regionEnded(this.titleRegion, name, false)) {
      this.titleRegion = null;
      this.text.closeTitle();
      return true;
    }
    if ((name === "main" || name === "article" || name === "section") && this.sectionDepth > 0)
      this.sectionDepth--;
    if (this.mainRegion && regionEnded(this.mainRegion, name, false)) {
      // The end of the main content ends its last block, so that block is reported as main content.
      this.text.boundary();
      this.mainRegion = null;
    }
    if (this.articleRegion && regionEnded(this.articleRegion, name, false)) {
      this.text.boundary();
      this.articleRegion = null;
    }
    return false;
  }
}
