// The words a reader sees in a markdown or HTML document, found by the reference parsers (micromark via
// mdast-util-from-markdown with GFM, and parse5 via hast-util-from-html), independently of the chunker: the
// oracle the word-keeping tests compare passages against.
//
// "Visible" by construction: text nodes, code, image alt text of markdown images that are not badges; not comments, not the
// content of script, style, template, title, iframe, noembed, noframes or noscript, not link destinations
// or reference definitions. Words are runs of letters and digits after the folding FTS5's unicode61
// tokenizer applies (case and diacritics removed), so the check sees what the index would.

import type { Element, Nodes as HastNodes } from "hast";
import { fromHtml } from "hast-util-from-html";
import type { Nodes as MdastNodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { parse as parseYaml } from "yaml";
import type { Passage } from "../../src/ingest/chunk.js";
import { type Generator, generatorOf, type TagAttributes, tagRole } from "../../src/ingest/html-chrome.js";
import { isNavigationText } from "../../src/ingest/html-page-policy.js";

const hiddenElements = new Set([
  "script",
  "style",
  "template",
  "title",
  "iframe",
  "noembed",
  "noframes",
  "noscript",
]);
// Tags that do not separate the words around them ("un<b>bold</b>ed" is one word), as the chunker reads them.
const phrasing = new Set(
  "a abbr b bdi bdo cite code data del dfn em font i ins kbd mark q s samp small span strike strong sub sup time tt u var wbr".split(
    " ",
  ),
);

export function foldWords(text: string): string[] {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

export function passageWords(passages: readonly Passage[]): Set<string> {
  const words = new Set<string>();
  for (const passage of passages) {
    for (const word of foldWords(passage.heading)) words.add(word);
    for (const word of foldWords(passage.text)) words.add(word);
  }
  return words;
}

function hastText(node: HastNodes, out: string[]): void {
  // Explicit stack: real HTML documentation nests deeply enough to make recursion a risk in a test too.
  const stack: Array<HastNodes | string> = [node];
  while (stack.length > 0) {
    const item = stack.pop() as HastNodes | string;
    if (typeof item === "string") {
      out.push(item);
      continue;
    }
    if (item.type === "text") out.push(item.value);
    else if (item.type === "element") {
      const element = item as Element;
      if (hiddenElements.has(element.tagName)) continue;
      const separator = phrasing.has(element.tagName) ? "" : " ";
      stack.push(separator);
      for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i] as HastNodes);
      stack.push(separator);
    } else if (item.type === "root") {
      for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i] as HastNodes);
    }
  }
}

/** A hast element's attributes as the page rules read them (src/ingest/html-chrome.ts). */
function attributesOf(element: Element): TagAttributes {
  const p = element.properties;
  const style = typeof p.style === "string" ? p.style : "";
  const className = Array.isArray(p.className) ? p.className.map(String) : [];
  return {
    classes: className,
    id: typeof p.id === "string" ? p.id.toLowerCase() : "",
    role: typeof p.role === "string" ? (p.role.trim().split(/\s+/)[0] ?? "").toLowerCase() : "",
    href: typeof p.href === "string" ? p.href : null,
    hidden:
      p.hidden === true ||
      p.hidden === "" ||
      String(p.ariaHidden).toLowerCase() === "true" ||
      /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i.test(style),
    open: p.open === true || p.open === "",
  };
}

const voidOrOptionalEnd = new Set(
  "area base br col embed hr img input keygen link meta param source track wbr body caption colgroup dd dt head html li optgroup option p rb rp rt tbody td tfoot th thead tr".split(
    " ",
  ),
);

/**
 * A page's main content as parse5 builds its tree, by the rules the chunker applies while streaming: the
 * text of <main> or [role=main] if any, else of <article>s, else of the whole page, without chrome.
 * Written over the tree so a slip in the streaming reader's counting (a region closed early or late) shows
 * as words missing or extra.
 */
function pageText(root: HastNodes): string {
  let generator: Generator = "other";
  const buckets: [string[], string[], string[]] = [[], [], []];
  type Item =
    | { node: HastNodes; standing: 0 | 1 | 2; inSection: boolean }
    | { text: string; standing: 0 | 1 | 2 };
  const stack: Item[] = [{ node: root, standing: 0, inSection: false }];
  while (stack.length > 0) {
    const item = stack.pop() as Item;
    if ("text" in item) {
      buckets[item.standing].push(item.text);
      continue;
    }
    const { node, standing, inSection } = item;
    if (node.type === "text") {
      buckets[standing].push(node.value);
      continue;
    }
    if (node.type !== "element" && node.type !== "root") continue;
    let childStanding = standing;
    let childInSection = inSection;
    if (node.type === "element") {
      const element = node as Element;
      if (hiddenElements.has(element.tagName)) continue;
      const attributes = attributesOf(element);
      if (element.tagName === "meta" && String(element.properties.name).toLowerCase() === "generator")
        generator = generatorOf(String(element.properties.content));
      if (element.tagName === "img" && attributes.hidden) continue;
      if (!voidOrOptionalEnd.has(element.tagName)) {
        const role = tagRole(element.tagName, attributes, generator, inSection);
        if (role === "chrome") continue;
        if (role === "main") childStanding = 2;
        else if (role === "article" && standing < 1) childStanding = 1;
        if (role === "main" || ["main", "article", "section"].includes(element.tagName))
          childInSection = true;
      }
      // texi2html's navigation rows and footer line carry no class: the chunker tells them by their text.
      if (element.tagName === "table" || element.tagName === "p") {
        const own: string[] = [];
        hastText(element, own);
        if (isNavigationText(own.join("").replace(/\s+/g, " ").trim())) continue;
      }
      const separator = phrasing.has(element.tagName) ? "" : " ";
      stack.push({ text: separator, standing: childStanding });
      for (let i = element.children.length - 1; i >= 0; i--)
        stack.push({
          node: element.children[i] as HastNodes,
          standing: childStanding,
          inSection: childInSection,
        });
      stack.push({ text: separator, standing: childStanding });
    } else {
      for (let i = node.children.length - 1; i >= 0; i--)
        stack.push({ node: node.children[i] as HastNodes, standing, inSection });
    }
  }
  const best = buckets[2].join("").trim() !== "" ? 2 : buckets[1].join("").trim() !== "" ? 1 : 0;
  return buckets[best].join("");
}

/** Visible text of an HTML page (its main content, as memoria indexes a page), or of a fragment. */
export function htmlVisibleText(html: string, fragment = false): string {
  if (!fragment) return pageText(fromHtml(html));
  const out: string[] = [];
  hastText(fromHtml(html, { fragment }), out);
  return out.join("");
}

const inlineHiddenOpen = /^<(script|style)(?=[\s>])/i;

const badgeUrl = /badge|shields\.io/i;

/** Text as Obsidian shows wiki syntax in it: embeds gone, links as their shown text or target. */
function wikiRead(text: string): string {
  return text
    .replace(/!\[\[[^[\]\n]+\]\]/g, "")
    .replace(/\[\[([^[\]|\n]+)\|([^[\]\n]+)\]\]/g, "$2")
    .replace(/\[\[([^[\]\n]+)\]\]/g, "$1");
}

/** The markdown after its front matter: a leading `---` block that parses as a YAML mapping. */
function withoutFrontMatter(markdown: string): string {
  const block = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown);
  if (!block) return markdown;
  try {
    const data = parseYaml(block[1] ?? "");
    return typeof data === "object" && data !== null && !Array.isArray(data)
      ? markdown.slice(block[0].length)
      : markdown;
  } catch {
    return markdown;
  }
}

function isLinkedImage(children: readonly MdastNodes[]): boolean {
  return (
    children.some((child) => child.type === "image" || child.type === "imageReference") &&
    children.every(
      (child) =>
        child.type === "image" ||
        child.type === "imageReference" ||
        (child.type === "text" && child.value.trim() === ""),
    )
  );
}

/**
 * Visible text of a markdown document, as the reference parser reads it; badges (images inside links or
 * served by a badge service) excepted, which the chunker leaves out where they stand alone.
 */
export function markdownVisibleText(markdown: string): string {
  const tree = fromMarkdown(withoutFrontMatter(markdown), {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  const out: string[] = [];
  const stack: Array<MdastNodes | string> = [tree];
  // Inline HTML arrives tag by tag; text between an inline <script> and its </script> is not visible.
  let hiddenUntil: RegExp | null = null;
  while (stack.length > 0) {
    const node = stack.pop() as MdastNodes | string;
    if (typeof node === "string") {
      out.push(node);
      continue;
    }
    if (hiddenUntil) {
      if (node.type === "html" && hiddenUntil.test(node.value)) hiddenUntil = null;
      continue;
    }
    switch (node.type) {
      case "text":
        out.push(wikiRead(node.value));
        break;
      case "inlineCode":
        out.push(node.value);
        break;
      case "code":
        out.push(" ", node.value, " ");
        break;
      case "image":
      case "imageReference":
        // A badge's alt text ("Build Status") is no word of the document (src/ingest/badges.ts).
        if (!(node.type === "image" && badgeUrl.test(node.url))) out.push(node.alt ?? "");
        break;
      case "html": {
        const open = inlineHiddenOpen.exec(node.value);
        if (open && !new RegExp(`</${open[1]}`, "i").test(node.value)) {
          hiddenUntil = new RegExp(`</${open[1]}`, "i");
        } else {
          // A lone phrasing tag (<sup>, </b>) joins the text around it, as it does in the chunker.
          const lone = /^<\/?([A-Za-z][A-Za-z0-9-]*)[^<>]*>$/.exec(node.value.trim());
          const separator = lone && phrasing.has((lone[1] ?? "").toLowerCase()) ? "" : " ";
          // A lone tag holds no text, so it needs no HTML parser (a parse per tag made this test slow).
          out.push(separator, lone ? "" : htmlVisibleText(node.value, true), separator);
        }
        break;
      }
      case "break":
        out.push(" ");
        break;
      case "definition":
        break;
      default:
        // A link around images only is a badge (or a linked logo): none of its alt text is the document's.
        if ((node.type === "link" || node.type === "linkReference") && isLinkedImage(node.children)) break;
        if ("children" in node) {
          // Phrasing nodes join their neighbours' text; blocks (paragraphs, cells, items) separate it.
          const inline =
            node.type === "emphasis" ||
            node.type === "strong" ||
            node.type === "delete" ||
            node.type === "link" ||
            node.type === "linkReference";
          const separator = inline ? "" : " ";
          stack.push(separator);
          for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as MdastNodes);
          stack.push(separator);
        }
    }
  }
  return out.join("");
}

/** The visible words a set of passages is missing (empty when every word was kept). */
export function missingWords(visibleText: string, passages: readonly Passage[]): string[] {
  const kept = passageWords(passages);
  return [...new Set(foldWords(visibleText))].filter((word) => !kept.has(word));
}
