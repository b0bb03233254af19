/**
 * Splits a document into passages: the unit that is indexed, ranked and shown as a search hit.
 *
 * Pure and dependency-light on purpose: it runs unchanged on Node, Deno and Cloudflare Workers, so it
 * touches no Node built-ins and only uses the pure-JS unified parsers.
 */
import { fromHtml } from "hast-util-from-html";
import { toMdast } from "hast-util-to-mdast";
import type { List, Nodes, PhrasingContent, RootContent, Table } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString as mdastToString } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { advanceCodePoints, codePointLength } from "../text/length.js";
import type { DocumentFormat } from "./formats.js";

export interface Passage {
  ordinal: number;
  heading: string;
  text: string;
}

export interface ChunkLimits {
  maxPassageChars: number;
}

/**
 * 2000 code points is a hard cap, not a target. Sections shorter than that stay whole, so a typical
 * passage is one heading's worth of prose (a few hundred to ~1000 characters); longer sections are cut into
 * balanced pieces that land between half the cap and the cap. The cap keeps a hit specific enough to
 * point at the answer and short enough to show as a snippet, while leaving room for a few paragraphs so
 * context is not shredded. Counted in code points rather than bytes or UTF-16 units so CJK and emoji-heavy
 * text is not penalised. See docs/decisions/0003-passage-size.md.
 */
export const defaultChunkLimits: ChunkLimits = { maxPassageChars: 2000 };

// Separator of heading trails; a character that never appears in markdown syntax, so it reads as a path.
const trailSeparator = " › ";
// Blocks are separated like paragraphs so the passage text still reads as prose.
const blockSeparator = "\n\n";
const blockSeparatorLength = 2;

interface Section {
  heading: string;
  blocks: string[];
}

export function chunkDocument(
  doc: { title: string; content: string; format: DocumentFormat },
  limits: ChunkLimits = defaultChunkLimits,
): Passage[] {
  const max = limits.maxPassageChars;
  // A non-positive or fractional bound could never be satisfied and would stall the splitter.
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`maxPassageChars must be a positive integer, got ${max}`);
  }
  // Windows line endings would otherwise leak "\r" into passages and defeat blank-line detection.
  const content = doc.content.replace(/\r\n?/g, "\n");

  let sections: Section[];
  switch (doc.format) {
    case "markdown":
      sections = sectionsFromMdast(parseMarkdown(content), doc.title);
      break;
    case "html":
      sections = sectionsFromMdast(htmlToMdastContent(content, false), doc.title);
      break;
    case "text":
      sections = [{ heading: "", blocks: textParagraphs(content) }];
      break;
    default: {
      const unknown: never = doc.format;
      throw new TypeError(`unsupported document format: ${String(unknown)}`);
    }
  }

  const pieces: Array<{ heading: string; text: string }> = [];
  for (const section of sections) {
    for (const text of packSection(section.blocks, max)) pieces.push({ heading: section.heading, text });
  }
  // The title is indexed with every passage, so even an empty document needs one passage to carry it.
  if (pieces.length === 0) pieces.push({ heading: "", text: "" });
  return pieces.map((piece, ordinal) => ({ ordinal, heading: piece.heading, text: piece.text }));
}

function parseMarkdown(content: string): RootContent[] {
  return fromMarkdown(content, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children;
}

/**
 * Scripts and styles are dropped by hast-util-to-mdast's default handlers. Comments come back as "html"
 * nodes; they are no readable text, and handing them back to flowContent would parse them again for ever.
 */
function htmlToMdastContent(html: string, fragment: boolean): RootContent[] {
  const tree = toMdast(fromHtml(html, { fragment }));
  const children = tree.type === "root" ? tree.children : [tree as RootContent];
  return children.filter((child) => child.type !== "html");
}

function textParagraphs(content: string): string[] {
  return content
    .split(/\n[^\S\n]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "");
}

function normaliseForComparison(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}

function sectionsFromMdast(children: RootContent[], title: string): Section[] {
  const nodes = flowContent(children);
  const sections: Section[] = [];
  // Heading text per depth (index = depth - 1); "" marks a level with no heading so it is skipped in trails.
  const levels: string[] = [];
  let current: Section = { heading: "", blocks: [] };
  let currentDepth = 0;
  let currentOwnText = "";

  const close = (nextDepth: number) => {
    if (current.blocks.length > 0) {
      sections.push(current);
    } else if (currentOwnText !== "" && nextDepth <= currentDepth) {
      // An empty section whose heading is about to be replaced would otherwise lose that heading's words;
      // an empty section followed by a deeper heading needs nothing, its text lives on in the deeper trail.
      sections.push(current);
    }
  };

  nodes.forEach((node, index) => {
    if (node.type !== "heading") {
      const text = renderBlock(node);
      if (text.trim() !== "") current.blocks.push(text);
      return;
    }
    const text = headingText(node.children);
    // The title is indexed separately; repeating it in every trail would only add noise.
    const isTitle =
      index === 0 && node.depth === 1 && normaliseForComparison(text) === normaliseForComparison(title);
    if (isTitle) return;
    close(node.depth);
    while (levels.length < node.depth) levels.push("");
    levels[node.depth - 1] = text;
    levels.length = node.depth;
    current = { heading: levels.filter((level) => level !== "").join(trailSeparator), blocks: [] };
    currentDepth = node.depth;
    currentOwnText = text;
  });
  close(0);
  return sections;
}

const phrasingTypes: ReadonlySet<string> = new Set([
  "break",
  "delete",
  "emphasis",
  "footnoteReference",
  "image",
  "imageReference",
  "inlineCode",
  "link",
  "linkReference",
  "strong",
  "text",
]);

/**
 * Flattens raw HTML blocks into the mdast they describe and wraps stray inline runs in paragraphs, so the
 * section walker and renderer only ever see flow content. HTML-derived trees have no "html" nodes, so the
 * recursion ends after one level.
 */
function flowContent(children: readonly RootContent[]): RootContent[] {
  const out: RootContent[] = [];
  let inline: PhrasingContent[] = [];
  const flushInline = () => {
    if (inline.length > 0) out.push({ type: "paragraph", children: inline });
    inline = [];
  };
  for (const child of children) {
    if (phrasingTypes.has(child.type)) {
      inline.push(child as PhrasingContent);
    } else if (child.type === "html") {
      flushInline();
      out.push(...flowContent(htmlToMdastContent(child.value, true)));
    } else {
      flushInline();
      out.push(child);
    }
  }
  flushInline();
  return out;
}

/**
 * Plain text of inline content. mdast-util-to-string already maps images to their alt text and links to
 * their text; breaks are handled here because it renders them as nothing, which would glue words together.
 * Inline HTML tags are dropped; the text between them is kept.
 */
function inlineText(nodes: readonly Nodes[]): string {
  let out = "";
  for (const node of nodes) {
    if (node.type === "break") out += "\n";
    else if ("children" in node) out += inlineText(node.children);
    else out += mdastToString(node, { includeHtml: false });
  }
  return out;
}

function headingText(nodes: readonly PhrasingContent[]): string {
  return inlineText(nodes).replace(/\s+/g, " ").trim();
}

function renderBlocks(children: readonly RootContent[]): string {
  return flowContent(children)
    .map(renderBlock)
    .filter((text) => text.trim() !== "")
    .join(blockSeparator);
}

function renderBlock(node: RootContent): string {
  switch (node.type) {
    case "paragraph":
      return inlineText(node.children).trim();
    case "heading":
      return headingText(node.children);
    case "code":
      // Verbatim: whitespace is meaningful in code and trimming would mangle indentation.
      return node.value;
    case "blockquote":
    case "footnoteDefinition":
      return renderBlocks(node.children);
    case "list":
      return renderList(node, "");
    case "listItem":
      return renderList({ type: "list", children: [node] }, "");
    case "table":
      return renderTable(node);
    case "html":
      return renderBlocks(htmlToMdastContent(node.value, true));
    case "thematicBreak":
    case "definition":
      // No readable text: a rule is decoration and a definition is a link target.
      return "";
    default:
      return inlineText([node]).trim();
  }
}

// Two spaces per nesting level: enough to show structure, cheap in the passage budget.
const listIndent = "  ";

function renderList(list: List, indent: string): string {
  const lines: string[] = [];
  for (const item of list.children) {
    const marker = item.checked === true ? "- [x] " : item.checked === false ? "- [ ] " : "- ";
    const continuation = indent + listIndent;
    let first = true;
    for (const child of item.children) {
      if (child.type === "list") {
        const nested = renderList(child, continuation);
        if (nested !== "") lines.push(nested);
        continue;
      }
      const text = renderBlock(child);
      if (text.trim() === "") continue;
      text.split("\n").forEach((line, index) => {
        if (first && index === 0) lines.push(indent + marker + line);
        else lines.push(line === "" ? "" : continuation + line);
      });
      first = false;
    }
  }
  return lines.join("\n");
}

function renderTable(table: Table): string {
  return table.children
    .map((row) =>
      row.children.map((cell) => inlineText(cell.children).replace(/\s+/g, " ").trim()).join(" | "),
    )
    .filter((row) => row.replace(/[\s|]/g, "") !== "")
    .join("\n");
}

/**
 * Packs a section's blocks into passages of at most `max` code points, never splitting a block that fits.
 * Instead of filling each passage to the brim (which leaves a runt at the end), it aims at an even share
 * of the section, so a 2100-character section becomes two passages of ~1050 rather than 2000 + 100.
 */
function packSection(blocks: readonly string[], max: number): string[] {
  if (blocks.length === 0) return [""];
  const units: Array<{ text: string; length: number }> = [];
  for (const block of blocks) {
    for (const text of splitBlock(block, max)) units.push({ text, length: codePointLength(text) });
  }
  const total = units.reduce((sum, unit) => sum + unit.length, 0) + blockSeparatorLength * (units.length - 1);
  if (total <= max) return [units.map((unit) => unit.text).join(blockSeparator)];

  const target = Math.ceil(total / Math.ceil(total / max));
  const passages: string[] = [];
  let current: string[] = [];
  let currentLength = 0;
  for (const unit of units) {
    if (current.length > 0) {
      const combined = currentLength + blockSeparatorLength + unit.length;
      // Take the block if it still fits the share, or if it brings the passage closer to the share
      // than it already is, without ever crossing the hard bound.
      const takes = combined <= target || (combined <= max && combined - target < target - currentLength);
      if (takes) {
        current.push(unit.text);
        currentLength = combined;
        continue;
      }
      passages.push(current.join(blockSeparator));
    }
    current = [unit.text];
    currentLength = unit.length;
  }
  if (current.length > 0) passages.push(current.join(blockSeparator));
  return passages;
}

interface Cut {
  /** End of the piece (exclusive), relative to the window. */
  end: number;
  /** Where the remainder starts, relative to the window; the separator between them is dropped. */
  next: number;
  /**
   * Whitespace to drop at the start of the remainder when the separator runs past the window. Line cuts
   * drop only newlines so indentation of the next code line or nested list item survives.
   */
  skip: RegExp;
}

const newline = /\n/;
const whitespace = /\s/;
// A hard cut lands inside a run of non-space characters, so there is nothing to drop after it.
const nothing = /(?!)/;
/**
 * Boundaries a block may be cut at, best first. Paragraph and line breaks come before sentences because
 * list items, table rows and code lines are natural units too. The structural kinds are only taken if
 * they keep at least half the window, so a single early boundary does not produce a runt.
 */
const preferredBoundaries: ReadonlyArray<{ pattern: RegExp; skip: RegExp }> = [
  { pattern: /\n{2,}/g, skip: newline },
  { pattern: /\n/g, skip: newline },
  // Sentence end: terminal punctuation (plus closing quotes or brackets) before whitespace; CJK full stops
  // need no following space.
  { pattern: /(?<=[.!?…]["'”’)\]»]*)\s+|(?<=[。！？])/g, skip: whitespace },
];
const anyWhitespace = /\s+/g;

/**
 * Splits one block into pieces of at most `max` code points: at paragraph, line or sentence boundaries if
 * one keeps at least half the bound, else at the last whitespace, else at any earlier boundary, else hard
 * at the bound.
 */
function splitBlock(block: string, max: number): string[] {
  const pieces: string[] = [];
  let pos = 0;
  while (pos < block.length) {
    const limit = advanceCodePoints(block, pos, max);
    if (limit >= block.length) {
      pushPiece(pieces, block.slice(pos));
      break;
    }
    // One code point past the bound so a separator sitting exactly at the bound is seen.
    const window = block.slice(pos, advanceCodePoints(block, limit, 1));
    const cut = findCut(window, limit - pos);
    pushPiece(pieces, block.slice(pos, pos + cut.end));
    pos += cut.next;
    while (pos < block.length && cut.skip.test(block.charAt(pos))) pos++;
  }
  return pieces;
}

function pushPiece(pieces: string[], piece: string): void {
  const trimmed = piece.trimEnd();
  if (trimmed.trim() !== "") pieces.push(trimmed);
}

function findCut(window: string, limit: number): Cut {
  const half = Math.floor(limit / 2);
  for (const { pattern, skip } of preferredBoundaries) {
    const cut = lastBoundary(window, pattern, limit, skip);
    if (cut !== undefined && cut.end >= half) return cut;
  }
  const spaced = lastBoundary(window, anyWhitespace, limit, whitespace);
  if (spaced !== undefined) return spaced;
  // Unspaced scripts (CJK) may only offer an early full stop; a short piece still beats cutting a word.
  for (const { pattern, skip } of preferredBoundaries) {
    const cut = lastBoundary(window, pattern, limit, skip);
    if (cut !== undefined) return cut;
  }
  return { end: limit, next: limit, skip: nothing };
}

function lastBoundary(window: string, pattern: RegExp, limit: number, skip: RegExp): Cut | undefined {
  let best: Cut | undefined;
  for (const match of window.matchAll(pattern)) {
    if (match.index > limit) break;
    // Skip empty matches at the very start; they would produce an empty piece.
    if (match.index === 0) continue;
    best = { end: match.index, next: match.index + match[0].length, skip };
  }
  return best;
}
