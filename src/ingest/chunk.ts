/**
 * Splits a document into passages: the unit that is indexed, ranked and shown as a search hit.
 *
 * Pure on purpose: it runs unchanged on Node, Deno and Cloudflare Workers, so it touches no Node built-ins.
 * Markdown and HTML are read by streaming readers (src/ingest/markdown.ts, html.ts) that build no tree and
 * never recurse on the input's structure, so any document chunks in time and memory linear in its size
 * (docs/decisions/0015-chunker.md); passage sizes follow docs/decisions/0003-passage-size.md.
 */
import type { DocumentFormat } from "./formats.js";
import { renderHtml } from "./html.js";
import { renderMarkdown } from "./markdown.js";
import { SectionBuilder } from "./sections.js";

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

export function chunkDocument(
  doc: { title: string; content: string; format: DocumentFormat },
  limits: ChunkLimits = defaultChunkLimits,
): Passage[] {
  const max = limits.maxPassageChars;
  // A non-positive or fractional bound could never be satisfied and would stall the splitter.
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`maxPassageChars must be a positive integer, got ${max}`);
  }
  // Windows line endings would otherwise leak "\r" into passages and defeat blank-line detection; a
  // byte-order mark is an encoding detail, not text.
  const content = doc.content.replace(/\r\n?/g, "\n").replace(/^\uFEFF/, "");

  const sections = new SectionBuilder(doc.title, max);
  switch (doc.format) {
    case "markdown":
    case "pdf":
    case "docx":
      renderMarkdown(content, sections);
      break;
    case "html":
      renderHtml(content, sections, { page: true });
      break;
    case "text":
      for (const paragraph of textParagraphs(content)) sections.block(paragraph);
      break;
    default: {
      const unknown: never = doc.format;
      throw new TypeError(`unsupported document format: ${String(unknown)}`);
    }
  }
  return sections.finish().map((piece, ordinal) => ({ ordinal, heading: piece.heading, text: piece.text }));
}

function textParagraphs(content: string): string[] {
  return content
    .split(/\n[^\S\n]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "");
}
