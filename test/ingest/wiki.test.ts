// Wiki syntax (Obsidian and friends) read as the tools show it: links as their text, embeds dropped,
// callouts as a paragraph starting with their title; code left as written. Over every passage of the vault.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";

const vault = join(import.meta.dirname, "../fixtures/vault");
const textOf = (content: string) =>
  chunkDocument({ title: "T", content, format: "markdown" })
    .map((p) => [p.heading, p.text].filter((part) => part !== "").join("\n"))
    .join("\n\n");

function vaultFiles(dir = vault): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? vaultFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** What the vault's code spans and blocks hold, which must stay exactly as written. */
const codeAsWritten = ["[[keep this]]", "[[brackets]]", "[!note]", "[[not a link]]"];

describe("wiki links and embeds", () => {
  it.each([
    ["[[Target]]", "Target"],
    ["see [[Runbooks/Failover|the failover runbook]] now", "see the failover runbook now"],
    ["[[Note#Heading]]", "Note › Heading"],
    ["[[#Local heading]]", "Local heading"],
    ["[[Note#^block-id]]", "Note"],
    ["[[Target|]]", "Target"],
    ["before ![[diagram.png]] after", "before  after"],
    ["![[whiteboard.jpg|400]]x", "x"],
    ["| a | [[T\\|shown]] |\n| - | - |\n| b | c |", "a | shown\nb | c"],
    ["# Heading with [[Link|a link]]", "Heading with a link"],
  ])("%j reads as %j", (source, text) => {
    expect(textOf(source)).toBe(text);
  });

  it.each([
    ["[[]] stays", "[[]] stays"],
    ["[[never closed", "[[never closed"],
    ["[[a\nb]]", "[[a\nb]]"],
    ["[[outer [inner]]]", "[[outer [inner]]]"],
    ["\\[[escaped]]", "[[escaped]]"],
  ])("%j is not a link: %j", (source, text) => {
    expect(textOf(source)).toBe(text);
  });

  it("reads [[x]](url) as the markdown link it is, with its brackets as text", () => {
    expect(textOf("[[docs]](https://example.com)")).toBe("[docs]");
  });

  it("leaves code spans and code blocks as written", () => {
    expect(textOf("`[[Keep]]` and `![[keep.png]]`")).toBe("[[Keep]] and ![[keep.png]]");
    expect(textOf("```\n[[a|b]]\n> [!note] x\n```")).toBe("[[a|b]]\n> [!note] x");
    expect(textOf("    ![[indented.png]]")).toBe("![[indented.png]]");
  });

  it("stays linear on bracket soup", () => {
    const soup = `${"[[a".repeat(50_000)} ${"![[".repeat(50_000)} ${"[[x|".repeat(30_000)}tail`;
    expect(textOf(soup)).toContain("tail");
  });
});

describe("callouts", () => {
  it.each([
    ["> [!warning] Freeze\n> No deploys on Friday.", "Freeze\nNo deploys on Friday."],
    ["> [!tip]- Folded title\n> body", "Folded title\nbody"],
    ["> [!note]\n> Untitled callout.", "Note\nUntitled callout."],
    ["> [!IMPORTANT]\n> GitHub's alert.", "Important\nGitHub's alert."],
    ["> [!my-type]", "My type"],
    ["> > [!example] Nested\n> > inner", "Nested\ninner"],
  ])("%j reads as %j", (source, text) => {
    expect(textOf(source)).toBe(text);
  });

  it("is only a marker at a quote's start: elsewhere the brackets are text", () => {
    expect(textOf("A [!note] in prose.")).toBe("A [!note] in prose.");
    expect(textOf("> quoted\n> [!note] later line")).toBe("quoted\n[!note] later line");
  });
});

describe("the vault", () => {
  it("has no wiki or front matter syntax in any passage, only code as written", () => {
    const files = vaultFiles();
    expect(files.length).toBeGreaterThanOrEqual(12);
    for (const file of files) {
      let text = textOf(readFileSync(file, "utf8"));
      for (const code of codeAsWritten) text = text.split(code).join("");
      const where = relative(vault, file);
      expect(text, where).not.toMatch(/\[\[|\]\]|\[![A-Za-z]/);
      expect(text, where).not.toMatch(/^(?:---|\+\+\+)$/m);
      expect(text, where).not.toMatch(/^(?:title|tags|aliases|keywords|categories)\s*[:=]/m);
    }
  });

  it("keeps the words a reader sees: link text, callout titles and bodies", () => {
    const failover = textOf(readFileSync(join(vault, "obsidian/Runbooks/Failover.md"), "utf8"));
    for (const words of [
      "Freeze\nNo schema changes while the quokka cluster fails over.",
      "point the API at it. See Runbooks/Backups\nand Incidents/2024-03-01 › Timeline, and the steps in Checklist.",
      "The old primary rejoins as a replica once rebuilt.",
    ])
      expect(failover).toContain(words);
    expect(failover).not.toContain("failover-diagram");
    const backups = textOf(readFileSync(join(vault, "obsidian/Runbooks/Backups.md"), "utf8"));
    expect(backups).toContain("How long does a restore take?\nAbout forty minutes for the narwhal database.");
    expect(backups).toContain("Nested\nA nested callout keeps its words too.");
  });
});
