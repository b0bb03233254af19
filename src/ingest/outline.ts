// What the markdown and HTML readers report while they read a document: headings and blocks of plain text,
// in document order. They build no tree, so neither memory nor the call stack grows with the input's depth.

export interface Outline {
  /**
   * A heading of depth 1–6 with its plain text (inline markup already removed) and, where the reader has
   * it, the markup it came from (title extraction tells a heading of badges from one of words by it).
   */
  heading(depth: number, text: string, source?: string): void;
  /**
   * A block of plain text: a paragraph, a list, a table, a code block. Blank blocks may be reported. `kind`
   * is "code" for verbatim text (a fenced or indented code block, `<pre>`), whose line breaks and indentation
   * are the text; a reader that cannot tell leaves it out. Passages ignore it; the document view shows code
   * as code by it.
   */
  block(text: string, source?: string, kind?: BlockKind): void;
  /**
   * A paragraph or heading made only of badges (src/ingest/badges.ts), with its markup: no text of the
   * document, so it is neither a block nor a heading. Title extraction reads a logo's name from it.
   */
  badges?(source: string): void;
}

export type BlockKind = "code";

/** An outline that keeps headings as lines of text: for headings nested in lists or quotes, which are no section. */
export class TextOutline implements Outline {
  readonly lines: string[] = [];

  heading(_depth: number, text: string): void {
    this.block(text);
  }

  block(text: string): void {
    if (text.trim() !== "") this.lines.push(text);
  }
}
