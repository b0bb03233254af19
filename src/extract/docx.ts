// A DOCX file (Office Open XML) to markdown: each paragraph of word/document.xml in order, paragraphs of a
// heading style as headings of their level (so a search hit's heading trail is the document's own), list
// paragraphs as list items, table cells as paragraphs. The title is docProps/core.xml's dc:title. Only
// run text (<w:t>) is read: deleted text, field codes and drawings are not the document's prose.
//
// The archive is read by ./zip.ts, which bounds what each part inflates to; the XML by a tokenizer over the
// tags, which keeps nothing but the paragraph being read (no tree), so time and memory follow the size.

import type { Extracted } from "./extracted.js";
import { ExtractionError, type ExtractionProblem } from "./extraction-error.js";
import { markdownHeading, markdownProse, plainText } from "./markdown-text.js";
import { looksLikeZip, ZipError, ZipReader } from "./zip.js";

const DOCUMENT = "word/document.xml";
const STYLES = "word/styles.xml";
const CORE = "docProps/core.xml";

/**
 * The most any one part may inflate to. pandoc's document.xml holds ~8 bytes of XML a byte of text (a real
 * README: 186 KB for 24 KB), Word's two or three times that, so 64 MiB holds several times the default
 * document limit (5 MiB) of text. It also keeps the XML, as text, far under the extract worker's heap bound
 * (768 MB): an allocation larger than what is left of that bound aborts the whole process rather than the
 * worker (docs/decisions/0035-extraction-bounds.md). A zip bomb stops here, having cost this much at most.
 */
export const MAX_PART_BYTES = 64 * 1024 * 1024;
/** styles.xml and core.xml are small (tens of KB); a large one is not a real document's. */
const MAX_SMALL_PART_BYTES = 16 * 1024 * 1024;

const TOKEN = /<(\/?)([A-Za-z_][\w.:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<[?!][^>]*>|([^<]+)/g;

export function extractDocx(bytes: Uint8Array, maxPartBytes = MAX_PART_BYTES): Extracted {
  if (!looksLikeZip(bytes))
    throw new ExtractionError("not_format", "The file is not a DOCX (not a ZIP archive).");
  try {
    const zip = new ZipReader(bytes);
    const document = zip.read(DOCUMENT, maxPartBytes);
    if (!document)
      throw new ExtractionError("not_format", "The file is not a DOCX (it has no word/document.xml).");
    const styles = zip.read(STYLES, MAX_SMALL_PART_BYTES);
    const core = zip.read(CORE, MAX_SMALL_PART_BYTES);
    const levels = styles ? headingLevels(decode(styles)) : new Map<string, number>();
    const { content, firstHeading, titleParagraph } = readBody(decode(document), levels);
    if (content === "")
      throw new ExtractionError("no_text", "The DOCX has no text (no paragraph holds any words).");
    const metadata = core ? coreTitle(decode(core)) : null;
    return { content, title: metadata ?? titleParagraph ?? firstHeading };
  } catch (error) {
    if (error instanceof ZipError) {
      throw new ExtractionError(problemOf[error.problem], `The DOCX ${error.message}.`);
    }
    throw error;
  }
}

const problemOf: Record<ZipError["problem"], ExtractionProblem> = {
  not_zip: "not_format",
  truncated: "truncated",
  too_large: "too_large",
  unsupported: "damaged",
  damaged: "damaged",
};

function decode(bytes: Uint8Array): string {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  return text;
}

interface Paragraph {
  level: number | null;
  style: string | null;
  listed: boolean;
  text: string[];
}

/** Paragraph style ids that are the title of the document rather than a section of it. */
const TITLE_STYLES = new Set(["Title", "Subtitle"]);

function readBody(
  xml: string,
  levels: Map<string, number>,
): { content: string; firstHeading: string | null; titleParagraph: string | null } {
  const blocks: string[] = [];
  let firstHeading: string | null = null;
  let titleParagraph: string | null = null;
  let paragraph: Paragraph | null = null;
  let inText = false;
  // Text of deleted runs, field instructions and the like is not in <w:t>; <w:t> inside them is not either.
  let skipDepth = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(xml); match !== null; match = TOKEN.exec(xml)) {
    const [, closing, name, rest, text] = match;
    if (text !== undefined) {
      if (inText && paragraph && skipDepth === 0) paragraph.text.push(decodeEntities(text));
      continue;
    }
    if (name === undefined) continue;
    const selfClosing = (rest ?? "").endsWith("/");
    if (SKIPPED.has(name)) {
      if (!selfClosing) skipDepth += closing ? -1 : 1;
      continue;
    }
    if (name === "w:p") {
      if (closing) {
        if (paragraph) {
          const block = render(paragraph, levels);
          if (block) {
            blocks.push(block.markdown);
            if (block.heading && firstHeading === null) firstHeading = block.heading;
            if (block.title && titleParagraph === null) titleParagraph = block.title;
          }
        }
        paragraph = null;
      } else if (!selfClosing) {
        paragraph = { level: null, style: null, listed: false, text: [] };
      }
      continue;
    }
    if (!paragraph || closing) {
      if (name === "w:t") inText = false;
      continue;
    }
    switch (name) {
      case "w:t":
        inText = !selfClosing;
        break;
      case "w:tab":
        paragraph.text.push(" ");
        break;
      case "w:br":
      case "w:cr":
        paragraph.text.push("\n");
        break;
      case "w:pStyle":
        paragraph.style = attribute(rest ?? "", "w:val");
        break;
      case "w:outlineLvl": {
        const level = Number(attribute(rest ?? "", "w:val"));
        // 9 is "body text" in Word's outline levels.
        if (Number.isInteger(level) && level >= 0 && level < 9) paragraph.level = level + 1;
        break;
      }
      case "w:numPr":
        paragraph.listed = true;
        break;
    }
  }
  return { content: blocks.join("\n\n"), firstHeading, titleParagraph };
}

/** Elements whose text is not the document's prose: deleted revisions and field codes. */
const SKIPPED = new Set(["w:del", "w:instrText", "w:delText"]);

function render(
  paragraph: Paragraph,
  levels: Map<string, number>,
): { markdown: string; heading: string | null; title: string | null } | null {
  const text = paragraph.text.join("").trim();
  if (text === "") return null;
  if (paragraph.style && TITLE_STYLES.has(paragraph.style)) {
    return { markdown: markdownProse(text), heading: null, title: plainText(text).replace(/\s+/g, " ") };
  }
  const level = paragraph.level ?? (paragraph.style ? styleLevel(paragraph.style, levels) : null);
  if (level !== null) {
    return {
      markdown: markdownHeading(level, text),
      heading: plainText(text).replace(/\s+/g, " "),
      title: null,
    };
  }
  const prose = markdownProse(text);
  return {
    markdown: paragraph.listed ? `- ${prose.replace(/\n/g, " ")}` : prose,
    heading: null,
    title: null,
  };
}

/** A style's heading level: from styles.xml, else from Word's own ids ("Heading2") when that part is missing. */
function styleLevel(style: string, levels: Map<string, number>): number | null {
  const level = levels.get(style);
  if (level !== undefined) return level;
  const builtIn = /^heading\s*([1-9])$/i.exec(style);
  return builtIn ? Number(builtIn[1]) : null;
}

/**
 * Heading level of each paragraph style: a style named "heading N" (Word's built-in names, whatever the
 * language of its display name or its id, "Heading1" or "berschrift1") or one with an outline level.
 */
function headingLevels(xml: string): Map<string, number> {
  const levels = new Map<string, number>();
  for (const style of xml.matchAll(/<w:style\b([^>]*)>([\s\S]*?)<\/w:style>/g)) {
    const id = attribute(style[1] ?? "", "w:styleId");
    if (!id) continue;
    const body = style[2] ?? "";
    const name = /<w:name\b([^>]*)\/?>/.exec(body);
    const named = /^heading ([1-9])$/i.exec(name ? (attribute(name[1] ?? "", "w:val") ?? "") : "");
    const outline = /<w:outlineLvl\b([^>]*)\/?>/.exec(body);
    const outlineLevel = outline ? Number(attribute(outline[1] ?? "", "w:val")) : Number.NaN;
    if (named) levels.set(id, Number(named[1]));
    else if (Number.isInteger(outlineLevel) && outlineLevel >= 0 && outlineLevel < 9)
      levels.set(id, outlineLevel + 1);
  }
  return levels;
}

function coreTitle(xml: string): string | null {
  const match = /<dc:title\b[^>]*>([^<]*)<\/dc:title>/.exec(xml);
  const title = match
    ? plainText(decodeEntities(match[1] ?? ""))
        .replace(/\s+/g, " ")
        .trim()
    : "";
  return title === "" ? null : title;
}

function attribute(attributes: string, name: string): string | null {
  const match = new RegExp(`(?:^|\\s)${name.replace(/[.:]/g, "\\$&")}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(
    attributes,
  );
  return match ? decodeEntities(match[1] ?? match[2] ?? "") : null;
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
        ? String.fromCodePoint(code)
        : "";
    }
    return NAMED_ENTITIES[name] ?? whole;
  });
}
