// Badges: the rows of small linked images a README opens with (shields.io's "npm version", "Build Status",
// "Coverage Status"). They are no words of the document: a line or paragraph made only of them is neither a
// passage nor a heading, and a heading's badges are no part of its text ("promise-limit", not
// "promise-limit npm version npm Build Status").

// A badge is an image inside a link, or an image served by a badge service.
const linkedMarkdownImage = /\[\s*!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])\s*\](?:\([^)]*\)|\[[^\]]*\])/g;
const badgeMarkdownImage = /!\[[^\]]*\]\([^)]*(?:badge|shields\.io)[^)]*\)/gi;
const linkedHtmlImage = /<a\b[^>]*>\s*<img\b[^>]*>\s*<\/a\s*>/gi;
const badgeHtmlImage = /<img\b[^>]*\bsrc\s*=\s*["']?[^"'\s>]*(?:badge|shields\.io)[^>]*>/gi;

const htmlComment = /<!--[\s\S]*?-->/g;
const anyTag = /<[^>]*>/g;
const reference = /&(?:#[xX]?[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g;
const wordCharacter = /[\p{L}\p{N}]/u;

/**
 * Longest markup read as a row of badges. The longest row among the READMEs of node_modules is ~2 KB
 * (zod's 1.1 KB, hono's 1.5 KB); anything longer is prose, and the bound keeps the patterns from rescanning
 * a page of text.
 */
const maxBadgeRowChars = 8192;

/** The markup without its badges (unchanged when it has none). */
export function withoutBadges(source: string): string {
  if (!source.includes("![") && !/<img\b/i.test(source)) return source;
  return source
    .replace(linkedMarkdownImage, "")
    .replace(badgeMarkdownImage, "")
    .replace(linkedHtmlImage, "")
    .replace(badgeHtmlImage, "");
}

/**
 * Whether the markup's first (or last) visible character is a letter or digit. Every badge, tag, comment and
 * reference starts with `[`, `!`, `<` or `&` and ends with `)`, `]`, `>` or `;`, so such a character stands
 * outside them all: the markup is prose, decided without a scan (what almost every paragraph is).
 */
function startsWithWord(source: string): boolean {
  let first = 0;
  while (first < source.length && isSpaceUnit(source.charCodeAt(first))) first++;
  return first < source.length && isWordUnit(source, first);
}

function endsWithWord(source: string): boolean {
  let last = source.length - 1;
  while (last >= 0 && isSpaceUnit(source.charCodeAt(last))) last--;
  return last >= 0 && isWordUnit(source, last);
}

function isSpaceUnit(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

function isWordUnit(source: string, at: number): boolean {
  const code = source.charCodeAt(at);
  if (code < 128) return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122);
  return wordCharacter.test(source.charAt(at));
}

/**
 * isBadgeRow of the lines joined by "\n", joining them only when their ends leave it open: a paragraph's
 * lines are joined for this alone, and almost every paragraph starts or ends with a word.
 */
export function isBadgeRowOfLines(lines: readonly string[]): boolean {
  // The joined text starts where its first line does and ends where its last does (white space aside: a
  // blank first or last line only moves the edge, and is then asked of the whole).
  const first = lines[0] ?? "";
  const last = lines[lines.length - 1] ?? "";
  if (startsWithWord(first) || endsWithWord(last)) return false;
  return isBadgeRow(lines.length === 1 ? first : lines.join("\n"));
}

/** Whether markup holds badges and no word outside them and its tags (a README's row of badges). */
export function isBadgeRow(source: string): boolean {
  if (source.length > maxBadgeRowChars || startsWithWord(source) || endsWithWord(source)) return false;
  const rest = withoutBadges(source);
  if (rest === source) return false;
  const own = rest.replace(htmlComment, "").replace(anyTag, "").replace(reference, "");
  return !wordCharacter.test(own);
}
