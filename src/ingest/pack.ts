// Packing a section's blocks into passages under the size cap of decision 0003: whole blocks where they fit,
// balanced shares of a long section, and an over-long block cut at the best boundary inside the window.

import { advanceCodePoints, codePointLength } from "../text/length.js";

// Blocks are separated like paragraphs so the passage text still reads as prose.
export const blockSeparator = "\n\n";
const blockSeparatorLength = 2;

/**
 * Packs a section's blocks into passages of at most `max` code points, never splitting a block that fits.
 * Instead of filling each passage to the brim (which leaves a runt at the end), it aims at an even share
 * of the section, so a 2100-character section becomes two passages of ~1050 rather than 2000 + 100.
 */
export function packSection(blocks: readonly string[], max: number): string[] {
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
  // need no following space. The separator is the captured group; the punctuation stays with the piece.
  // (A lookbehind here rescanned each run of brackets from every position in it: quadratic on "]]]]…".)
  { pattern: /[.!?…]["'”’)\]»]*(\s+)|[。！？]()/g, skip: whitespace },
];
const anyWhitespace = /\s+/g;
// A UTF-16 unit of a letter or digit (the halves of a surrogate pair are neither, so no cut falls between them).
const wordUnit = /[\p{L}\p{N}]/u;

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
  // No space at all (a run of brackets around a word): cut where a word meets punctuation, so no word is
  // split, if that keeps half the window.
  for (let i = limit; i > half; i--) {
    if (wordUnit.test(window.charAt(i - 1)) !== wordUnit.test(window.charAt(i)))
      return { end: i, next: i, skip: nothing };
  }
  return { end: limit, next: limit, skip: nothing };
}

function lastBoundary(window: string, pattern: RegExp, limit: number, skip: RegExp): Cut | undefined {
  let best: Cut | undefined;
  for (const match of window.matchAll(pattern)) {
    const next = match.index + match[0].length;
    // The separator is the captured group where the pattern has one, else the whole match.
    const end = next - (match[1] ?? match[2] ?? match[0]).length;
    if (end > limit) break;
    // Skip cuts at the very start; they would produce an empty piece.
    if (end === 0) continue;
    best = { end, next, skip };
  }
  return best;
}
