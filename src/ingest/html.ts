// HTML to an outline in one streaming pass: tags are read and forgotten, never built into a tree, so a
// `<div>` nested ten thousand deep costs ten thousand tags and no stack. What a reader sees is kept — text,
// headings (h1–h6, which feed the heading trail), list items, table rows, definition lists, details and
// summaries, preformatted text, image alt text — and what a reader never sees is dropped: comments,
// scripts, styles, templates, the <title> (the document's title is indexed on its own) and declarations.
// The scan is html-tokens.ts's, the lines, blocks and headings html-outline.ts's, and what of a whole page is
// its main content html-page-policy.ts's; this reader gives each tag its meaning between them.

import { OutlineBuilder } from "./html-outline.js";
import { MainContent, PageRegions } from "./html-page-policy.js";
import { altText, scanHtml } from "./html-tokens.js";
import type { Outline } from "./outline.js";

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
/** The group tags that are lists, whose items are indented by their nesting. */
const listTags: ReadonlySet<string> = new Set(["ul", "ol", "menu", "dir"]);

/** Preformatted elements: their white space is kept. */
const preformatted: ReadonlySet<string> = new Set(["pre", "listing", "textarea", "xmp", "plaintext"]);

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
  const reader = new HtmlReader(outline, reading.page);
  reader.read(html);
  reader.finish();
}

/** Takes the scan's tokens and, by each tag's meaning, builds the outline; a page's regions decide first. */
class HtmlReader {
  private templateDepth = 0;
  private readonly builder: OutlineBuilder;
  // Page reading (chrome dropped, main content picked): null for HTML that is all content.
  private readonly regions: PageRegions | null;
  private readonly main: MainContent | null;

  constructor(outline: Outline, page: boolean) {
    const regions = page
      ? new PageRegions({
          line: () => this.builder.currentLine(),
          headingOpen: () => this.builder.headingOpen(),
          separate: (name) => this.separate(name),
          boundary: () => this.builder.boundary(),
          openTitle: () => this.start("h1", ""),
          closeTitle: () => this.end("h1"),
        })
      : null;
    this.regions = regions;
    this.main = regions ? new MainContent(outline, () => regions.standing()) : null;
    this.builder = new OutlineBuilder(this.main ?? outline);
  }

  read(html: string): void {
    this.builder.reading(html);
    scanHtml(html, {
      text: (raw) => this.text(raw),
      startTag: (name, tag, at, contentFrom) => {
        this.builder.tagAt(at);
        this.start(name, tag);
        this.builder.contentFrom(contentFrom);
      },
      endTag: (name, at) => {
        this.builder.tagAt(at);
        this.end(name);
      },
      rawText: (name, content) => {
        this.start(name, "");
        this.text(content, true);
        if (name !== "plaintext") this.end(name);
      },
    });
  }

  finish(): void {
    this.builder.finish();
    this.main?.finish();
  }

  private text(raw: string, verbatim = false): void {
    if (this.templateDepth > 0 || this.regions?.inChrome()) return;
    this.builder.text(raw, verbatim);
  }

  /** Separates the text around a tag as the tag does: within the line if it is phrasing, else a boundary. */
  private separate(name: string): void {
    if (phrasingTags.has(name)) this.builder.separator(tagSeparator(name));
    else this.builder.boundary();
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
    if (this.regions?.start(name, tag)) return;
    if (isHeadingTag(name)) {
      this.builder.openHeading(Number(name.charAt(1)));
      return;
    }
    if (name === "img") {
      const text = altText(tag);
      if (text) this.text(` ${text} `);
      return;
    }
    if (groupTags.has(name)) {
      this.builder.openGroup(listTags.has(name));
      return;
    }
    if (name === "li") {
      this.builder.openListItem();
      return;
    }
    if (name === "td" || name === "th") {
      this.builder.openCell();
      return;
    }
    if (preformatted.has(name)) {
      this.builder.openPreformatted();
      return;
    }
    if (blockTags.has(name)) {
      this.builder.boundary();
      return;
    }
    this.builder.separator(tagSeparator(name));
  }

  private end(name: string): void {
    if (this.templateDepth > 0) {
      if (name === "template") this.templateDepth--;
      return;
    }
    if (this.regions?.end(name)) return;
    if (isHeadingTag(name)) {
      this.builder.endHeading();
      return;
    }
    if (groupTags.has(name)) {
      this.builder.endGroup(listTags.has(name));
      return;
    }
    if (preformatted.has(name)) {
      this.builder.endPreformatted();
      return;
    }
    if (blockTags.has(name) || name === "td" || name === "th") {
      if (name === "td" || name === "th") this.builder.separator(" ");
      else this.builder.boundary();
      return;
    }
    this.builder.separator(tagSeparator(name));
  }
}
