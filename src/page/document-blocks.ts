// A document's content as the document view shows it: its headings and blocks in order, each tagged with the
// ordinal of the passage it starts in, so a search hit can link to `#p{ordinal}`.
//
// The blocks come from the same readers and the same SectionBuilder the chunker runs (src/ingest/), so the
// ordinals are the stored passages' as long as the chunker has not changed since the document was written.
// SectionBuilder packs a section's blocks as the section closes and may cut a long block across passages;
// which passage a block starts in is found by its opening words, searched forward from the previous block's
// passage (passages and blocks are both in document order, and a cut block's first piece starts with it).
// A heading belongs to the passage of the block after it.

import { type ChunkLimits, defaultChunkLimits } from "../ingest/chunk.js";
import type { DocumentFormat } from "../ingest/formats.js";
import { renderHtml } from "../ingest/html.js";
import { renderMarkdown } from "../ingest/markdown.js";
import type { BlockKind, Outline } from "../ingest/outline.js";
import { SectionBuilder } from "../ingest/sections.js";

/** `ordinal`: the passage the block starts in; `last`: the one it ends in (a long block is cut across several). */
export type ShownBlock =
  | { kind: "heading"; depth: number; text: string; ordinal: number; last: number }
  | { kind: "text" | "list" | BlockKind; text: string; ordinal: number; last: number };

type Unplaced = ShownBlock extends infer B
  ? B extends unknown
    ? Omit<B, "ordinal" | "last">
    : never
  : never;

/**
 * Characters of a block's start looked for in the passages. Long enough that two blocks rarely open alike,
 * short enough to sit inside the first piece of any cut block (pieces are at least half the 2000-character
 * cap, decision 0003).
 */
const OPENING_CHARS = 80;

/**
 * Passages a block's opening is looked for in, from the previous block's. A block starts in the passage the
 * one before it ended in or the next, unless empty sections (a heading with no text) came between, each an
 * empty passage; 64 of those in a row is far past any real outline. The bound keeps a block whose opening is
 * never found from scanning every later passage: without it a 5 MiB document of such blocks would cost
 * blocks × passages.
 */
const SEARCH_AHEAD = 64;

/** Characters of white space a cut may have dropped between two pieces of one block, and then some. */
const CUT_SLACK = 4;

// A list as the readers write it: two spaces a level, then "- " (or "1. " as typed in a plain-text note).
const LIST_ITEM = /^(?: {2})*(?:[-+*]|\d{1,9}[.)]) /;

/** Hands every heading and block to the chunker's own SectionBuilder and keeps them, in order, for the view. */
class RecordingOutline implements Outline {
  readonly events: Unplaced[] = [];

  constructor(private readonly builder: SectionBuilder) {}

  heading(depth: number, text: string): void {
    this.builder.heading(depth, text);
    this.events.push({ kind: "heading", depth, text: text.replace(/\s+/g, " ").trim() });
  }

  block(text: string, _source?: string, kind?: BlockKind): void {
    this.builder.block(text);
    if (text.trim() === "") return;
    this.events.push({ kind: kind ?? (LIST_ITEM.test(text) ? "list" : "text"), text });
  }
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The headings and blocks of a document, each with the ordinal of the passage it starts in, and how many
 * passages the chunker cuts it into (the view has an anchor for every one).
 */
export function documentBlocks(
  doc: { title: string; content: string; format: DocumentFormat },
  limits: ChunkLimits = defaultChunkLimits,
): { blocks: ShownBlock[]; passages: number } {
  const builder = new SectionBuilder(doc.title, limits.maxPassageChars);
  const outline = new RecordingOutline(builder);
  // As chunkDocument reads it: the same line endings, no byte-order mark, the same paragraphs of plain text.
  const content = doc.content.replace(/\r\n?/g, "\n").replace(/^\uFEFF/, "");
  // A PDF's or DOCX's text is stored as markdown (src/extract/).
  if (doc.format === "markdown" || doc.format === "pdf" || doc.format === "docx")
    renderMarkdown(content, outline);
  // As the chunker reads a page (its main content, without the site's chrome), so the ordinals agree.
  else if (doc.format === "html") renderHtml(content, outline, { page: true });
  else
    for (const paragraph of content.split(/\n[^\S\n]*\n/)) {
      if (paragraph.trim() !== "") outline.block(paragraph.trim());
    }
  const passages = builder.finish().map((passage) => normalise(passage.text));

  const placed: ShownBlock[] = [];
  // Where the previous block was found: its passage, and the offset in that passage just past it, so a block
  // repeating an earlier one's words is looked for after it, not found again at the earlier one's place.
  let at = 0;
  let past = 0;
  let headingsWaiting: Array<Unplaced & { kind: "heading" }> = [];
  for (const event of outline.events) {
    if (event.kind === "heading") {
      headingsWaiting.push(event);
      continue;
    }
    const text = normalise(event.text);
    const opening = text.slice(0, OPENING_CHARS);
    let start = at;
    for (let k = at; k < Math.min(passages.length, at + SEARCH_AHEAD); k++) {
      const found = (passages[k] ?? "").indexOf(opening, k === at ? past : 0);
      if (found >= 0) {
        start = k;
        at = k;
        past = found + text.length;
        break;
      }
    }
    // A block longer than what is left of its passage goes on at the start of the next (the cut's white
    // space dropped): follow it to the passage it ends in.
    while (past > (passages[at] ?? "").length && at + 1 < passages.length) {
      past -= (passages[at] ?? "").length + 1;
      at++;
    }
    // The cut's white space is counted roughly: the next block is looked for a little before this one's end.
    past = Math.max(0, past - CUT_SLACK);
    for (const heading of headingsWaiting) placed.push({ ...heading, ordinal: start, last: start });
    headingsWaiting = [];
    placed.push({ ...event, ordinal: start, last: at } as ShownBlock);
  }
  const last = Math.max(passages.length - 1, 0);
  for (const heading of headingsWaiting) {
    const ordinal = Math.max(at, last);
    placed.push({ ...heading, ordinal, last: ordinal });
  }
  return { blocks: placed, passages: passages.length };
}
