// A document's title, from its content: the first heading (markdown: any level, ATX or setext; HTML: the
// first <h1>–<h6>, else <title>), else the file name without its extension. Titles are 1–512 characters
// and never blank (API.md "Documents"), so the text is collapsed to one line and cut to fit.

import type { Element, ElementContent, RootContent as HastContent, Root as HastRoot } from "hast";
import { fromHtml } from "hast-util-from-html";
import { fromMarkdown } from "mdast-util-from-markdown";
import { toString as mdastToString } from "mdast-util-to-string";
import type { DocumentFormat } from "../ingest/formats.js";
import { stem } from "../ingest/formats.js";

export const MAX_TITLE_CHARS = 512;

// YAML (---) or TOML (+++) front matter at the very start: metadata, not content. Left in, a `# comment`
// in it would read as a heading and its closing `---` would turn the line above into a setext heading.
const frontMatter =
  /^\uFEFF?(?:---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)|\+\+\+[ \t]*\r?\n[\s\S]*?\r?\n\+\+\+)[ \t]*(?:\r?\n|$)/;

/** Collapses white space to single spaces, trims, and cuts to the title limit; "" when nothing is left. */
export function cleanTitle(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length <= MAX_TITLE_CHARS ? line : chars.slice(0, MAX_TITLE_CHARS).join("").trimEnd();
}

/** The first non-blank top-level heading of a markdown text, or "". */
export function markdownHeading(content: string): string {
  const tree = fromMarkdown(content.replace(frontMatter, ""));
  for (const node of tree.children) {
    if (node.type !== "heading") continue;
    const text = cleanTitle(mdastToString(node));
    if (text) return text;
  }
  return "";
}

function textOf(node: HastContent | ElementContent): string {
  if (node.type === "text") return node.value;
  if (node.type === "element") return node.children.map(textOf).join("");
  return "";
}

function firstElement(
  nodes: readonly (HastContent | ElementContent)[],
  match: (e: Element) => boolean,
): Element | null {
  for (const node of nodes) {
    if (node.type !== "element") continue;
    if (match(node)) {
      if (cleanTitle(textOf(node))) return node;
      continue;
    }
    const inner: Element | null = firstElement(node.children, match);
    if (inner) return inner;
  }
  return null;
}

const headingTags = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/** The first non-blank <h1>–<h6> of an HTML text in document order, else its <title>, or "". */
export function htmlHeading(content: string): string {
  const tree: HastRoot = fromHtml(content);
  const heading = firstElement(tree.children, (e) => headingTags.has(e.tagName));
  if (heading) return cleanTitle(textOf(heading));
  const title = firstElement(tree.children, (e) => e.tagName === "title");
  return title ? cleanTitle(textOf(title)) : "";
}

/** The title an import gives a file. */
export function titleOf(content: string, format: DocumentFormat, fileName: string): string {
  const heading =
    format === "markdown" ? markdownHeading(content) : format === "html" ? htmlHeading(content) : "";
  return heading || cleanTitle(stem(fileName)) || cleanTitle(fileName) || "Untitled";
}

/** The first usable heading of a document's content, or "" when it has none (plain text never has one). */
export function headingTitle(content: string, format: DocumentFormat): string {
  return format === "markdown" ? markdownHeading(content) : format === "html" ? htmlHeading(content) : "";
}
