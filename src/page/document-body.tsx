/** @jsxRuntime automatic @jsxImportSource hono/jsx */
// A document's content as the chunker reads it (src/ingest/): headings as headings, lists as lists, code as
// <pre><code>, every other block as a paragraph of plain text, in one <section id="p{ordinal}"> per passage so a
// search hit lands on its passage. The readers have already removed the markup, and JSX escapes what is left,
// so a document renders its words and never its HTML; links, emphasis and images are not reproduced.

import type { Child } from "hono/jsx";
import type { DocumentFormat } from "../ingest/formats.js";
import { documentBlocks, type ShownBlock } from "./document-blocks.js";

/** The page's own <h1> is the title, so a document's headings start one level down. */
function Heading({ depth, text }: { depth: number; text: string }) {
  const level = Math.min(depth + 1, 6);
  if (level === 2) return <h2>{text}</h2>;
  if (level === 3) return <h3>{text}</h3>;
  if (level === 4) return <h4>{text}</h4>;
  if (level === 5) return <h5>{text}</h5>;
  return <h6>{text}</h6>;
}

interface ListItem {
  text: string;
  children: ListItem[];
}

// A line of a list as the readers write it: two spaces a level, the marker, the item's text.
const ITEM_LINE = /^((?: {2})*)((?:[-+*]|\d{1,9}[.)]) )(.*)$/;

/** A list block's lines as nested items; a line without a marker continues the item above it. */
function listItems(text: string): { ordered: boolean; items: ListItem[] } {
  const root: ListItem = { text: "", children: [] };
  const open: ListItem[] = [root];
  let ordered: boolean | null = null;
  for (const line of text.split("\n")) {
    const match = ITEM_LINE.exec(line);
    if (!match) {
      const last = open[open.length - 1];
      if (last && last !== root && line.trim() !== "") last.text += `\n${line.trim()}`;
      continue;
    }
    ordered ??= /\d/.test(match[2] ?? "");
    // A level deeper than the one above it can only be one deeper: nesting is read, never invented.
    const depth = Math.min((match[1] ?? "").length / 2, open.length - 1);
    open.length = depth + 1;
    const item: ListItem = { text: match[3] ?? "", children: [] };
    open[depth]?.children.push(item);
    open.push(item);
  }
  return { ordered: ordered ?? false, items: root.children };
}

function List({ items, ordered }: { items: ListItem[]; ordered: boolean }) {
  const children = items.map((item) => (
    <li>
      {item.text}
      {item.children.length > 0 ? <List items={item.children} ordered={ordered} /> : null}
    </li>
  ));
  return ordered ? <ol>{children}</ol> : <ul>{children}</ul>;
}

function Block({ block }: { block: ShownBlock }) {
  switch (block.kind) {
    case "heading":
      return <Heading depth={block.depth} text={block.text} />;
    case "code":
      return (
        <pre>
          <code>{block.text}</code>
        </pre>
      );
    case "list":
      return <List {...listItems(block.text)} />;
    default:
      return <p>{block.text}</p>;
  }
}

function sameText(a: string, b: string): boolean {
  return a.replace(/\s+/g, " ").trim().toLowerCase() === b.replace(/\s+/g, " ").trim().toLowerCase();
}

export interface DocumentBodyProps {
  title: string;
  content: string;
  format: DocumentFormat;
}

export function DocumentBody({ title, content, format }: DocumentBodyProps) {
  const { blocks, passages } = documentBlocks({ title, content, format });
  // The page's <h1> is the title: a first heading that only repeats it is not shown again.
  const first = blocks[0];
  const shown =
    first?.kind === "heading" && first.depth === 1 && sameText(first.text, title) ? blocks.slice(1) : blocks;

  // A section per passage that a block starts; a passage that starts inside a long block (cut across
  // passages) gets its anchor just before that block, and one that holds no shown block at all (an empty
  // one, or the title's heading alone) at the next element. Every ordinal gets exactly one id.
  const sections: Child[] = [];
  let body: Child[] = [];
  let sectionId = -1;
  let anchored = -1;
  const anchorsUpTo = (ordinal: number): Child[] => {
    const anchors: Child[] = [];
    for (let n = anchored + 1; n <= ordinal; n++) anchors.push(<span id={`p${n}`} class="anchor" />);
    anchored = Math.max(anchored, ordinal);
    return anchors;
  };
  const close = () => {
    if (body.length === 0) return;
    sections.push(
      <section id={sectionId >= 0 ? `p${sectionId}` : undefined} class="passage">
        {body}
      </section>,
    );
    body = [];
  };
  for (const block of shown) {
    if (block.ordinal > anchored) {
      close();
      body.push(...anchorsUpTo(block.ordinal - 1));
      sectionId = block.ordinal;
      anchored = block.ordinal;
    }
    if (block.last > anchored) body.push(...anchorsUpTo(block.last));
    body.push(<Block block={block} />);
  }
  if (passages - 1 > anchored) body.push(...anchorsUpTo(passages - 1));
  close();
  if (sections.length === 0) sections.push(<section id="p0" class="passage" />);
  return <div class="document">{sections}</div>;
}
