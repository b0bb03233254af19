// A document's title, in the order docs/ingest/markdown.md documents: the request's title, else the front
// matter's `title`, else the first real heading, else the file name. A first heading that names only a kind of page
// ("Changelog", "Installation", "6.17.1") is joined with what it belongs to: the file's own name when that
// says more, else the folder it sits in (a package, for a README or CHANGELOG), else the folder an import
// was run on — "Changelog — promise-limit". A bare file name that says nothing ("README") is joined alike.

import { type DocumentFormat, stem } from "./formats.js";
import { readFrontMatter } from "./front-matter.js";
import type { FrontMatterParsers } from "./front-matter-parsers.js";
import { headingTitle } from "./title.js";
import { cleanTitle } from "./title-text.js";

/** Where a document sits, as far as the caller knows: each part names what a generic title belongs to. */
export interface TitleContext {
  /** The file's name, with its extension ("CHANGELOG.md"). */
  fileName?: string;
  /** The folders between an import's root and the file, or the document's `path`. */
  path?: readonly string[];
  /** The name of the folder an import was run on (for a file at its root). */
  folder?: string;
}

// Headings that name a kind of page, not the page, compared lower-cased without punctuation. The
// translations are the ones the READMEs in node_modules use for "Installation" (Biome's, in nine languages).
const genericHeadings = new Set([
  "changelog",
  "change log",
  "changes",
  "history",
  "release notes",
  "releases",
  "news",
  "installation",
  "install",
  "introduction",
  "intro",
  "overview",
  "readme",
  "index",
  "home",
  "usage",
  "getting started",
  "quick start",
  "instalación",
  "instalação",
  "instalacja",
  "установка",
  "встановлення",
  "安装",
  "安裝",
  "インストール",
  "설치",
  "स्थापना",
]);

// A bare version ("6.17.1", "v2.0.0", "[1.2.0] - 2024-01-05"), as a changelog's first heading often is.
const versionHeading =
  /^\[?v?\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z.]+)?\]?(?:\s*(?:[-–—/(]\s*)?\d{4}-\d{2}-\d{2}\)?)?$/i;

// File names of a changelog, and the word a version heading stands for in them.
const changelogNames: Record<string, string> = {
  changelog: "Changelog",
  "change-log": "Changelog",
  changes: "Changes",
  history: "History",
  news: "News",
  "release-notes": "Release notes",
  releases: "Releases",
};

/** The words of a title as compared with the generic list: lower case, no punctuation or symbols. */
function comparable(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} ]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Whether a title names only a kind of page: a generic heading or a bare version number. */
export function isGenericTitle(title: string): boolean {
  const trimmed = title.replace(/[*_`]/g, "").trim();
  return genericHeadings.has(comparable(trimmed)) || versionHeading.test(trimmed);
}

/** A file name's stem as a kind of page ("README.ja" → "readme", "_index" → "index"), lower case. */
function kindOfName(name: string): string {
  const base = stem(name.slice(name.lastIndexOf("/") + 1));
  const first = base.split(".")[0] ?? base;
  return first.replace(/^_+/, "").toLowerCase();
}

/** What a generic title belongs to: the file's own name, else its folder (npm scope kept), else the root's. */
function ownerOf(context: TitleContext): string {
  const fileName = context.fileName ?? "";
  if (fileName !== "") {
    const own = stem(fileName.slice(fileName.lastIndexOf("/") + 1));
    if (
      !isGenericTitle(own) &&
      !genericHeadings.has(kindOfName(fileName)) &&
      !changelogNames[kindOfName(fileName)]
    )
      return own;
  }
  const path = context.path ?? [];
  const folder = path.at(-1);
  if (folder !== undefined && folder.trim() !== "") {
    const scope = path.at(-2);
    return scope?.startsWith("@") ? `${scope}/${folder}` : folder;
  }
  return context.folder ?? "";
}

/** A generic title joined with what it belongs to; any other title as it is. */
export function withOwner(title: string, context: TitleContext): string {
  if (!isGenericTitle(title)) return title;
  const kind = changelogNames[kindOfName(context.fileName ?? "")];
  // In a changelog, a first heading that is a version stands for the changelog itself.
  const named = kind !== undefined && versionHeading.test(title.replace(/[*_`]/g, "").trim()) ? kind : title;
  const owner = cleanTitle(ownerOf(context));
  if (owner === "" || comparable(named).includes(comparable(owner))) return named;
  return cleanTitle(`${named} — ${owner}`);
}

/**
 * The first real heading's title, joined with its owner when generic; "" when there is none. Markdown only
 * is joined: an HTML page's title is its site's (the main content's <h1>, <title> without the site's
 * suffix), which the HTML reader decides.
 */
export function headingTitleIn(content: string, format: DocumentFormat, context: TitleContext = {}): string {
  const heading = headingTitle(content, format);
  return heading === "" || format !== "markdown" ? heading : withOwner(heading, context);
}

/**
 * The title the content gives a document: its front matter's `title`, else its first real heading (joined
 * with its owner when generic); "" when it gives none.
 */
export function contentTitle(
  content: string,
  format: DocumentFormat,
  parsers: FrontMatterParsers,
  context: TitleContext = {},
): string {
  const front = format === "markdown" ? readFrontMatter(content, parsers).title : null;
  return front ?? headingTitleIn(content, format, context);
}

/** A file's name without its extension as a title, joined with its owner when it says nothing. */
export function fileNameTitle(fileName: string, context: TitleContext = {}): string {
  const name = cleanTitle(stem(fileName)) || cleanTitle(fileName);
  return name === "" ? "Untitled" : withOwner(name, { ...context, fileName });
}

/**
 * The title of a file (`memoria import`, an upload): what its content gives it, else its name without the
 * extension, joined with its owner when that says nothing.
 */
export function titleOf(
  content: string,
  format: DocumentFormat,
  fileName: string,
  parsers: FrontMatterParsers,
  context: Omit<TitleContext, "fileName"> = {},
): string {
  const where = { ...context, fileName };
  return contentTitle(content, format, parsers, where) || fileNameTitle(fileName, where);
}
