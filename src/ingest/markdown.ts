// Markdown (CommonMark with GFM tables and task lists) to an outline, one line at a time. Containers
// (block quotes, list items) are an explicit stack that each line is matched against; leaves (paragraphs,
// headings, code, tables, HTML blocks) are rendered to plain text as they close and handed on. Nothing is
// kept of the document but the open leaf and the top-level block being rendered, so time and memory grow
// with the input's size only, never with its depth: the measured reason is in docs/decisions/0015-chunker.md.
//
// It aims at what a reader sees, not at byte-exact CommonMark: the words of every construct reach the
// outline, in order, and syntax does not.

import { isBadgeRow, isBadgeRowOfLines, withoutBadges } from "./badges.js";
import { frontMatterBlock } from "./front-matter.js";
import { renderHtml } from "./html.js";
import { type Definitions, hasInlineSyntax, normaliseLabel, renderInline } from "./inline.js";
import { type BlockKind, type Outline, TextOutline } from "./outline.js";
import { calloutLine } from "./wiki.js";

/**
 * Deepest container nesting that is read as structure. Real documents nest a handful of levels; past 64
 * a further `>` or list marker is read as text, so a line is never matched against thousands of containers.
 */
const maxContainerDepth = 64;
// Two spaces per nesting level: enough to show structure, cheap in the passage budget.
const listIndent = "  ";
// Indentation stops growing here: deeper lists add width, not meaning.
const maxListIndentLevels = 16;

type Frame =
  | { kind: "quote" }
  | { kind: "item"; indent: number; marker: string; first: boolean; list: string };

type Leaf =
  | { kind: "paragraph"; lines: string[] }
  | { kind: "fence"; char: number; length: number; indent: number; lines: string[] }
  | { kind: "indented"; lines: string[]; blanks: number }
  | { kind: "html"; end: RegExp | null; lines: string[] }
  | { kind: "table"; rows: string[] };

const thematicBreak = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const atxHeading = /^(#{1,6})(?:[ \t]+|$)/;
const fenceOpen = /^(?:(`{3,})[^`]*|(~{3,}).*)$/;
const setextUnderline = /^(?:=+|-+)[ \t]*$/;
const bulletItem = /^([-+*])(?=[ \t]|$)/;
const orderedItem = /^([0-9]{1,9})([.)])(?=[ \t]|$)/;
const taskMarker = /^\[([ xX])\](?=[ \t])/;
// A one-line link reference definition: a link target, not text. Labels starting with ^ are footnotes.
const definitionLine =
  /^\[(?!\^)((?:[^[\]\\]|\\.){1,999})\]:[ \t]*(?:<[^<>\n]*>|\S+)(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^()]*\)))?[ \t]*$/;
// Labels of link reference definitions and (starting with ^) of footnote definitions, wherever they are.
const definitionLabels = /^[ \t>]*(?:(?:[-+*]|[0-9]{1,9}[.)])[ \t]+)*\[((?:[^[\]\\\n]|\\.){1,999})\]:/gm;

// The seven kinds of HTML block start (CommonMark 4.6) and what ends each; null: a blank line.
const htmlRawStart = /^<(?:script|pre|style|textarea)(?=[\s>]|$)/i;
const htmlRawEnd = /<\/(?:script|pre|style|textarea)>/i;
const htmlBlockTag =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?=[\s/>]|$)/i;
const htmlLoneTag =
  /^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*$/;

function htmlBlockEnd(text: string, inParagraph: boolean): RegExp | null | undefined {
  if (text.charCodeAt(0) !== 60) return undefined;
  if (htmlRawStart.test(text)) return htmlRawEnd;
  if (text.startsWith("<!--")) return /-->/;
  if (text.startsWith("<?")) return /\?>/;
  if (text.startsWith("<![CDATA[")) return /\]\]>/;
  if (/^<![A-Za-z]/.test(text)) return />/;
  if (htmlBlockTag.test(text)) return null;
  if (!inParagraph && htmlLoneTag.test(text)) return null;
  return undefined;
}

/** Columns of leading spaces from `from` (tabs were expanded before). */
function indentAt(line: string, from: number): number {
  let i = from;
  while (line.charCodeAt(i) === 32) i++;
  return i - from;
}

function isBlankFrom(line: string, from: number): boolean {
  for (let i = from; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** Tabs in a line's indentation and container markers, expanded to stops of 4 as CommonMark counts them. */
function expandLeadingTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  let i = 0;
  for (; i < line.length; i++) {
    const ch = line.charAt(i);
    if (ch === "\t") out += " ".repeat(4 - (out.length % 4));
    else if (ch === " " || ch === ">") out += ch;
    else break;
  }
  return out + line.slice(i);
}

/** A GFM delimiter row (`| --- | :-: |`), checked cell by cell: a single regex would backtrack on spaces. */
function isDelimiterRow(row: string): boolean {
  const first = row.charCodeAt(0);
  if (first !== 124 && first !== 58 && first !== 45) return false;
  if (!row.includes("-") || !row.includes("|")) return false;
  return tableCells(row).every((cell) => /^:?-+:?$/.test(cell.trim()));
}

/** An ATX heading's text without its optional closing run of #, found without a backtracking regex. */
function withoutClosingHashes(text: string): string {
  const trimmed = text.trimEnd();
  let i = trimmed.length;
  while (i > 0 && trimmed.charCodeAt(i - 1) === 35) i--;
  if (i === trimmed.length) return trimmed;
  if (i === 0) return "";
  const before = trimmed.charCodeAt(i - 1);
  return before === 32 || before === 9 ? trimmed.slice(0, i).trimEnd() : trimmed;
}

/** Splits a table row into its cells' source, at pipes that are not escaped. */
function tableCells(row: string): string[] {
  let text = row.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  const cells: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 124) {
      cells.push(text.slice(start, i));
      start = i + 1;
    }
  }
  cells.push(text.slice(start));
  return cells;
}

export class MarkdownReader {
  private readonly stack: Frame[] = [];
  private leaf: Leaf | null = null;
  // The top-level container being rendered (a list or a quote) and the list it belongs to.
  private group: string[] = [];
  private groupList = "";
  private groupOpen = false;
  private definitionSet: Set<string> | undefined;
  private readonly definitions: Definitions;

  constructor(
    private readonly content: string,
    private readonly outline: Outline,
    private readonly withSources = false,
  ) {
    this.definitions = () => {
      this.definitionSet ??= collectDefinitions(this.content);
      return this.definitionSet;
    };
  }

  read(): void {
    const content = this.content;
    // Front matter is metadata, read for the title and tags elsewhere; the document's text starts after it.
    const front = frontMatterBlock(content);
    if (front.text !== null) this.outline.block(front.text);
    let start = front.end;
    while (start <= content.length) {
      const newline = content.indexOf("\n", start);
      const end = newline === -1 ? content.length : newline;
      this.line(expandLeadingTabs(content.slice(start, end)));
      if (newline === -1) break;
      start = newline + 1;
    }
    this.closeTo(0);
    this.flushGroup();
  }

  private line(line: string): void {
    const stack = this.stack;
    let pos = 0;
    let matched = 0;
    for (; matched < stack.length; matched++) {
      const frame = stack[matched] as Frame;
      if (frame.kind === "quote") {
        const indent = indentAt(line, pos);
        if (indent > 3 || line.charCodeAt(pos + indent) !== 62) break;
        pos += indent + 1;
        if (line.charCodeAt(pos) === 32) pos++;
      } else {
        if (isBlankFrom(line, pos)) continue;
        if (indentAt(line, pos) < frame.indent) break;
        pos += frame.indent;
      }
    }
    const allMatched = matched === stack.length;
    const leaf = this.leaf;

    if (allMatched && leaf?.kind === "fence") {
      const indent = indentAt(line, pos);
      if (indent <= 3 && line.charCodeAt(pos + indent) === leaf.char) {
        let end = pos + indent;
        while (line.charCodeAt(end) === leaf.char) end++;
        if (end - pos - indent >= leaf.length && isBlankFrom(line, end)) {
          this.closeLeaf();
          return;
        }
      }
      leaf.lines.push(line.slice(pos + Math.min(indent, leaf.indent)));
      return;
    }
    if (allMatched && leaf?.kind === "html") {
      if (leaf.end === null && isBlankFrom(line, pos)) {
        this.closeLeaf();
        return;
      }
      leaf.lines.push(line.slice(pos));
      if (leaf.end?.test(line.slice(pos))) this.closeLeaf();
      return;
    }

    // New containers: block quote markers and list items, as many as the line opens.
    let opened = false;
    while (stack.length < maxContainerDepth) {
      const indent = indentAt(line, pos);
      if (indent >= 4) break;
      const at = pos + indent;
      const c = line.charCodeAt(at);
      if (c === 62) {
        this.openContainer(matched, { kind: "quote" });
        matched = stack.length;
        opened = true;
        pos = at + 1;
        if (line.charCodeAt(pos) === 32) pos++;
        // A callout's marker (`> [!warning] Freeze`) opens a quote; its title is the quote's first words.
        if (line.charCodeAt(pos) === 91) line = line.slice(0, pos) + calloutLine(line.slice(pos));
        continue;
      }
      // Only -, +, * and digits can start a list item; most lines start with neither.
      if (c !== 45 && c !== 43 && c !== 42 && !(c >= 48 && c <= 57)) break;
      const rest = line.slice(at);
      if (thematicBreak.test(rest)) break;
      const bullet = bulletItem.exec(rest);
      const ordered = bullet ? null : orderedItem.exec(rest);
      const markerText = bullet?.[0] ?? ordered?.[0];
      if (markerText === undefined) break;
      const afterMarker = at + markerText.length;
      const emptyItem = isBlankFrom(line, afterMarker);
      const interrupting = this.leaf?.kind === "paragraph" && allMatched && !opened;
      // A list item may interrupt a paragraph only if it has text and (ordered) starts at 1.
      if (interrupting && (emptyItem || (ordered && ordered[1] !== "1"))) break;
      // A setext underline made of "-" under a paragraph is a heading, not an empty item.
      if (interrupting && setextUnderline.test(rest)) break;
      const spaces = indentAt(line, afterMarker);
      const gap = emptyItem || spaces > 4 ? 1 : Math.max(spaces, 1);
      let contentStart = Math.min(afterMarker + gap, line.length);
      if (contentStart > afterMarker && line.charCodeAt(afterMarker) !== 32) contentStart = afterMarker + 1;
      let marker = "- ";
      const task = taskMarker.exec(line.slice(contentStart));
      const list = bullet ? `b${bullet[1]}` : `o${ordered?.[2]}`;
      this.openContainer(matched, {
        kind: "item",
        indent: indent + markerText.length + gap,
        marker,
        first: true,
        list,
      });
      matched = stack.length;
      opened = true;
      pos = contentStart;
      if (task) {
        marker = task[1] === " " ? "- [ ] " : "- [x] ";
        (stack[stack.length - 1] as Frame & { kind: "item" }).marker = marker;
        pos = contentStart + 4;
        if (line.charCodeAt(pos) === 32) pos++;
      }
    }

    if (!opened && !allMatched) {
      // A lazy continuation line: paragraph text whose container markers were left off.
      const at = pos + indentAt(line, pos);
      if (this.leaf?.kind === "paragraph" && !isBlankFrom(line, pos) && !this.startsBlock(line, at)) {
        this.leaf.lines.push(line.slice(at));
        return;
      }
      this.closeTo(matched);
    }
    this.leafLine(line, pos);
  }

  private startsBlock(line: string, at: number): boolean {
    if (indentAt(line, at) > 0) return false;
    const rest = line.slice(at);
    return (
      thematicBreak.test(rest) ||
      atxHeading.test(rest) ||
      fenceOpen.test(rest) ||
      rest.charCodeAt(0) === 62 ||
      bulletItem.test(rest) ||
      orderedItem.test(rest) ||
      htmlBlockEnd(rest, true) !== undefined
    );
  }

  private leafLine(line: string, pos: number): void {
    const leaf = this.leaf;
    if (isBlankFrom(line, pos)) {
      if (leaf?.kind === "indented") leaf.blanks++;
      else this.closeLeaf();
      return;
    }
    const indent = indentAt(line, pos);
    if (indent >= 4) {
      if (leaf?.kind === "paragraph" || leaf?.kind === "table") {
        this.leafText(line.slice(pos + indent));
        return;
      }
      if (leaf?.kind !== "indented") {
        this.closeLeaf();
        this.leaf = { kind: "indented", lines: [line.slice(pos + 4)], blanks: 0 };
        return;
      }
      for (; leaf.blanks > 0; leaf.blanks--) leaf.lines.push("");
      leaf.lines.push(line.slice(pos + 4));
      return;
    }
    if (leaf?.kind === "indented") this.closeLeaf();
    const at = pos + indent;
    const rest = line.slice(at);
    const first = rest.charCodeAt(0);

    if (this.leaf?.kind === "paragraph" && (first === 61 || first === 45) && setextUnderline.test(rest)) {
      const lines = this.leaf.lines;
      const text = this.paragraphText(lines);
      this.leaf = null;
      if (text !== "") {
        this.markdownHeading(first === 61 ? 1 : 2, lines.join("\n"), () => text);
        return;
      }
      if (first === 61) {
        this.leafText(rest);
        return;
      }
    }
    if ((first === 42 || first === 45 || first === 95) && thematicBreak.test(rest)) {
      this.closeLeaf();
      return;
    }
    if (first === 35) {
      const atx = atxHeading.exec(rest);
      if (atx) {
        this.closeLeaf();
        const text = withoutClosingHashes(rest.slice(atx[0].length));
        this.markdownHeading(atx[1]?.length ?? 1, text, () => renderInline(text, this.definitions));
        return;
      }
    }
    if (first === 96 || first === 126) {
      const fence = fenceOpen.exec(rest);
      if (fence) {
        this.closeLeaf();
        this.leaf = {
          kind: "fence",
          char: first,
          length: (fence[1] ?? fence[2] ?? "").length,
          indent,
          lines: [],
        };
        return;
      }
    }
    if (first === 60) {
      const end = htmlBlockEnd(rest, this.leaf?.kind === "paragraph");
      if (end !== undefined) {
        this.closeLeaf();
        this.leaf = { kind: "html", end, lines: [line.slice(pos)] };
        if (end?.test(rest.slice(1))) this.closeLeaf();
        return;
      }
    }
    if (this.leaf?.kind === "table") {
      this.leaf.rows.push(this.tableRow(rest));
      return;
    }
    if (this.leaf?.kind === "paragraph" && isDelimiterRow(rest)) {
      const lines = this.leaf.lines;
      const header = lines[lines.length - 1] ?? "";
      if (tableCells(header).length === tableCells(rest).length) {
        lines.pop();
        this.closeLeaf();
        this.leaf = { kind: "table", rows: [this.tableRow(header)] };
        return;
      }
    }
    this.leafText(rest);
  }

  private leafText(text: string): void {
    if (this.leaf?.kind !== "paragraph") {
      this.closeLeaf();
      this.leaf = { kind: "paragraph", lines: [] };
    }
    this.leaf.lines.push(text);
  }

  private tableRow(row: string): string {
    const cells = tableCells(row);
    let out = "";
    for (let i = 0; i < cells.length; i++) {
      const source = cells[i] ?? "";
      const text = hasInlineSyntax(source) ? renderInline(source, this.definitions) : source;
      if (i > 0) out += " | ";
      out += /\s\s|[\t\n]/.test(text) ? text.replace(/\s+/g, " ").trim() : text.trim();
    }
    return out;
  }

  /** A paragraph's text: leading link reference definitions dropped, lines joined, inline syntax removed. */
  private paragraphText(lines: string[]): string {
    let first = 0;
    // Lines arrive without their indentation, so only a line starting with "[" can be a definition.
    while (
      first < lines.length &&
      lines[first]?.charCodeAt(0) === 91 &&
      definitionLine.test((lines[first] ?? "").trim())
    ) {
      first++;
    }
    if (first === lines.length - 1) return renderInline((lines[first] ?? "").trim(), this.definitions).trim();
    let source = "";
    for (let i = first; i < lines.length; i++) {
      const text = (lines[i] ?? "").trim();
      source += i === first ? text : `\n${text}`;
    }
    return renderInline(source, this.definitions).trim();
  }

  private closeLeaf(): void {
    const leaf = this.leaf;
    if (!leaf) return;
    this.leaf = null;
    switch (leaf.kind) {
      case "paragraph":
        if (isBadgeRowOfLines(leaf.lines)) this.badges(leaf.lines.join("\n"));
        else this.emit(this.paragraphText(leaf.lines), leaf.lines);
        break;
      case "fence":
      case "indented":
        // Verbatim: whitespace is meaningful in code and trimming would mangle indentation.
        this.emit(leaf.lines.join("\n"), undefined, "code");
        break;
      case "table":
        this.emit(leaf.rows.filter((row) => row.replace(/[\s|]/g, "") !== "").join("\n"));
        break;
      case "html": {
        const html = leaf.lines.join("\n");
        if (isBadgeRow(html)) {
          this.badges(html);
          break;
        }
        if (this.stack.length === 0) {
          // At the top level HTML headings are section headings, like markdown's.
          this.flushGroup();
          const outline = this.outline;
          renderHtml(html, {
            heading: (depth, text, source) => {
              if (source !== undefined && isBadgeRow(source)) outline.badges?.(source);
              else outline.heading(depth, text, source);
            },
            block: (text, _source, kind) => outline.block(text, html, kind),
          });
        } else {
          const text = new TextOutline();
          renderHtml(html, text);
          this.emit(text.lines.join("\n\n"));
        }
        break;
      }
    }
  }

  /** A heading from its markdown source, without its badges; one of badges only is no heading. */
  private markdownHeading(depth: number, source: string, text: () => string): void {
    const words = withoutBadges(source);
    if (words === source) this.heading(depth, text(), source);
    else if (isBadgeRow(source)) this.badges(source);
    else this.heading(depth, renderInline(words, this.definitions).trim(), source);
  }

  private badges(source: string): void {
    if (this.stack.length > 0) return;
    this.flushGroup();
    this.outline.badges?.(source);
  }

  private heading(depth: number, text: string, source: string): void {
    if (this.stack.length === 0) {
      this.flushGroup();
      this.outline.heading(depth, text, source);
    } else this.emit(text);
  }

  /**
   * Hands a leaf's text on: a block of its own at the top level, else lines of the container being
   * rendered. A paragraph's source lines go along at the top level, joined only there (and only if asked).
   */
  private emit(text: string, sourceLines?: string[], kind?: BlockKind): void {
    if (text.trim() === "") return;
    if (this.stack.length === 0) {
      this.flushGroup();
      this.outline.block(text, sourceLines && this.withSources ? sourceLines.join("\n") : undefined, kind);
      return;
    }
    let items = 0;
    let innermost: (Frame & { kind: "item" }) | undefined;
    for (const frame of this.stack) {
      if (frame.kind === "item") {
        items++;
        innermost = frame;
      }
    }
    if (this.group.length > 0) this.group.push(items > 0 ? "\n" : "\n\n");
    if (!innermost) {
      this.group.push(text);
      return;
    }
    const indent = listIndent.repeat(Math.min(items - 1, maxListIndentLevels));
    const continuation = indent + listIndent;
    if (!text.includes("\n")) {
      this.group.push(innermost.first ? indent + innermost.marker + text : continuation + text);
      innermost.first = false;
      return;
    }
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? "";
      if (i > 0) this.group.push("\n");
      if (i === 0 && innermost.first) this.group.push(indent + innermost.marker + line);
      else this.group.push(line === "" ? "" : continuation + line);
    }
    innermost.first = false;
  }

  private openContainer(depth: number, frame: Frame): void {
    this.closeTo(depth);
    if (depth === 0) {
      const list = frame.kind === "item" ? frame.list : "";
      // Items of one list stay one block across blank lines; a different marker starts a new list.
      if (this.groupOpen && (list === "" || list !== this.groupList)) this.flushGroup();
      this.groupList = list;
      this.groupOpen = true;
    }
    this.stack.push(frame);
  }

  private closeTo(depth: number): void {
    this.closeLeaf();
    if (this.stack.length > depth) this.stack.length = depth;
  }

  private flushGroup(): void {
    if (this.group.length > 0) this.outline.block(this.group.join(""));
    this.group = [];
    this.groupOpen = false;
    this.groupList = "";
  }
}

function collectDefinitions(content: string): Set<string> {
  const labels = new Set<string>();
  definitionLabels.lastIndex = 0;
  for (const m of content.matchAll(definitionLabels)) labels.add(normaliseLabel(m[1] ?? ""));
  return labels;
}

/**
 * Reads a markdown document and reports its headings and blocks to `outline`; with `withSources`,
 * paragraphs are reported with their markdown source too (headings always are).
 */
export function renderMarkdown(content: string, outline: Outline, withSources = false): void {
  new MarkdownReader(content, outline, withSources).read();
}
