// A Notion page's blocks as markdown, so the chunker sees its headings and splits passages where the page
// does. Pure: a tree of blocks in, text out. Rich text becomes its plain text (links and styling carry no
// words worth finding), with a markdown marker at the start of a line escaped, so "# not a heading" typed
// in a paragraph stays a paragraph; blocks that hold no words (a table of contents, a breadcrumb, an empty
// quote or bullet) are left out.

import { z } from "zod";
import { type NotionBlock, plainText, richTextSchema } from "./types.js";

export interface BlockNode {
  block: NotionBlock;
  children: BlockNode[];
}

const payloadSchema = z.looseObject({
  rich_text: z.array(richTextSchema).optional(),
  caption: z.array(richTextSchema).optional(),
  checked: z.boolean().optional(),
  language: z.string().optional(),
  title: z.string().optional(),
  expression: z.string().optional(),
  cells: z.array(z.array(richTextSchema)).optional(),
  has_column_header: z.boolean().optional(),
});
type Payload = z.infer<typeof payloadSchema>;

function payloadOf(block: NotionBlock): Payload {
  const parsed = payloadSchema.safeParse((block as Record<string, unknown>)[block.type]);
  return parsed.success ? parsed.data : {};
}

/**
 * A line start that markdown would read as structure rather than words: an ATX heading (`#`), a bullet
 * (`-`, `+`, `*`), a quote (`>`), an ordered item (`1.`, `1)`), a fence, a thematic break or setext
 * underline (`---`, `***`, `___`, `===`), the start of an HTML block (`<div>`, `<!--`), after at most three
 * spaces (four would make code of it either way).
 */
const leadingMarker =
  /^( {0,3})(#{1,6}(?=[ \t]|$)|[-+*](?=[ \t]|$)|>|<(?=[A-Za-z/!?])|\d{1,9}[.)](?=[ \t]|$)|`{3,}|~{3,}|(?:[-*_=][ \t]*){3,}$|=+[ \t]*$)/;

/** Text with a backslash before any line's leading markdown marker, so it renders as the words it is. */
export function escapeLeadingMarkers(text: string): string {
  return text
    .split("\n")
    .map((line) =>
      line.replace(leadingMarker, (_, indent: string, marker: string) => {
        // An ordered item's marker is its dot or parenthesis; every other one, its first character.
        const ordered = /^(\d+)([.)])$/.exec(marker);
        return ordered ? `${indent}${ordered[1]}\\${ordered[2]}` : `${indent}\\${marker}`;
      }),
    )
    .join("\n");
}

/** Prefixes every line but the first with `indent`, and the first with `first`. */
function hang(text: string, first: string, indent: string): string {
  return text
    .split("\n")
    .map((line, i) => (i === 0 ? first + line : line === "" ? "" : indent + line))
    .join("\n");
}

/** Prefixes every line (blank ones too) with `prefix`, as a quote's lines need. */
function prefixAll(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? prefix.trimEnd() : prefix + line))
    .join("\n");
}

function tableCell(cell: readonly { plain_text: string }[]): string {
  return plainText(cell)
    .replaceAll("\\", "\\\\")
    .replaceAll("|", "\\|")
    .replace(/\s*\n\s*/g, " ");
}

function table(node: BlockNode): string {
  const rows = node.children
    .filter((child) => child.block.type === "table_row")
    .map((child) => (payloadOf(child.block).cells ?? []).map(tableCell));
  if (rows.length === 0) return "";
  const width = Math.max(1, ...rows.map((r) => r.length));
  const line = (cells: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
  const [header = [], ...body] = rows;
  return [line(header), line(Array(width).fill("---")), ...body.map(line)].join("\n");
}

/** A code fence longer than any run of backticks in the code, so the code cannot close it. */
function fence(code: string): string {
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

/** The markdown of one block and everything under it; "" for a block with no words. */
function renderBlock(node: BlockNode, ordinal: number): string {
  const { block } = node;
  const payload = payloadOf(block);
  const raw = plainText(payload.rich_text);
  // Words as words: what the page's author typed never turns into markdown structure.
  const text = raw.trim() === "" ? "" : escapeLeadingMarkers(raw);
  const children = renderBlocks(node.children);
  const withChildren = (own: string) => [own, children].filter((part) => part !== "").join("\n\n");
  // Children of a list item, a to-do or a toggle belong to it: indented under it. An item with neither words
  // nor children is left out rather than rendered as a bare marker.
  const item = (marker: string) => {
    if (text === "" && children === "") return "";
    const own = hang(text, marker, " ".repeat(marker.length));
    return children === ""
      ? own
      : `${own}\n\n${hang(children, " ".repeat(marker.length), " ".repeat(marker.length))}`;
  };
  switch (block.type) {
    case "paragraph":
      return withChildren(text);
    case "heading_1":
      return withChildren(raw.trim() ? `# ${raw.trim().replace(/\s*\n\s*/g, " ")}` : "");
    case "heading_2":
      return withChildren(raw.trim() ? `## ${raw.trim().replace(/\s*\n\s*/g, " ")}` : "");
    case "heading_3":
      return withChildren(raw.trim() ? `### ${raw.trim().replace(/\s*\n\s*/g, " ")}` : "");
    case "bulleted_list_item":
      return item("- ");
    case "numbered_list_item":
      return item(`${ordinal}. `);
    case "to_do":
      return item(payload.checked ? "- [x] " : "- [ ] ");
    case "toggle":
      return item("- ");
    case "quote":
    case "callout": {
      // An empty quote would otherwise render as a lone `>`.
      const quoted = withChildren(text);
      return quoted === "" ? "" : prefixAll(quoted, "> ");
    }
    case "code": {
      // Code is verbatim: nothing escaped, and the fence is longer than any backtick run inside.
      if (raw.trim() === "") return "";
      const marks = fence(raw);
      const named = payload.language === "plain text" ? "" : (payload.language ?? "");
      const language = named.replace(/\s+/g, "-").replace(/[^A-Za-z0-9_+#.-]/g, "");
      return `${marks}${language}\n${raw}\n${marks}`;
    }
    case "equation":
      return payload.expression ? `$$\n${payload.expression}\n$$` : "";
    case "divider":
      return "---";
    case "child_page":
    case "child_database":
      // Its own document (a child page) or rows (a database): only its name belongs to this page.
      return payload.title?.trim() ? escapeLeadingMarkers(payload.title.trim()) : "";
    case "table":
      return table(node);
    case "image":
    case "video":
    case "audio":
    case "file":
    case "pdf":
    case "bookmark":
    case "embed":
      return escapeLeadingMarkers(plainText(payload.caption));
    // Containers whose words are all in their children.
    case "column_list":
    case "column":
    case "synced_block":
      return children;
    default:
      // table_of_contents, breadcrumb, link_to_page, unsupported, and types newer than this code: their
      // words, if any, then their children.
      return withChildren(text);
  }
}

/** Blocks in order, separated as paragraphs; consecutive numbered items are numbered 1, 2, 3. */
export function renderBlocks(nodes: readonly BlockNode[]): string {
  const parts: string[] = [];
  let ordinal = 0;
  for (const node of nodes) {
    ordinal = node.block.type === "numbered_list_item" ? ordinal + 1 : 0;
    const text = renderBlock(node, ordinal);
    if (text.trim() !== "") parts.push(text);
  }
  return parts.join("\n\n");
}

/** Block types whose children are not this page's content (a child page is a document of its own). */
export function ownsChildren(block: NotionBlock): boolean {
  return block.type !== "child_page" && block.type !== "child_database";
}
