// Notion blocks as markdown: what the chunker needs to see a page's structure (headings, lists, quotes,
// code) and every word of it.

import type { Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { type BlockNode, renderBlocks } from "../../src/sources/notion/markdown.js";
import { richText } from "../support/notion-double.js";

let n = 0;
function block(type: string, payload: Record<string, unknown>, children: BlockNode[] = []): BlockNode {
  n++;
  return {
    block: { object: "block", id: `b${n}`, type, has_children: children.length > 0, [type]: payload },
    children,
  };
}
const text = (type: string, words: string, children: BlockNode[] = []) =>
  block(type, { rich_text: [richText(words)] }, children);

describe("renderBlocks", () => {
  it("turns headings into #, ## and ### and keeps paragraphs apart", () => {
    const md = renderBlocks([
      text("heading_1", "Onboarding"),
      text("paragraph", "Welcome aboard."),
      text("heading_2", "Laptops"),
      text("paragraph", "Ask the desk."),
      text("heading_3", "Returns"),
    ]);
    expect(md).toBe("# Onboarding\n\nWelcome aboard.\n\n## Laptops\n\nAsk the desk.\n\n### Returns");
  });

  it("joins the parts of rich text into the words a reader sees", () => {
    const md = renderBlocks([
      block("paragraph", { rich_text: [richText("Ask the "), richText("platypus"), richText(" desk.")] }),
    ]);
    expect(md).toBe("Ask the platypus desk.");
  });

  it("renders bullets, numbered items (numbered in order) and to-dos, with children indented", () => {
    const md = renderBlocks([
      text("bulleted_list_item", "Coffee", [text("bulleted_list_item", "Beans")]),
      text("numbered_list_item", "First"),
      text("numbered_list_item", "Second"),
      block("to_do", { rich_text: [richText("Sign contract")], checked: true }),
      block("to_do", { rich_text: [richText("Get badge")], checked: false }),
    ]);
    expect(md).toBe(
      "- Coffee\n\n  - Beans\n\n1. First\n\n2. Second\n\n- [x] Sign contract\n\n- [ ] Get badge",
    );
  });

  it("renders a toggle as its text with its children under it", () => {
    const md = renderBlocks([text("toggle", "Details", [text("paragraph", "Hidden wombat notes.")])]);
    expect(md).toBe("- Details\n\n  Hidden wombat notes.");
  });

  it("renders quotes and callouts as block quotes, children included", () => {
    const md = renderBlocks([
      text("quote", "Measure twice.", [text("paragraph", "Cut once.")]),
      text("callout", "Heads up"),
    ]);
    expect(md).toBe("> Measure twice.\n>\n> Cut once.\n\n> Heads up");
  });

  it("fences code with its language, longer than any backticks inside", () => {
    const md = renderBlocks([
      block("code", { rich_text: [richText("npm ci\nnpm test")], language: "shell" }),
      block("code", { rich_text: [richText("a ``` b")], language: "plain text" }),
    ]);
    expect(md).toBe("```shell\nnpm ci\nnpm test\n```\n\n````\na ``` b\n````");
  });

  it("renders dividers, a child page by its title, and a table with its header", () => {
    const row = (...cells: string[]) => block("table_row", { cells: cells.map((c) => [richText(c)]) });
    const md = renderBlocks([
      block("divider", {}),
      block("child_page", { title: "Benefits" }),
      block("table", { table_width: 2, has_column_header: true }, [row("Name", "Desk"), row("Ada", "4|B")]),
    ]);
    expect(md).toBe("---\n\nBenefits\n\n| Name | Desk |\n| --- | --- |\n| Ada | 4\\|B |");
  });

  it("keeps every word of nested blocks and leaves out blocks with none", () => {
    const md = renderBlocks([
      block("column_list", {}, [
        block("column", {}, [text("paragraph", "Left quokka")]),
        block("column", {}, [text("paragraph", "Right numbat")]),
      ]),
      block("table_of_contents", {}),
      text("paragraph", ""),
      block("image", { caption: [richText("Team photo")] }),
    ]);
    expect(md).toBe("Left quokka\n\nRight numbat\n\nTeam photo");
  });

  it("gives the chunker the headings: passages carry their heading trail", () => {
    const md = renderBlocks([
      text("heading_1", "Handbook"),
      text("heading_2", "Laptops"),
      text("paragraph", "Ask the platypus desk."),
    ]);
    const passages = chunkDocument({ title: "Guide", content: md, format: "markdown" });
    expect(passages.find((p) => p.text.includes("platypus"))?.heading).toBe("Handbook › Laptops");
  });

  it("leaves out an empty quote, callout, bullet, numbered item, to-do, toggle and code block: no bare markers", () => {
    const md = renderBlocks([
      text("paragraph", "Before."),
      text("quote", ""),
      text("callout", "  "),
      text("bulleted_list_item", ""),
      text("numbered_list_item", ""),
      block("to_do", { rich_text: [richText("")], checked: false }),
      text("toggle", ""),
      block("code", { rich_text: [richText("")], language: "shell" }),
      text("paragraph", "After."),
    ]);
    expect(md).toBe("Before.\n\nAfter.");
  });

  it("keeps an empty bullet's children, under the bullet", () => {
    const md = renderBlocks([text("bulleted_list_item", "", [text("paragraph", "Nested dormouse.")])]);
    expect(md).toBe("- \n\n  Nested dormouse.");
  });

  it("escapes a leading markdown marker typed in a paragraph, so it stays a paragraph of those words", () => {
    const typed = ["# not a heading", "- not a bullet", "> not a quote", "1. not a list", "---", "<div>"];
    const md = renderBlocks(typed.map((words) => text("paragraph", words)));
    expect(md).toBe(
      "\\# not a heading\n\n\\- not a bullet\n\n\\> not a quote\n\n1\\. not a list\n\n\\---\n\n\\<div>",
    );
    const tree: Root = fromMarkdown(md, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    expect(tree.children.map((node) => node.type)).toEqual(typed.map(() => "paragraph"));
    // Read back, the words are what was typed.
    const words = tree.children.map((node) =>
      node.type === "paragraph" ? node.children.map((c) => ("value" in c ? c.value : "")).join("") : "",
    );
    expect(words).toEqual(typed);
  });

  it("escapes markers at the start of every line of a paragraph, and in list items and quotes", () => {
    const md = renderBlocks([
      text("paragraph", "Agenda\n# one\n-"),
      text("bulleted_list_item", "- dash"),
      text("quote", "> nested?"),
    ]);
    expect(md).toBe("Agenda\n\\# one\n\\-\n\n- \\- dash\n\n> \\> nested?");
    const tree = fromMarkdown(md);
    expect(tree.children.map((node) => node.type)).toEqual(["paragraph", "list", "blockquote"]);
  });

  it("leaves words that only look like markers alone (#tag, -5, 2025.)", () => {
    const md = renderBlocks([text("paragraph", "#tag -5 degrees"), text("paragraph", "2025.03 release")]);
    expect(md).toBe("#tag -5 degrees\n\n2025.03 release");
  });

  it("does not hand the chunker a heading that was only a paragraph starting with '# '", () => {
    const md = renderBlocks([text("heading_1", "Handbook"), text("paragraph", "# Secret vole plans")]);
    const passages = chunkDocument({ title: "Guide", content: md, format: "markdown" });
    expect(passages.find((p) => p.text.includes("vole"))?.heading).toBe("Handbook");
  });
});
