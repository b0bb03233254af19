// Text taken out of a PDF or DOCX, written as markdown that reads back as that same text: the characters
// markdown would take for syntax are escaped, so a line of a contract that starts with "#" or "1." stays a
// line of prose, and "*" or "<" stay characters, instead of becoming a heading, a list or an HTML tag.

/** Characters that mean something inline (emphasis, code, links, HTML, entities). */
const INLINE_SYNTAX = /[\\`*_[\]<&~]/g;
/** What makes a line a block of another kind: a heading, quote, list, table, thematic break, setext line. */
const BLOCK_START = /^([#>+=|-]|\d+[.)])/;

/** Whether a UTF-16 unit is a control character other than tab and newline (a font's glyph code, not text). */
function isControl(unit: number): boolean {
  return (unit < 0x20 && unit !== 0x09 && unit !== 0x0a) || unit === 0x7f;
}

/** `text` without control characters (but tab and newline) and lone surrogates, which have no UTF-8 form. */
export function plainText(text: string): string {
  let kept = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const high = unit >= 0xd800 && unit <= 0xdbff;
    const low = unit >= 0xdc00 && unit <= 0xdfff;
    const next = text.charCodeAt(i + 1);
    if (high && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    if (isControl(unit) || high || low) {
      kept += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : kept + text.slice(from);
}

/** One line (or paragraph) of extracted text as markdown prose. */
export function markdownProse(text: string): string {
  const collapsed = plainText(text)
    .replace(/[^\S\n]+/g, " ")
    .replace(/ *\n */g, "\n")
    .trim();
  return collapsed
    .split("\n")
    .map((line) => line.replace(INLINE_SYNTAX, "\\$&").replace(BLOCK_START, "\\$1"))
    .join("\n");
}

/** A heading of `level` (1–6) whose text is `text`. */
export function markdownHeading(level: number, text: string): string {
  const clamped = Math.min(6, Math.max(1, level));
  return `${"#".repeat(clamped)} ${markdownProse(text).replace(/\n/g, " ")}`;
}
