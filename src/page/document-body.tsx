/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// A document's content as the chunker reads it (src/ingest/): headings as headings, every other block as a
// paragraph of plain text. The readers have already removed the markup, and JSX escapes what is left, so a
// document renders its words and never its HTML; links, emphasis and images are not reproduced.

import type { DocumentFormat } from "../ingest/formats.js";
import { renderHtml } from "../ingest/html.js";
import { renderMarkdown } from "../ingest/markdown.js";
import type { Outline } from "../ingest/outline.js";

type Block = { kind: "heading"; depth: number; text: string } | { kind: "text"; text: string };

class BlockOutline implements Outline {
  readonly blocks: Block[] = [];

  heading(depth: number, text: string): void {
    this.blocks.push({ kind: "heading", depth, text });
  }

  block(text: string): void {
    if (text.trim() !== "") this.blocks.push({ kind: "text", text });
  }
}

function blocksOf(content: string, format: DocumentFormat): Block[] {
  const outline = new BlockOutline();
  const text = content.replace(/\r\n?/g, "\n").replace(/^\uFEFF/, "");
  // A PDF's or DOCX's text is stored as markdown (src/extract/).
  if (format === "markdown" || format === "pdf" || format === "docx") renderMarkdown(text, outline);
  else if (format === "html") renderHtml(text, outline);
  else for (const paragraph of text.split(/\n\s*\n/)) outline.block(paragraph);
  return outline.blocks;
}

/** The page's own <h1> is the title, so a document's headings start one level down. */
function Heading({ depth, text }: { depth: number; text: string }) {
  const level = Math.min(depth + 1, 6);
  if (level === 2) return <h2>{text}</h2>;
  if (level === 3) return <h3>{text}</h3>;
  if (level === 4) return <h4>{text}</h4>;
  if (level === 5) return <h5>{text}</h5>;
  return <h6>{text}</h6>;
}

export function DocumentBody({ content, format }: { content: string; format: DocumentFormat }) {
  return (
    <div class="document">
      {blocksOf(content, format).map((block) =>
        block.kind === "heading" ? <Heading depth={block.depth} text={block.text} /> : <p>{block.text}</p>,
      )}
    </div>
  );
}
