// HTML to an outline in one streaming pass: tags are read and forgotten, never built into a tree, so a
// `<div>` nested ten thousand deep costs ten thousand tags and no stack. What a reader sees is kept — text,
// headings (h1–h6, which feed the heading trail), list items, table rows, definition lists, details and
// summaries, preformatted text, image alt text — and what a reader never sees is dropped: comments,
// scripts, styles, templates, the <title> (the document's title is indexed on its own) and declarations.

import { decodeEntities } from "./entities.js";
import { type Generator, generatorOf, type TagAttributes, tagAttributes, tagRole } from "./html-chrome.js";
import type { BlockKind, Outline } from "./outline.js";

/** Tags that sit inside a run of text without separating words: "un<b>bold</b>ed" reads as one word. */
const phrasingTags: ReadonlySet<string> = new Set([
  "a",
  "abbr",
  "b",
  "bdi",
  "bdo",
  "cite",
  "code",
  "data",
  "del",
  "dfn",
  "em",
  "font",
  "i",
  "ins",
  "kbd",
  "mark",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "time",
  "tt",
  "u",
  "var",
  "wbr",
]);

/** Tags that end a block of text: its text becomes a paragraph of its own. */
const blockTags: ReadonlySet<string> = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "div",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "head",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "main",
  "nav",
  "p",
  "pre",
  "section",
  "summary",
  "tbody",
  "tfoot",
  "thead",
  "tr",
  "textarea",
  "xmp",
  "listing",
  "plaintext",
]);

/** Tags whose rows or items make one block together (a list, a table), one line each. */
const groupTags: ReadonlySet<string> = new Set(["ul", "ol", "dl", "table", "menu", "dir"]);

/** Elements whose content is raw text a reader never sees. */
const droppedRawText: ReadonlySet<string> = new Set([
  "script",
  "style",
  "title",
  "iframe",
  "noembed",
  "noframes",
]);
/** Elements whose content is raw text shown as written. */
const keptRawText: ReadonlySet<string> = new Set(["textarea", "xmp"]);
/** Preformatted elements: their white space is kept. */
const preformatted: ReadonlySet<string> = new Set(["pre", "listing", "textarea", "xmp", "plaintext"]);

// Two spaces per nesting level, as markdown lists render; deeper than this adds width but no meaning.
const listIndent = "  ";
const maxListIndentLevels = 16;

const altAttribute = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Where the tag name that starts with the letter at `from` ends: at white space, "/", ">" or the end. A
 * scan, not a sticky regex: a page has a tag every few dozen characters, and each exec allocated a match.
 */
function tagNameEnd(html: string, from: number): number {
  let i = from + 1;
  for (; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (c === 32 || c === 62 || c === 47 || c === 9 || c === 10 || c === 12 || c === 13) break;
  }
  return i;
}

/** h1–h6. */
function isHeadingTag(name: string): boolean {
  if (name.length !== 2 || name.charCodeAt(0) !== 104) return false;
  const level = name.charCodeAt(1);
  return level >= 49 && level <= 54;
}

/** What a single inline tag leaves between the words around it: nothing, a line break or a space. */
export function tagSeparator(name: string): string {
  if (name === "br") return "\n";
  return phrasingTags.has(name) ? "" : " ";
}

const rawTextEnds = new Map<string, RegExp>();
function rawTextEnd(name: string): RegExp {
  let pattern = rawTextEnds.get(name);
  if (!pattern) {
    pattern = new RegExp(`</${name}[\\t\\n\\f\\r />]`, "gi");
    rawTextEnds.set(name, pattern);
  }
  return pattern;
}

/** How a piece of HTML is read. */
export interface HtmlReading {
  /**
   * A whole page as a site publishes it: only its main content is reported, without the site's chrome
   * (src/ingest/html-chrome.ts). Off for HTML inside a markdown document, which is all content.
   */
  page: boolean;
}

/** Reads `html` and reports its headings and blocks to `outline`. */
export function renderHtml(html: string, outline: Outline, reading: HtmlReading = { page: false }): void {
  const reader = new HtmlReader(reading.page ? new MainContent(outline) : outline, reading.page);
  reader.read(html);
  reader.finish();
}

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
type Standing = 0 | 1 | 2;

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
class MainContent implements Outline {
  private readonly reported: Reported[] = [];
  private best: Standing = 0;
  standing: Standing = 0;

  constructor(private readonly outline: Outline) {}

  heading(depth: number, text: string, source?: string): void {
    this.keep({ standing: this.standing, depth, text, source });
  }

  block(text: string, source?: string, kind?: BlockKind): void {
    if (isNavigationText(text)) return;
    this.keep({ standing: this.standing, depth: 0, text, source, kind });
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

class HtmlReader {
  private line: string[] = [];
  private linePre = false;
  // Whether every line of the block being gathered is preformatted, outside a list or table: a code block.
  private linesPre = false;
  private lines: string[] = [];
  private marker = "";
  private headingDepth = 0;
  private preDepth = 0;
  private groupDepth = 0;
  private listDepth = 0;
  private templateDepth = 0;
  // The markup of the open heading runs from headingFrom to the tag being read (at position).
  private html = "";
  private position = 0;
  private headingFrom = -1;
  // Page reading (chrome dropped, main content picked): the generator, the chrome being skipped, the main
  // content and article being read, how many sections are open (a <header> in one is the section's own),
  // Doxygen's title <div> read as a heading, and where in the line an in-page link's text began.
  private generator: Generator = "other";
  private skipping: Region | null = null;
  private mainRegion: Region | null = null;
  private articleRegion: Region | null = null;
  private sectionDepth = 0;
  private titleRegion: Region | null = null;
  private anchorFrom = -1;

  constructor(
    private readonly outline: Outline,
    private readonly page: boolean,
  ) {}

  read(html: string): void {
    this.html = html;
    const n = html.length;
    let i = 0;
    while (i < n) {
      const lt = html.indexOf("<", i);
      const textEnd = lt === -1 ? n : lt;
      if (textEnd > i) this.text(html.slice(i, textEnd));
      if (lt === -1) break;
      const next = html.charCodeAt(lt + 1);
      if (html.startsWith("<!--", lt)) {
        // <!--> and <!---> are complete (empty) comments; an unclosed one runs to the end, as in browsers.
        if (html.startsWith("<!-->", lt)) i = lt + 5;
        else if (html.startsWith("<!--->", lt)) i = lt + 6;
        else {
          const close = html.indexOf("-->", lt + 4);
          i = close === -1 ? n : close + 3;
        }
      } else if (next === 33 || next === 63) {
        // <!doctype …>, <![CDATA[…]]>, <?…>: declarations and bogus comments, up to the next ">".
        const close = html.indexOf(">", lt + 2);
        i = close === -1 ? n : close + 1;
      } else if (next === 47) {
        const named = isAsciiLetter(html.charCodeAt(lt + 2));
        const name = named ? html.slice(lt + 2, tagNameEnd(html, lt + 2)).toLowerCase() : "";
        const close = html.indexOf(">", lt + 2);
        i = close === -1 ? n : close + 1;
        this.position = lt;
        if (named) this.end(name);
      } else if (isAsciiLetter(next)) {
        const nameEnd = tagNameEnd(html, lt + 1);
        const name = html.slice(lt + 1, nameEnd).toLowerCase();
        const close = tagEnd(html, nameEnd);
        // A tag cut off by the end of the input is dropped with the rest, as browsers do.
        if (close === -1) break;
        i = close + 1;
        if (droppedRawText.has(name) || keptRawText.has(name)) {
          const endPattern = rawTextEnd(name);
          endPattern.lastIndex = i;
          const found = endPattern.exec(html);
          const contentEnd = found ? found.index : n;
          if (keptRawText.has(name)) {
            this.start(name, "");
            this.text(html.slice(i, contentEnd), true);
            this.end(name);
          }
          const gt = found ? html.indexOf(">", found.index) : -1;
          i = gt === -1 ? n : gt + 1;
        } else if (name === "plaintext") {
          this.start(name, "");
          this.text(html.slice(i), true);
          break;
        } else {
          this.position = lt;
          this.start(name, html.slice(lt, close + 1));
          if (this.headingDepth > 0 && this.headingFrom < 0) this.headingFrom = i;
        }
      } else {
        this.text("<");
        i = lt + 1;
      }
    }
  }

  finish(): void {
    this.position = this.html.length;
    if (this.headingDepth > 0) this.closeHeading();
    this.flushLine();
    this.emitBlock();
    if (this.outline instanceof MainContent) this.outline.finish();
  }

  private standing(): Standing {
    if (this.mainRegion) return 2;
    return this.articleRegion ? 1 : 0;
  }

  private report(): Outline {
    if (this.outline instanceof MainContent) this.outline.standing = this.standing();
    return this.outline;
  }

  /**
   * Page reading's part of a start tag: true when the tag was taken (it opened chrome, or it is inside
   * chrome), false when the reader goes on with it as usual.
   */
  private pageStart(name: string, tag: string): boolean {
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
    if (name === "a") this.anchorFrom = attributes.href?.startsWith("#") ? this.line.length : -1;
    if (voidElements.has(name)) return name === "img" && attributes.hidden;
    if (optionalEndElements.has(name)) return false;
    const inSection = this.sectionDepth > 0 || this.mainRegion !== null || this.articleRegion !== null;
    const role = tagRole(name, attributes, this.generator, inSection);
    if (role === "chrome") {
      if (phrasingTags.has(name)) this.line.push(tagSeparator(name));
      else this.boundary();
      this.skipping = { name, depth: 1 };
      return true;
    }
    if (this.mainRegion) regionEnded(this.mainRegion, name, true);
    if (this.articleRegion) regionEnded(this.articleRegion, name, true);
    if (this.titleRegion) regionEnded(this.titleRegion, name, true);
    if (name === "main" || name === "article" || name === "section") this.sectionDepth++;
    if (role === "main" && !this.mainRegion) {
      this.boundary();
      this.mainRegion = { name, depth: 1 };
    } else if (role === "article" && !this.articleRegion) {
      this.boundary();
      this.articleRegion = { name, depth: 1 };
    } else if (role === "title" && !this.titleRegion && this.headingDepth === 0) {
      this.titleRegion = { name, depth: 1 };
      this.start("h1", "");
      return true;
    }
    return false;
  }

  /** Page reading's part of an end tag: true when it was taken (chrome), false when read as usual. */
  private pageEnd(name: string): boolean {
    if (this.skipping) {
      if (regionEnded(this.skipping, name, false)) {
        this.skipping = null;
        if (phrasingTags.has(name)) this.line.push(tagSeparator(name));
        else this.boundary();
      }
      return true;
    }
    if (name === "a" && this.anchorFrom >= 0) {
      // An in-page link with no word in it is a permalink mark ("¶", "§", "#"), not text.
      if (
        this.anchorFrom <= this.line.length &&
        !wordCharacter.test(this.line.slice(this.anchorFrom).join(""))
      )
        this.line.length = this.anchorFrom;
      this.anchorFrom = -1;
    }
    if (this.titleRegion && regionEnded(this.titleRegion, name, false)) {
      this.titleRegion = null;
      this.end("h1");
      return true;
    }
    if ((name === "main" || name === "article" || name === "section") && this.sectionDepth > 0)
      this.sectionDepth--;
    if (this.mainRegion && regionEnded(this.mainRegion, name, false)) {
      // The end of the main content ends its last block, so that block is reported as main content.
      this.boundary();
      this.mainRegion = null;
    }
    if (this.articleRegion && regionEnded(this.articleRegion, name, false)) {
      this.boundary();
      this.articleRegion = null;
    }
    return false;
  }

  private text(raw: string, verbatim = false): void {
    if (this.templateDepth > 0 || this.skipping) return;
    const decoded = verbatim ? raw : decodeEntities(raw);
    const pre = this.preDepth > 0 || verbatim;
    if (pre) this.linePre = true;
    // Source white space collapses at once, so the only line breaks left in a line are those of <br>.
    this.line.push(pre ? decoded : collapseWhitespace(decoded));
  }

  private start(name: string, tag: string): void {
    if (this.templateDepth > 0) {
      if (name === "template") this.templateDepth++;
      return;
    }
    if (name === "template") {
      this.templateDepth = 1;
      return;
    }
    if (this.page && this.pageStart(name, tag)) return;
    if (isHeadingTag(name)) {
      if (this.headingDepth > 0) this.closeHeading();
      this.boundary();
      this.headingDepth = Number(name.charAt(1));
      return;
    }
    if (name === "img") {
      const alt = altAttribute.exec(tag);
      const text = alt?.[1] ?? alt?.[2] ?? alt?.[3];
      if (text) this.text(` ${text} `);
      return;
    }
    if (groupTags.has(name)) {
      this.boundary();
      this.groupDepth++;
      if (name === "ul" || name === "ol" || name === "menu" || name === "dir") this.listDepth++;
      return;
    }
    if (name === "li") {
      this.boundary();
      this.marker = `${listIndent.repeat(Math.min(Math.max(this.listDepth - 1, 0), maxListIndentLevels))}- `;
      return;
    }
    if (name === "td" || name === "th") {
      if (this.line.join("").trim() !== "") this.line.push(" | ");
      return;
    }
    if (preformatted.has(name)) {
      this.boundary();
      this.preDepth++;
      return;
    }
    if (blockTags.has(name)) {
      this.boundary();
      return;
    }
    this.line.push(tagSeparator(name));
  }

  private end(name: string): void {
    if (this.templateDepth > 0) {
      if (name === "template") this.templateDepth--;
      return;
    }
    if (this.page && this.pageEnd(name)) return;
    if (isHeadingTag(name)) {
      if (this.headingDepth > 0) this.closeHeading();
      return;
    }
    if (groupTags.has(name)) {
      if (this.groupDepth === 0) return;
      this.flushLine();
      this.groupDepth--;
      if ((name === "ul" || name === "ol" || name === "menu" || name === "dir") && this.listDepth > 0) {
        this.listDepth--;
      }
      if (this.groupDepth === 0) this.emitBlock();
      return;
    }
    if (preformatted.has(name)) {
      this.boundary();
      if (this.preDepth > 0) this.preDepth--;
      return;
    }
    if (blockTags.has(name) || name === "td" || name === "th") {
      if (name === "td" || name === "th") this.line.push(" ");
      else this.boundary();
      return;
    }
    this.line.push(tagSeparator(name));
  }

  private closeHeading(): void {
    const text = this.line.join("").replace(/\s+/g, " ").trim();
    this.line = [];
    this.linePre = false;
    const depth = this.headingDepth;
    const source = this.headingFrom >= 0 ? this.html.slice(this.headingFrom, this.position) : "";
    this.headingDepth = 0;
    this.headingFrom = -1;
    if (this.groupDepth > 0) {
      if (text !== "") this.lines.push(this.takeMarker() + text);
      return;
    }
    this.emitBlock();
    this.report().heading(depth, text, source);
  }

  /** Ends the current run of text: a line of the current group, or a block of its own. */
  private boundary(): void {
    if (this.headingDepth > 0) {
      // Block tags inside a heading (a <p> or <div> in an <h1>) separate its words, nothing more.
      this.line.push(" ");
      return;
    }
    this.flushLine();
    if (this.groupDepth === 0) this.emitBlock();
  }

  private flushLine(): void {
    if (this.headingDepth > 0) return;
    const raw = this.line.join("");
    const pre = this.linePre;
    this.line = [];
    this.linePre = false;
    // Outside <pre> a line holds no white space but single spaces (text() collapsed it) and the "\n" of a
    // <br>, so a line with no <br> is only trimmed, and its spaces collapsed where pieces met.
    const text = pre
      ? raw.replace(/^\n/, "").trimEnd()
      : !raw.includes("\n")
        ? collapseWhitespace(raw).trim()
        : raw
            .split("\n")
            .map((part) => part.replace(/\s+/g, " ").trim())
            .filter((part) => part !== "")
            .join("\n");
    if (text.trim() === "") return;
    this.linesPre = (this.lines.length === 0 || this.linesPre) && pre && this.groupDepth === 0;
    this.lines.push(this.takeMarker() + text);
  }

  private takeMarker(): string {
    const marker = this.marker;
    this.marker = "";
    return marker;
  }

  private emitBlock(): void {
    if (this.lines.length === 0) return;
    this.report().block(this.lines.join("\n"), undefined, this.linesPre ? "code" : undefined);
    this.lines = [];
    this.linesPre = false;
  }
}

/**
 * Runs of white space as one space, as `text.replace(/\s+/g, " ")` makes them, without the replace (and its
 * copy) for the many runs of text that hold single spaces only.
 */
function collapseWhitespace(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32) {
      if (text.charCodeAt(i + 1) !== 32) continue;
      return text.replace(/\s+/g, " ");
    }
    if ((c >= 9 && c <= 13) || (c >= 128 && /\s/.test(text.charAt(i)))) return text.replace(/\s+/g, " ");
  }
  return text;
}

/**
 * The index of the ">" that ends a start tag whose attributes begin at `from`, or -1. A quote opens an
 * attribute value only right after "=", so a stray apostrophe in an unquoted value does not swallow the page.
 */
function tagEnd(html: string, from: number): number {
  let quote = 0;
  let lastSignificant = 0;
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) {
        quote = 0;
        lastSignificant = c;
      }
      continue;
    }
    if (c === 62) return i;
    if ((c === 34 || c === 39) && lastSignificant === 61) {
      quote = c;
      continue;
    }
    if (c !== 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13) lastSignificant = c;
  }
  return -1;
}
