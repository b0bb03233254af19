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

/** Whether markup holds badges and no word outside them and its tags (a README's row of badges). */
export function isBadgeRow(source: string): boolean {
  if (source.length > maxBadgeRowChars) return false;
  const rest = withoutBadges(source);
  if (rest === source) return false;
  const own = rest.replace(htmlComment, "").replace(anyTag, "").replace(reference, "");
  return !wordCharacter.test(own);
}
