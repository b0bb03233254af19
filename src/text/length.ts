// How long a text is, in the two units docs/api.md counts: Unicode code points (lengths in characters) and UTF-8
// bytes (sizes). Counted without encoding or spreading the string: these run on every candidate line of a
// working-memory request and over every block of a 5 MiB document.

/** The UTF-16 index of the code point after the one at `index`; a lone surrogate counts as one code point. */
export function nextCodePoint(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
    const low = text.charCodeAt(index + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return index + 2;
  }
  return index + 1;
}

/** Code points in `text`, exactly as `[...text].length` counts them. */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i = nextCodePoint(text, i)) count++;
  return count;
}

/** The UTF-16 index reached after advancing `count` code points from `from` (clamped to the end). */
export function advanceCodePoints(text: string, from: number, count: number): number {
  let index = from;
  for (let n = 0; n < count && index < text.length; n++) index = nextCodePoint(text, index);
  return index;
}

/** UTF-8 bytes of `text` as TextEncoder would write it: a lone surrogate becomes U+FFFD, three bytes. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
