// A PDF to markdown with PDF.js (through unpdf, its build for servers: no canvas, no native module, the
// same code on Node, Deno and in the container). Sections follow the file's outline (bookmarks) where it has
// one, each entry a heading at the start of the page it points to; without one, each page is a section
// ("Page 3"). The title is the file's Title metadata. A file that needs a password, or whose pages carry no
// text (scanned images), gives no text and is refused with the reason.

import { getDocumentProxy } from "unpdf";
import type { Extracted } from "./extracted.js";
import { ExtractionError } from "./extraction-error.js";
import { markdownHeading, markdownProse, plainText } from "./markdown-text.js";

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** "%PDF-" must begin within the first 1024 bytes (what readers such as Acrobat accept). */
const HEADER_WINDOW = 1024;
/** "%%EOF" must be within the last 1024 bytes: a file cut short has lost it (and usually its xref). */
const TRAILER_WINDOW = 1024;
/**
 * A line whose distance below the previous one passes this many times the text's height starts a new
 * paragraph: a line's own spacing is ~1.2 heights in printed text, a paragraph's gap ~1.8 or more.
 */
const PARAGRAPH_GAP = 1.5;
/** Outline levels kept as headings; deeper entries are read as the text they point into. */
const MAX_OUTLINE_DEPTH = 6;

export function isPdf(bytes: Uint8Array): boolean {
  return indexOf(bytes.subarray(0, HEADER_WINDOW), "%PDF-") >= 0;
}

export async function extractPdf(bytes: Uint8Array): Promise<Extracted> {
  if (!isPdf(bytes))
    throw new ExtractionError("not_format", "The file is not a PDF (it has no %PDF- header).");
  if (indexOf(bytes.subarray(Math.max(0, bytes.length - TRAILER_WINDOW)), "%%EOF") < 0) {
    throw new ExtractionError("truncated", "The PDF is truncated (it has no %%EOF end marker).");
  }
  let pdf: PdfDocument;
  try {
    // A copy: PDF.js takes the buffer it is given for its own (detaches it), and the caller's stays whole.
    pdf = await getDocumentProxy(bytes.slice(), {
      isEvalSupported: false,
      useSystemFonts: false,
      stopAtErrors: false,
    });
  } catch (error) {
    throw openFailure(error);
  }
  try {
    const { info } = (await pdf.getMetadata().catch(() => ({ info: {} }))) as { info: { Title?: unknown } };
    const headings = await outlineByPage(pdf);
    const blocks: string[] = [];
    let textLines = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const lines = pageLines((await page.getTextContent()).items);
      page.cleanup();
      textLines += lines.length;
      const own = headings.get(number - 1) ?? [];
      if (headings.size === 0 && lines.length > 0) blocks.push(markdownHeading(1, `Page ${number}`));
      blocks.push(...pageBlocks(lines, own));
    }
    if (textLines === 0) {
      throw new ExtractionError(
        "no_text",
        `The PDF has no text layer (${pdf.numPages} page${pdf.numPages === 1 ? "" : "s"} of images only, ` +
          "such as a scan); run OCR on it first.",
      );
    }
    const first = [...headings.values()][0]?.[0]?.title ?? null;
    return { content: blocks.join("\n\n"), title: cleanTitle(info.Title) ?? first };
  } finally {
    await pdf.destroy();
  }
}

function openFailure(error: unknown): ExtractionError {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "PasswordException") {
    return new ExtractionError("encrypted", "The PDF is encrypted with a password; send it decrypted.");
  }
  return new ExtractionError("damaged", "The PDF is damaged: its structure could not be read.");
}

function cleanTitle(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const title = plainText(value).replace(/\s+/g, " ").trim();
  return title === "" ? null : title;
}

interface OutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

/** Outline entries by the 0-based index of the page they point to, in outline order. */
async function outlineByPage(pdf: PdfDocument): Promise<Map<number, OutlineHeading[]>> {
  const byPage = new Map<number, OutlineHeading[]>();
  const outline = ((await pdf.getOutline().catch(() => null)) ?? []) as OutlineNode[];
  // Depth-first with an explicit stack: an outline nested thousands deep is not a recursion.
  const stack = outline.map((node) => ({ node, level: 1 })).reverse();
  while (stack.length > 0) {
    const { node, level } = stack.pop() as { node: OutlineNode; level: number };
    const title = cleanTitle(node.title);
    const target = title && level <= MAX_OUTLINE_DEPTH ? await targetOf(pdf, node.dest) : null;
    if (title && target !== null) {
      const list = byPage.get(target.page) ?? [];
      list.push({ level, title, top: target.top });
      byPage.set(target.page, list);
    }
    for (let i = (node.items ?? []).length - 1; i >= 0; i--) {
      const child = node.items[i];
      if (child) stack.push({ node: child, level: level + 1 });
    }
  }
  return byPage;
}

interface OutlineHeading {
  level: number;
  title: string;
  /** Where on its page the entry points (PDF units from the bottom), when its destination says. */
  top: number | null;
}

/** The page (0-based) and height an outline entry's destination points to; null for one that dangles. */
async function targetOf(
  pdf: PdfDocument,
  dest: OutlineNode["dest"],
): Promise<{ page: number; top: number | null } | null> {
  try {
    const explicit = typeof dest === "string" ? await pdf.getDestination(dest) : dest;
    const target = explicit?.[0];
    // [page, {name: "XYZ"}, left, top, zoom] (PDF 32000-1 §12.3.2.2): `top` is the view's upper edge.
    const top = (explicit?.[1] as { name?: unknown } | undefined)?.name === "XYZ" ? explicit?.[3] : null;
    const at = typeof top === "number" ? top : null;
    if (typeof target === "number") return { page: target, top: at };
    if (target && typeof target === "object") {
      return { page: await pdf.getPageIndex(target as Parameters<PdfDocument["getPageIndex"]>[0]), top: at };
    }
  } catch {
    // A dangling destination: the entry is left out, the text it points into is not.
  }
  return null;
}

interface Line {
  text: string;
  y: number;
  height: number;
}

/** A page's text items as lines, by the items' end-of-line marks, each with its baseline and height. */
function pageLines(items: readonly unknown[]): Line[] {
  const lines: Line[] = [];
  let text = "";
  let y = Number.NaN;
  let height = 0;
  const endLine = () => {
    if (text.trim() !== "") lines.push({ text, y, height });
    text = "";
    y = Number.NaN;
    height = 0;
  };
  for (const item of items) {
    const piece = item as { str?: unknown; hasEOL?: unknown; transform?: unknown; height?: unknown };
    if (typeof piece.str !== "string") continue;
    if (Number.isNaN(y) && Array.isArray(piece.transform)) y = Number(piece.transform[5]);
    if (typeof piece.height === "number") height = Math.max(height, piece.height);
    text += piece.str;
    if (piece.hasEOL === true) endLine();
  }
  endLine();
  return lines;
}

/**
 * A page as markdown blocks: paragraphs by vertical gaps, and the outline entries that point into the page
 * as headings where they point (before the first line at or below the entry's top), so each section holds
 * the text under its own heading. The line that prints the heading itself is not repeated as prose.
 */
function pageBlocks(lines: readonly Line[], headings: readonly OutlineHeading[]): string[] {
  const blocks: string[] = [];
  const pending = [...headings];
  let paragraph: string[] = [];
  let previous: Line | null = null;
  let justHeaded: string | null = null;
  const flush = () => {
    if (paragraph.length > 0) blocks.push(markdownProse(paragraph.join("\n")));
    paragraph = [];
  };
  const emitHeading = (heading: OutlineHeading) => {
    flush();
    blocks.push(markdownHeading(heading.level, heading.title));
    justHeaded = squash(heading.title);
  };
  // Entries with no position open the page.
  while (pending[0] && pending[0].top === null) emitHeading(pending.shift() as OutlineHeading);
  for (const line of lines) {
    let headed = false;
    while (pending[0] && line.y <= (pending[0].top ?? Number.POSITIVE_INFINITY) + 1) {
      emitHeading(pending.shift() as OutlineHeading);
      headed = true;
    }
    if (headed) previous = null;
    if (justHeaded !== null && squash(line.text) === justHeaded) {
      justHeaded = null;
      continue;
    }
    justHeaded = null;
    const gap = previous ? previous.y - line.y : 0;
    const size = Math.max(line.height, previous?.height ?? 0, 1);
    // Upwards (a new column) or a gap wider than a line's spacing: a new paragraph.
    if (previous && (gap < 0 || gap > size * PARAGRAPH_GAP)) flush();
    paragraph.push(line.text);
    previous = line;
  }
  flush();
  for (const heading of pending) blocks.push(markdownHeading(heading.level, heading.title));
  return blocks;
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

function indexOf(bytes: Uint8Array, ascii: string): number {
  const first = ascii.charCodeAt(0);
  outer: for (let at = 0; at + ascii.length <= bytes.length; at++) {
    if (bytes[at] !== first) continue;
    for (let j = 1; j < ascii.length; j++) if (bytes[at + j] !== ascii.charCodeAt(j)) continue outer;
    return at;
  }
  return -1;
}
