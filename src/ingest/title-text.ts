// A title's text: one line, 1–512 characters (docs/api.md "Documents"), so whatever names a document is collapsed
// and cut to fit.

export const MAX_TITLE_CHARS = 512;

/** Collapses white space to single spaces, trims, and cuts to the title limit; "" when nothing is left. */
export function cleanTitle(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  // Two UTF-16 units per code point at most, so this slice always holds the title's first 512 characters.
  const chars = [...line.slice(0, MAX_TITLE_CHARS * 2)];
  if (chars.length <= MAX_TITLE_CHARS && line.length <= MAX_TITLE_CHARS * 2) return line;
  return chars.slice(0, MAX_TITLE_CHARS).join("").trimEnd();
}
