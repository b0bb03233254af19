// HTML to an outline in one streaming pass: tags are read and forgotten, never built into a tree, so a
// `<div>` nested ten thousand deep costs ten thousand tags and no stack. What a reader sees is kept — text,
// headings (h1–h6, which feed the heading trail), list items, table rows, definition lists, details and
// summaries, preformatted text, image alt text — and what a reader never sees is dropped: comments,
// scripts, styles, templates, the <title> (the document's title is indexed on its own) and declarations.

import { decodeEntities } from "./entities.js";
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

const tagName = /[A-Za-z][^\t\n\f\r />]*/y;
const altAttribute = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;
const headingTag = /^h[1-6]$/;

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

/** Reads `html` and reports its headings and blocks to `outline`. */
export function renderHtml(html: string, outline: Outline): void {
  const reader = new HtmlReader(outline);
  reader.read(html);
  reader.finish();
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

  constructor(private readonly outline: Outline) {}

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
        tagName.lastIndex = lt + 2;
        const name = tagName.exec(html);
        const close = html.indexOf(">", lt + 2);
        i = close === -1 ? n : close + 1;
        this.position = lt;
        if (name) this.end(name[0].toLowerCase());
      } else if ((next >= 65 && next <= 90) || (next >= 97 && next <= 122)) {
        tagName.lastIndex = lt + 1;
        const name = (tagName.exec(html)?.[0] ?? "").toLowerCase();
        const close = tagEnd(html, lt + 1 + name.length);
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
  }

  private text(raw: string, verbatim = false): void {
    if (this.templateDepth > 0) return;
    const decoded = verbatim ? raw : decodeEntities(raw);
    const pre = this.preDepth > 0 || verbatim;
    if (pre) this.linePre = true;
    // Source white space collapses at once, so the only line breaks left in a line are those of <br>.
    this.line.push(pre ? decoded : decoded.replace(/\s+/g, " "));
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
    if (headingTag.test(name)) {
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
    if (headingTag.test(name)) {
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
    this.outline.heading(depth, text, source);
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
    const text = pre
      ? raw.replace(/^\n/, "").trimEnd()
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
    this.outline.block(this.lines.join("\n"), undefined, this.linesPre ? "code" : undefined);
    this.lines = [];
    this.linesPre = false;
  }
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
