// The title a person would give a document, from its content: the first heading that says something
// (markdown or HTML, <h1>–<h6> included, also inside markdown's HTML blocks), skipping headings made only
// of images, badges or links ("[Read the docs →](…)", "[![npm](…badge.svg)](…)") and tables of contents.
// A README that opens with a logo and then prose before any such heading is named by the logo's alt text
// ("Hono", "Express"), as a person names it after its project. Titles are 1–512 characters and never blank
// (docs/api.md "Documents"), so the text is collapsed to one line and cut to fit.

import { withoutBadges } from "./badges.js";
import { decodeEntities } from "./entities.js";
import type { DocumentFormat } from "./formats.js";
import { renderHtml } from "./html.js";
import { renderInline } from "./inline.js";
import { renderMarkdown } from "./markdown.js";
import { type Outline, TextOutline } from "./outline.js";
import { withoutSiteSuffix } from "./site-suffix.js";
import { cleanTitle, MAX_TITLE_CHARS } from "./title-text.js";

export { cleanTitle, MAX_TITLE_CHARS };

/**
 * Only the start of a document is read for its title: a heading past the first 256 KB names no document,
 * and reading all of a 5 MiB upload for a title would double its chunking time.
 */
const titleWindow = 256 * 1024;

// Headings that name a part of the page, not the page.
const navigationHeading = /^(?:table of contents|contents|toc|on this page|in this article|index)$/;
// What a logo's alt text adds to the project's name.
const logoWords = /[\s-]*\b(?:logo|logotype|banner|wordmark|icon)\b[\s-]*/gi;

// Markup that carries no words of its own: images, links, tags, references, comments.
const markdownImage = /!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]/g;
const markdownLink = /\[[^\]]*\]\([^)]*\)|\[[^\]]*\]\[[^\]]*\]/g;
const htmlLink = /<a\b[^>]*>[\s\S]*?<\/a\s*>/gi;
const htmlComment = /<!--[\s\S]*?-->/g;
const anyTag = /<[^>]*>/g;
const reference = /&(?:#[xX]?[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g;
const wordCharacter = /[\p{L}\p{N}]/u;
const htmlImage = /<img\b[^>]*>/gi;
const htmlImageAlt = /<img\b[^>]*?\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;
const markdownImageAlt = /!\[([^\]]*)\]/;

/**
 * Longest markup read as possible decoration. A row of badges or a logo header is a few KB (zod's 1.1 KB,
 * hono's 1.5 KB); anything longer is prose, and the bound keeps the patterns below from rescanning a page.
 */
const maxDecorationChars = 8192;

/** Whether markup holds no word outside its images, links and tags (a row of badges, a nav bar, a logo). */
function isDecoration(source: string): boolean {
  if (source.length > maxDecorationChars) return false;
  // Markup with no image, link or tag is text, even text without words (a heading of emoji).
  if (!/[[<]/.test(source)) return false;
  const own = source
    .replace(htmlComment, "")
    .replace(markdownImage, "")
    .replace(markdownLink, "")
    .replace(htmlLink, "")
    .replace(anyTag, "")
    .replace(reference, "");
  return !wordCharacter.test(own);
}

/**
 * A name is a few words; an alt text longer than this describes the picture ("Shows the banner of Biome,
 * with its logo and…") and names nothing.
 */
const maxLogoNameChars = 60;

function logoName(source: string): string {
  const html = htmlImageAlt.exec(source);
  const alt = html ? (html[1] ?? html[2] ?? html[3] ?? "") : (markdownImageAlt.exec(source)?.[1] ?? "");
  const name = cleanTitle(decodeEntities(alt).replace(logoWords, " "));
  return [...name].length <= maxLogoNameChars ? name : "";
}

class TitleOutline implements Outline {
  title = "";
  private logo = "";
  private proseSeen = false;

  constructor(private readonly format: DocumentFormat) {}

  heading(_depth: number, text: string, source?: string): void {
    if (this.title !== "") return;
    const markup = source ?? text;
    if (isDecoration(markup)) {
      // A heading that is only a logo (fast-check's <h1><img alt="fast-check logo"></h1>) names the page.
      if (!this.proseSeen && this.logo === "") this.logo = logoName(markup);
      return;
    }
    const title = cleanTitle(this.headingText(markup, text));
    if (
      title === "" ||
      navigationHeading.test(
        title
          .toLowerCase()
          .replace(/[^\p{L}\p{N} ]/gu, "")
          .trim(),
      )
    )
      return;
    // A logo followed by prose has already named the document; a later heading names a section of it.
    this.title = this.proseSeen && this.logo !== "" ? this.logo : title;
  }

  badges(source: string): void {
    // A linked logo in HTML (<a href="…"><img alt="Express Logo"></a>) names the project; a markdown row of
    // badges ("npm", "build") names nothing.
    if (this.title === "" && !this.proseSeen && this.logo === "" && source.trimStart().startsWith("<"))
      this.logo = logoName(source);
  }

  block(text: string, source?: string): void {
    if (this.title !== "" || text.trim() === "") return;
    if (source !== undefined && isDecoration(source)) {
      if (!this.proseSeen && this.logo === "" && source.trimStart().startsWith("<"))
        this.logo = logoName(source);
      return;
    }
    this.proseSeen = true;
    if (this.logo !== "") this.title = this.logo;
  }

  /** The heading's words without its badges (a badge's alt text is no part of a name). */
  private headingText(markup: string, text: string): string {
    let cleaned = withoutBadges(markup);
    // In an HTML heading with words, an image is an icon beside the name (<h1><img alt="… logo"> Name</h1>).
    const imageless = cleaned.replace(htmlImage, "");
    if (imageless !== cleaned && !isDecoration(imageless)) cleaned = imageless;
    if (cleaned === markup) return text;
    if (this.format === "html" || cleaned.trimStart().startsWith("<")) {
      const outline = new TextOutline();
      renderHtml(cleaned, outline);
      return outline.lines.join(" ");
    }
    return renderInline(cleaned, () => new Set());
  }
}

function htmlTitleElement(content: string): string {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(content.replace(htmlComment, ""));
  return match ? cleanTitle(decodeEntities(match[1] ?? "")) : "";
}

/**
 * An HTML page's title, read off its main content (src/ingest/html.ts): the first <h1> there, else the
 * <title> without the site's name, else the first heading. A site's <h1> outside the main content (mdBook's
 * book name, Django's site name) names the site, and a sidebar's headings come before the page's own.
 */
function htmlPageTitle(window: string): string {
  const firstHeading = new TitleOutline("html");
  let firstH1 = "";
  const both: Outline = {
    heading: (depth, text, source) => {
      firstHeading.heading(depth, text, source);
      // An <h1> of words names the page even when they are a link (texi2html links each chapter's <h1> to
      // the table of contents); one of images only (a logo) does not.
      if (depth !== 1 || firstH1 !== "") return;
      const title = cleanTitle(text);
      if (title !== "" && wordCharacter.test(htmlText((source ?? "").replace(htmlImage, ""))))
        firstH1 = title;
    },
    block: (text, source) => firstHeading.block(text, source),
  };
  renderHtml(window, both, { page: true });
  return firstH1 || cleanTitle(withoutSiteSuffix(htmlTitleElement(window))) || firstHeading.title;
}

function htmlText(html: string): string {
  const outline = new TextOutline();
  renderHtml(html, outline);
  return outline.lines.join(" ");
}

/** The title a document's own content gives it (its first meaningful heading, or logo), or "" if none. */
export function headingTitle(content: string, format: DocumentFormat): string {
  if (format === "text") return "";
  const window = content.slice(0, titleWindow).replace(/\r\n?/g, "\n");
  if (format === "html") return htmlPageTitle(window);
  const outline = new TitleOutline(format);
  // Markdown, and the markdown a PDF's or DOCX's text is stored as; front matter is skipped by the reader.
  renderMarkdown(window, outline, true);
  return outline.title;
}
