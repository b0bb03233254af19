// Front matter: the block of metadata that note tools write at the very top of a markdown file, YAML between
// `---` lines (Obsidian, Jekyll, Docusaurus, Hugo) or TOML between `+++` lines (Hugo). It is metadata, never
// a passage: its `title` names the document and its tags, aliases, keywords and categories are what the
// document is filed under; every other key (layout, date, draft, slug, …) stays out of the index.
//
// A block counts as front matter when its first line that is neither blank nor a comment is a key (`key:`,
// `key =`, `[table]`), or when it holds nothing else: found so without parsing, so the chunker never parses
// it. A note with a typo in its YAML still goes in, without its metadata, and the broken block is not shown
// as text (decision 0033). Prose between two thematic breaks is markdown; a block larger than any metadata
// a person writes is plain text.

import type { FrontMatterParsers } from "./front-matter-parsers.js";
import { cleanTitle } from "./title-text.js";

export interface FrontMatter {
  /** Offset in the content where the document's own text starts; 0 when it has no front matter. */
  end: number;
  /** The front matter's `title`, cleaned to a title's limits, or null. */
  title: string | null;
  /** Its tags, aliases, keywords and categories, in that order, each once. */
  tags: string[];
  /**
   * A delimited block too large to be metadata: it is the document's text, read as plain text (never as
   * markdown, which costs a 5 MiB block ~7× its plain reading); `end` is where it closes. Else null.
   */
  text: string | null;
}

/**
 * Largest block read as front matter, in UTF-16 units (what a string's slice counts). Real front matter is
 * a few hundred bytes (the vault fixtures: 30–300 B; Docusaurus' own docs' largest ~1.5 KB); 16 KiB leaves
 * ten times that. Measured here (a shared 2-core machine, medians): a 16 KiB YAML mapping parses in 0.11×
 * the time of chunking a 5 MiB plain-text document, 64 KiB in 0.32× (1.43× with the yaml package's
 * duplicate-key check, which is quadratic and off below). A larger block is the document's text, read as
 * plain text.
 */
export const MAX_FRONT_MATTER_CHARS = 16 * 1024;

/** Tags listed at most, and the longest kept: a tag is a word or two; a page of them files nothing. */
export const MAX_TAGS = 64;
export const MAX_TAG_CHARS = 128;

/** The keys whose values a document is filed under, listed as its `tags`. */
const tagKeys = ["tags", "aliases", "keywords", "categories"] as const;

const yamlOpen = /^---[ \t]*\r?\n/;
const tomlOpen = /^\+\+\+[ \t]*\r?\n/;
// A key at the start of a line: what a broken block's first line still shows if it was meant as metadata.
const yamlKeyLine = /^[ \t]*["']?[\p{L}\p{N}_-][^:\n]*["']?:(?:[ \t]|$)/u;
const tomlKeyLine = /^[ \t]*(?:\[[^\]\n]+\]|["']?[\p{L}\p{N}_.-]+["']?[ \t]*=)/u;

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The first line of a block that is neither blank nor a comment. */
function firstContentLine(block: string): string {
  for (const line of block.split("\n", 64)) {
    const trimmed = line.trim();
    if (trimmed !== "" && !trimmed.startsWith("#")) return line;
  }
  return "";
}

/** A scalar as text: strings, numbers, booleans; null for anything else. */
function scalarText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return null;
}

/**
 * One key's values as tags. A list gives its items (Docusaurus' `{label: …}` objects give their label); a
 * string is split on commas, and tags and categories also on white space, as Jekyll splits them
 * (`categories: jekyll update`), while a string alias or keyword is one name ("Nightly backups"). A
 * leading `#` (Obsidian's inline form) is dropped.
 */
function tagValues(value: unknown, splitOnSpaces: boolean): string[] {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const item of items) {
    const text = isTable(item) ? scalarText(item.label ?? item.name) : scalarText(item);
    if (text === null) continue;
    const parts = Array.isArray(value)
      ? [text]
      : text.includes(",")
        ? text.split(",")
        : splitOnSpaces
          ? text.split(/\s+/)
          : [text];
    for (const part of parts) {
      const tag = part.replace(/\s+/g, " ").trim().replace(/^#+/, "");
      if (tag !== "") out.push([...tag].slice(0, MAX_TAG_CHARS).join(""));
    }
  }
  return out;
}

function metadataOf(data: Record<string, unknown>): { title: string | null; tags: string[] } {
  const titleText = scalarText(data.title);
  const title = titleText === null ? "" : cleanTitle(titleText);
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const key of tagKeys) {
    for (const tag of tagValues(data[key], key === "tags" || key === "categories")) {
      const folded = tag.toLowerCase();
      if (seen.has(folded) || tags.length >= MAX_TAGS) continue;
      seen.add(folded);
      tags.push(tag);
    }
  }
  return { title: title === "" ? null : title, tags };
}

/** The parsed block's keys, or null when it does not parse (or parses to something that is no table). */
function parseBlock(
  block: string,
  syntax: "yaml" | "toml",
  parsers: FrontMatterParsers,
): Record<string, unknown> | null {
  try {
    const data = syntax === "yaml" ? parsers.yaml(block) : parsers.toml(block);
    if (data === null || data === undefined) return {};
    return isTable(data) ? data : null;
  } catch {
    // A syntax error, an alias bomb refused, or a structure deep enough to exhaust the parser's stack.
    return null;
  }
}

/** Where front matter is, found without parsing it: what the chunker needs to skip it. */
export interface FrontMatterBlock {
  /** Offset where the document's own text starts; 0 when it has no front matter. */
  end: number;
  /** The block's source, when it is front matter to read; null otherwise. */
  source: string | null;
  syntax: "yaml" | "toml";
  /** A delimited block too large to be metadata, as FrontMatter.text. */
  text: string | null;
}

const noBlock: FrontMatterBlock = { end: 0, source: null, syntax: "yaml", text: null };

/**
 * Finds the front matter at the start of `content` (after a byte-order mark, if any) in one forward scan:
 * a delimited block whose first line that is neither blank nor a comment is a key (or that has none).
 */
export function frontMatterBlock(content: string): FrontMatterBlock {
  const offset = content.charCodeAt(0) === 0xfeff ? 1 : 0;
  const head = content.slice(offset, offset + 8);
  const open = yamlOpen.exec(head) ?? tomlOpen.exec(head);
  if (!open) return noBlock;
  const syntax = open[0].startsWith("-") ? "yaml" : "toml";
  const start = offset + open[0].length;
  const closing =
    syntax === "yaml" ? /\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/g : /\r?\n\+\+\+[ \t]*(?:\r?\n|$)/g;
  closing.lastIndex = start - 1;
  // An unterminated block costs this one pass over the content, nothing more.
  const close = closing.exec(content);
  if (!close) return noBlock;
  const end = close.index + close[0].length;
  if (close.index - start > MAX_FRONT_MATTER_CHARS)
    return { end, source: null, syntax, text: content.slice(start, close.index) };
  const source = content.slice(start, Math.max(start, close.index)).replace(/\r\n?/g, "\n");
  const first = firstContentLine(source);
  if (first !== "" && !(syntax === "yaml" ? yamlKeyLine : tomlKeyLine).test(first)) return noBlock;
  return { end, source, syntax, text: null };
}

/**
 * Reads the front matter at the start of `content` with `parsers` (front-matter-parsers.ts): where the
 * document's text starts, and the title and tags it gives (none when it does not parse). No front matter:
 * `end` 0, no title, no tags.
 */
export function readFrontMatter(content: string, parsers: FrontMatterParsers): FrontMatter {
  const block = frontMatterBlock(content);
  if (block.source === null) return { end: block.end, title: null, tags: [], text: block.text };
  const data = parseBlock(block.source, block.syntax, parsers);
  if (data === null) return { end: block.end, title: null, tags: [], text: null };
  return { end: block.end, ...metadataOf(data), text: null };
}
