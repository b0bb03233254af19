// HTML's tokens as the streaming reader (html.ts) takes them: runs of text, start tags, end tags and the
// content of raw-text elements, found by scanning the input once. Comments, declarations and the raw text a
// reader never sees are passed over here; nothing is kept between tokens, so no tree is built.

/** What the scan reports, in document order. */
export interface HtmlTokens {
  /** A run of text between tags, its entities not yet decoded. */
  text(raw: string): void;
  /** A start tag: its lowercased name, its markup, where it begins and where the content after it begins. */
  startTag(name: string, tag: string, at: number, contentFrom: number): void;
  /** An end tag with a name, lowercased, and where it begins. */
  endTag(name: string, at: number): void;
  /**
   * An element whose content is raw text shown as written (textarea, xmp, plaintext), with that content. A
   * plaintext element has no end: its content is the rest of the input, and the scan ends with it.
   */
  rawText(name: string, content: string): void;
}

/** Elements whose content is raw text a reader never sees. */
const droppedRawText: ReadonlySet<string> = new Set([
  "script",
  "style",
  "title",
  "iframe",
  "noembed",
  "noframes",
]);
/** Elements whose content is raw text shown as written. */
const keptRawText: ReadonlySet<string> = new Set(["textarea", "xmp"]);

const altAttribute = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;

/** An image tag's alt text, or undefined when it has none. */
export function altText(tag: string): string | undefined {
  const alt = altAttribute.exec(tag);
  return alt?.[1] ?? alt?.[2] ?? alt?.[3];
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Where the tag name that starts with the letter at `from` ends: at white space, "/", ">" or the end. A
 * scan, not a sticky regex: a page has a tag every few dozen characters, and each exec allocated a match.
 */
function tagNameEnd(html: string, from: number): number {
  let i = from + 1;
  for (; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (c === 32 || c === 62 || c === 47 || c === 9 || c === 10 || c === 12 || c === 13) break;
  }
  return i;
}

const rawTextEnds = new Map<string, RegExp>();
function rawTextEnd(name: string): RegExp {
  let pattern = rawTextEnds.get(name);
  if (!pattern) {
    pattern = new RegExp(`</${name}[\\t\\n\\f\\r />]`, "gi");
    rawTextEnds.set(name, pattern);
  }
  return pattern;
}

/** Scans `html` once and reports its tokens to `tokens`. */
export function scanHtml(html: string, tokens: HtmlTokens): void {
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    const textEnd = lt === -1 ? n : lt;
    if (textEnd > i) tokens.text(html.slice(i, textEnd));
    if (lt === -1) break;
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith("<!--", lt)) {
      // <!--> and <!---> are complete (empty) comments; an unclosed one runs to the end, as in browsers.
      if (html.startsWith("<!-->", lt)) i = lt + 5;
      else if (html.startsWith("<!--->", lt)) i = lt + 6;
      else {
        const close = html.indexOf("-->", lt + 4);
        i = close === -1 ? n : close + 3;
      }
    } else if (next === 33 || next === 63) {
      // <!doctype …>, <![CDATA[…]]>, <?…>: declarations and bogus comments, up to the next ">".
      const close = html.indexOf(">", lt + 2);
      i = close === -1 ? n : close + 1;
    } else if (next === 47) {
      const named = isAsciiLetter(html.charCodeAt(lt + 2));
      const name = named ? html.slice(lt + 2, tagNameEnd(html, lt + 2)).toLowerCase() : "";
      const close = html.indexOf(">", lt + 2);
      i = close === -1 ? n : close + 1;
      if (named) tokens.endTag(name, lt);
    } else if (isAsciiLetter(next)) {
      const nameEnd = tagNameEnd(html, lt + 1);
      const name = html.slice(lt + 1, nameEnd).toLowerCase();
      const close = tagEnd(html, nameEnd);
      // A tag cut off by the end of the input is dropped with the rest, as browsers do.
      if (close === -1) break;
      i = close + 1;
      if (droppedRawText.has(name) || keptRawText.has(name)) {
        const endPattern = rawTextEnd(name);
        endPattern.lastIndex = i;
        const found = endPattern.exec(html);
        const contentEnd = found ? found.index : n;
        if (keptRawText.has(name)) tokens.rawText(name, html.slice(i, contentEnd));
        const gt = found ? html.indexOf(">", found.index) : -1;
        i = gt === -1 ? n : gt + 1;
      } else if (name === "plaintext") {
        tokens.rawText(name, html.slice(i));
        break;
      } else {
        tokens.startTag(name, html.slice(lt, close + 1), lt, i);
      }
    } else {
      tokens.text("<");
      i = lt + 1;
    }
  }
}

/**
 * The index of the ">" that ends a start tag whose attributes begin at `from`, or -1. A quote opens an
 * attribute value only right after "=", so a stray apostrophe in an unquoted value does not swallow the page.
 */
function tagEnd(html: string, from: number): number {
  let quote = 0;
  let lastSignificant = 0;
  for (let i = from; i < html.length; i++) {
    const c = html.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) {
        quote = 0;
        lastSignificant = c;
      }
      continue;
    }
    if (c === 62) return i;
    if ((c === 34 || c === 39) && lastSignificant === 61) {
      quote = c;
      continue;
    }
    if (c !== 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13) lastSignificant = c;
  }
  return -1;
}
