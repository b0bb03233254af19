// The outline an HTML reader (html.ts) builds as it reads: text gathered into lines, lines into blocks (a
// paragraph, a list, a table, a code block), and the open heading with the markup it came from, each reported
// to the Outline as soon as it ends. Depths are counts, not a stack, so nesting costs nothing.

import { decodeEntities } from "./entities.js";
import type { Outline } from "./outline.js";

// Two spaces per nesting level, as markdown lists render; deeper than this adds width but no meaning.
const listIndent = "  ";
const maxListIndentLevels = 16;

export class OutlineBuilder {
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
  // The markup of the open heading runs from headingFrom to the tag being read (at position).
  private html = "";
  private position = 0;
  private headingFrom = -1;

  constructor(private readonly outline: Outline) {}

  /** The input being read, whose markup an open heading reports as its source. */
  reading(html: string): void {
    this.html = html;
  }

  /** A tag being read begins at `position`: an open heading's markup runs to it. */
  tagAt(position: number): void {
    this.position = position;
  }

  /** A start tag's content begins at `from`: a heading open by then has its markup from there. */
  contentFrom(from: number): void {
    if (this.headingDepth > 0 && this.headingFrom < 0) this.headingFrom = from;
  }

  /** The pieces of the line being gathered. */
  currentLine(): string[] {
    return this.line;
  }

  headingOpen(): boolean {
    return this.headingDepth > 0;
  }

  text(raw: string, verbatim: boolean): void {
    const decoded = verbatim ? raw : decodeEntities(raw);
    const pre = this.preDepth > 0 || verbatim;
    if (pre) this.linePre = true;
    // Source white space collapses at once, so the only line breaks left in a line are those of <br>.
    this.line.push(pre ? decoded : collapseWhitespace(decoded));
  }

  /** What an inline tag leaves between the words around it. */
  separator(separator: string): void {
    this.line.push(separator);
  }

  openHeading(depth: number): void {
    if (this.headingDepth > 0) this.closeHeading();
    this.boundary();
    this.headingDepth = depth;
  }

  endHeading(): void {
    if (this.headingDepth > 0) this.closeHeading();
  }

  /** Opens a list or table, whose items or rows make one block together, one line each. */
  openGroup(list: boolean): void {
    this.boundary();
    this.groupDepth++;
    if (list) this.listDepth++;
  }

  endGroup(list: boolean): void {
    if (this.groupDepth === 0) return;
    this.flushLine();
    this.groupDepth--;
    if (list && this.listDepth > 0) {
      this.listDepth--;
    }
    if (this.groupDepth === 0) this.emitBlock();
  }

  openListItem(): void {
    this.boundary();
    this.marker = `${listIndent.repeat(Math.min(Math.max(this.listDepth - 1, 0), maxListIndentLevels))}- `;
  }

  openCell(): void {
    if (this.line.join("").trim() !== "") this.line.push(" | ");
  }

  openPreformatted(): void {
    this.boundary();
    this.preDepth++;
  }

  endPreformatted(): void {
    this.boundary();
    if (this.preDepth > 0) this.preDepth--;
  }

  /** Reports what is still open at the end of the input. */
  finish(): void {
    this.position = this.html.length;
    if (this.headingDepth > 0) this.closeHeading();
    this.flushLine();
    this.emitBlock();
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
  boundary(): void {
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
    this.outline.block(this.lines.join("\n"), undefined, this.linesPre ? "code" : undefined);
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
