// Turns an outline (headings and blocks in order) into passages: a section per heading with the trail of the
// headings above it, packed under the size cap as each section closes (decision 0003).

import { codePointLength } from "../text/length.js";
import type { Outline } from "./outline.js";
import { packSection } from "./pack.js";

// Separator of heading trails; a character that never appears in markdown syntax, so it reads as a path.
const trailSeparator = " › ";

/**
 * Longest heading kept whole in a trail. A trail is repeated on every passage of its section and is not
 * counted against the passage cap, so a "heading" that is really a page of text (a 400 KB line after `#`)
 * would be copied into thousands of passages. 256 code points hold any heading a person writes; a longer
 * one is cut in the trail and its full text becomes the section's first block, so no word is lost.
 */
const maxTrailEntryChars = 256;

export interface PassageText {
  heading: string;
  text: string;
}

function normaliseForComparison(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}

function cutTrailEntry(text: string): string {
  const chars = [...text.slice(0, maxTrailEntryChars * 2)].slice(0, maxTrailEntryChars).join("");
  const space = chars.lastIndexOf(" ");
  return (space > maxTrailEntryChars / 2 ? chars.slice(0, space) : chars).trimEnd();
}

export class SectionBuilder implements Outline {
  readonly passages: PassageText[] = [];
  // Heading text per depth (index = depth - 1); "" marks a level with no heading so it is skipped in trails.
  private readonly levels: string[] = [];
  private trail = "";
  // Depth of the deepest heading in the trail whose words no passage carries yet (0: none).
  private pendingDepth = 0;
  private blocks: string[] = [];
  private seenContent = false;

  constructor(
    private readonly title: string,
    private readonly max: number,
  ) {}

  heading(depth: number, raw: string): void {
    const text = raw.replace(/\s+/g, " ").trim();
    const first = !this.seenContent;
    this.seenContent = true;
    // The title is indexed separately; repeating it in every trail would only add noise.
    if (first && depth === 1 && normaliseForComparison(text) === normaliseForComparison(this.title)) return;
    this.close(depth);
    const long = codePointLength(text) > maxTrailEntryChars;
    while (this.levels.length < depth) this.levels.push("");
    this.levels[depth - 1] = long ? cutTrailEntry(text) : text;
    this.levels.length = depth;
    this.trail = this.levels.filter((level) => level !== "").join(trailSeparator);
    if (text !== "") this.pendingDepth = depth;
    if (long) this.blocks.push(text);
  }

  block(text: string): void {
    if (text.trim() === "") return;
    this.seenContent = true;
    this.blocks.push(text);
  }

  /** Closes the last section and returns every passage; an empty document still gets one to carry its title. */
  finish(): PassageText[] {
    this.close(0);
    if (this.passages.length === 0) this.passages.push({ heading: "", text: "" });
    return this.passages;
  }

  private close(nextDepth: number): void {
    // An empty section whose heading is about to be replaced would otherwise lose that heading's words; an
    // empty section followed by a deeper heading needs nothing, its text lives on in the deeper trail —
    // unless that deeper section stays empty too, which is why the debt is carried, not forgotten.
    if (this.blocks.length > 0 || (this.pendingDepth > 0 && this.pendingDepth >= nextDepth)) {
      for (const text of packSection(this.blocks, this.max))
        this.passages.push({ heading: this.trail, text });
      this.pendingDepth = 0;
    }
    this.blocks = [];
  }
}
