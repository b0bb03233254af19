// Markdown inline syntax to the plain text a reader sees, in one forward pass: emphasis and strikethrough
// marks, link and image brackets with their destinations, code-span backticks, escapes, character
// references, inline HTML and wiki links' brackets (src/ingest/wiki.ts) are removed; the words stay. No recursion and no rescanning: every search
// either moves forward for good or is bounded, so link or backtick soup costs linear time.

import { decodeEntities, decodeReference } from "./entities.js";
import { tagSeparator } from "./html.js";
import { wikiLinkAt } from "./wiki.js";

/** Link labels defined in the document (normalised), asked for only when a reference needs them. */
export type Definitions = () => ReadonlySet<string>;

// Characters that may start inline syntax; everything between them is copied in one slice.
const anySpecial = /[\\`*_~[\]!<&]/;
const nextSpecialPattern = /[\\`*_~[\]!<&]/g;

/**
 * The index of the first character at or after `from` that may start inline syntax, or the length. By
 * `test`, which moves the pattern's lastIndex and allocates nothing: `exec` allocated a match for each such
 * character (the pattern alone was 5% of chunking the bench's 5 MiB markdown document, its matches' garbage
 * more; decision 0052).
 */
function nextSpecial(source: string, from: number): number {
  nextSpecialPattern.lastIndex = from;
  return nextSpecialPattern.test(source) ? nextSpecialPattern.lastIndex - 1 : source.length;
}

const asciiPunctuation = /[!-/:-@[-`{-~]/;
const unicodeWhitespace = /\s/;
const unicodePunctuation = /[\p{P}\p{S}]/u;

/**
 * A link's destination and title are rarely longer than a few hundred characters (a data URL may be
 * longer, and then simply stays as text). Bounding the look-ahead keeps `](` soup linear.
 */
const maxLinkTail = 4096;
// cmark's bound on parentheses nested in a link destination; past it the "link" is text.
const maxDestinationParens = 32;
// CommonMark's own bound on a link label.
const maxLabel = 999;

const autolink = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/y;
const emailAutolink =
  /<([A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>/y;
// An open or closing tag. Quantifiers are bounded so a failed attempt costs a bounded scan.
const htmlTag =
  /<(?:([A-Za-z][A-Za-z0-9-]{0,63})(?:\s+[A-Za-z_:][\w.:-]{0,127}(?:\s*=\s*(?:[^\s"'=<>`]{1,2048}|'[^']{0,2048}'|"[^"]{0,2048}"))?){0,64}\s*\/?>|\/([A-Za-z][A-Za-z0-9-]{0,63})\s*>)/y;
const imageAlt = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;
const entity = /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});/y;

/** Whether `source` holds any character that may start inline syntax (else it is its own plain text). */
export function hasInlineSyntax(source: string): boolean {
  return anySpecial.test(source);
}

export function normaliseLabel(label: string): string {
  return label.replace(/\s+/g, " ").trim().toLowerCase();
}

interface Delimiter {
  piece: number;
  char: number;
  length: number;
}

/** Searches that only ever move forward: once a closer is missing from a position on, it is missing for good. */
class ForwardSearch {
  private readonly found = new Map<string, number>();

  constructor(private readonly source: string) {}

  indexOf(needle: string, from: number): number {
    const known = this.found.get(needle);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const at = this.source.indexOf(needle, from);
    this.found.set(needle, at);
    return at;
  }
}

/** Backtick runs by length, each with a cursor, so a code span's closer is found without rescanning. */
class BacktickRuns {
  private readonly runs = new Map<number, number[]>();
  private readonly cursor = new Map<number, number>();

  constructor(source: string) {
    const pattern = /`+/g;
    for (let m = pattern.exec(source); m !== null; m = pattern.exec(source)) {
      const list = this.runs.get(m[0].length);
      if (list) list.push(m.index);
      else this.runs.set(m[0].length, [m.index]);
    }
  }

  /** Start of the first run of exactly `length` backticks at or after `from`, or -1. */
  next(length: number, from: number): number {
    const list = this.runs.get(length);
    if (!list) return -1;
    let i = this.cursor.get(length) ?? 0;
    while (i < list.length && (list[i] ?? 0) < from) i++;
    this.cursor.set(length, i);
    return list[i] ?? -1;
  }
}

/** Flanking rules count the start and end of the text as white space (NaN: past either end). */
function isWhitespaceAt(source: string, index: number): boolean {
  const c = source.charCodeAt(index);
  if (Number.isNaN(c) || c === 32 || (c >= 9 && c <= 13)) return true;
  return c > 127 && unicodeWhitespace.test(source.charAt(index));
}

function isPunctuationAt(source: string, index: number): boolean {
  const c = source.charCodeAt(index);
  if (Number.isNaN(c)) return false;
  if (c < 128)
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return unicodePunctuation.test(source.charAt(index));
}

/** White space by UTF-16 unit: the ASCII cases inline, the rare others through the Unicode class. */
function isSpaceCode(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  return c > 127 && unicodeWhitespace.test(String.fromCharCode(c));
}

/** Where the `(destination "title")` after a link's `]` ends (exclusive), or -1 when it is no such thing. */
function linkTailEnd(source: string, open: number, search: ForwardSearch): number {
  const limit = Math.min(source.length, open + maxLinkTail);
  let i = open + 1;
  while (i < limit && isSpaceCode(source.charCodeAt(i))) i++;
  if (source.charCodeAt(i) === 60 /* < */) {
    while (i < limit && source.charCodeAt(i) !== 62 && source.charCodeAt(i) !== 10) i++;
    if (source.charCodeAt(i) !== 62) return -1;
    i++;
  } else {
    let depth = 0;
    while (i < limit) {
      const c = source.charCodeAt(i);
      if (c === 92 /* \ */) i += 2;
      else if (c === 40 /* ( */) {
        if (++depth > maxDestinationParens) return -1;
        i++;
      } else if (c === 41 /* ) */) {
        if (depth === 0) break;
        depth--;
        i++;
      } else if (isSpaceCode(c)) break;
      else i++;
    }
  }
  while (i < limit && isSpaceCode(source.charCodeAt(i))) i++;
  const quote = source.charCodeAt(i);
  if (quote === 34 || quote === 39) {
    // Found by a forward-only search, so titles that never close cost one scan in all, not one each.
    const close = search.indexOf(quote === 34 ? '"' : "'", i + 1);
    if (close === -1 || close >= limit) return -1;
    i = close + 1;
    while (i < limit && isSpaceCode(source.charCodeAt(i))) i++;
  } else if (quote === 40) {
    i++;
    while (i < limit && source.charCodeAt(i) !== 41) i += source.charCodeAt(i) === 92 ? 2 : 1;
    if (i >= limit) return -1;
    i++;
    while (i < limit && isSpaceCode(source.charCodeAt(i))) i++;
  }
  return i < limit && source.charCodeAt(i) === 41 ? i + 1 : -1;
}

/** Where a `[label]` starting at `open` ends (exclusive) and its label, or null. */
function labelAt(source: string, open: number): { end: number; label: string } | null {
  const limit = Math.min(source.length, open + maxLabel + 2);
  for (let i = open + 1; i < limit; i++) {
    const ch = source.charAt(i);
    if (ch === "\\") i++;
    else if (ch === "[") return null;
    else if (ch === "]") return { end: i + 1, label: source.slice(open + 1, i) };
  }
  return null;
}

/**
 * The plain text of a run of inline markdown (a paragraph, a heading, a table cell). Line breaks stay
 * line breaks; `definitions` tells a reference link (whose label is hidden) from literal brackets.
 */
export function renderInline(source: string, definitions: Definitions): string {
  // Most table cells and many lines of prose hold no syntax at all.
  if (!hasInlineSyntax(source)) return source;
  const pieces: string[] = [];
  const brackets: Array<{ piece: number; at: number; image: boolean }> = [];
  // Open emphasis delimiters per character, nearest last.
  const openers = new Map<number, Delimiter[]>();
  let search: ForwardSearch | undefined;
  let backticks: BacktickRuns | undefined;
  let copied = 0;
  for (let at = nextSpecial(source, 0); at < source.length; at = nextSpecial(source, copied)) {
    if (at > copied) pieces.push(source.slice(copied, at));
    let next = at + 1;
    const ch = source.charCodeAt(at);
    switch (ch) {
      case 92: {
        // \ : an escaped punctuation mark is itself; before a line break it is a hard break.
        const after = source.charAt(at + 1);
        if (after === "\n") {
          pieces.push("\n");
          next = at + 2;
        } else if (asciiPunctuation.test(after)) {
          pieces.push(after);
          next = at + 2;
        } else pieces.push("\\");
        break;
      }
      case 96: {
        // ` : a code span runs to the next run of exactly as many backticks; its text is kept as is.
        let end = at;
        while (source.charCodeAt(end) === 96) end++;
        const length = end - at;
        backticks ??= new BacktickRuns(source);
        let close = backticks.next(length, end);
        while (close !== -1 && source.charCodeAt(close + length) === 96)
          close = backticks.next(length, close + 1);
        if (close === -1 || source.charCodeAt(close - 1) === 96) {
          pieces.push(source.slice(at, end));
        } else {
          let code = source.slice(end, close).replace(/\n/g, " ");
          if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "") {
            code = code.slice(1, -1);
          }
          pieces.push(code);
          end = close + length;
        }
        next = end;
        break;
      }
      case 42:
      case 95:
      case 126: {
        // * _ ~ : emphasis and strikethrough marks are dropped when they pair up, kept when they do not.
        let end = at;
        while (source.charCodeAt(end) === ch) end++;
        next = end;
        const length = end - at;
        const spaceBefore = isWhitespaceAt(source, at - 1);
        const spaceAfter = isWhitespaceAt(source, end);
        const punctuationBefore = isPunctuationAt(source, at - 1);
        const punctuationAfter = isPunctuationAt(source, end);
        const leftFlanking = !spaceAfter && (!punctuationAfter || spaceBefore || punctuationBefore);
        const rightFlanking = !spaceBefore && (!punctuationBefore || spaceAfter || punctuationAfter);
        const underscore = ch === 95;
        const canOpen = leftFlanking && (!underscore || !rightFlanking || punctuationBefore);
        const canClose = rightFlanking && (!underscore || !leftFlanking || punctuationAfter);
        pieces.push(source.slice(at, end));
        if (ch === 126 && length > 2) break;
        const stack = openers.get(ch);
        if (canClose && stack && stack.length > 0) {
          let match = stack.length - 1;
          // Strikethrough pairs only runs of equal length.
          if (ch === 126) while (match >= 0 && stack[match]?.length !== length) match--;
          const opener = match >= 0 ? stack[match] : undefined;
          if (opener) {
            pieces[opener.piece] = "";
            pieces[pieces.length - 1] = "";
            stack.length = match;
            break;
          }
        }
        if (canOpen) {
          const entry = { piece: pieces.length - 1, char: ch, length };
          if (stack) stack.push(entry);
          else openers.set(ch, [entry]);
        }
        break;
      }
      case 33: {
        // ! : the start of an image, or of a wiki embed (another file shown here: no words of this one).
        if (source.charCodeAt(at + 1) === 91 && source.charCodeAt(at + 2) === 91) {
          const embed = wikiLinkAt(source, at + 1);
          if (embed) {
            next = embed.end;
            break;
          }
        }
        if (source.charCodeAt(at + 1) === 91) {
          brackets.push({ piece: pieces.length, at, image: true });
          pieces.push("![");
          next = at + 2;
        } else pieces.push("!");
        break;
      }
      case 91: {
        // [[Target|shown]] : a wiki link reads as what it shows.
        if (source.charCodeAt(at + 1) === 91) {
          const wiki = wikiLinkAt(source, at);
          if (wiki) {
            pieces.push(wiki.text);
            next = wiki.end;
            break;
          }
        }
        // [^label] of a defined footnote is a reference mark, not text (GFM shows it as a number).
        if (source.charCodeAt(at + 1) === 94) {
          const footnote = labelAt(source, at);
          if (footnote && definitions().has(normaliseLabel(footnote.label))) {
            next = footnote.end;
            break;
          }
        }
        brackets.push({ piece: pieces.length, at, image: false });
        pieces.push("[");
        break;
      }
      case 93: {
        // ] : closes the nearest bracket; a destination or a known label after it makes it a link.
        const opener = brackets.pop();
        if (!opener) {
          pieces.push("]");
          break;
        }
        const following = source.charCodeAt(at + 1);
        if (following === 40) {
          search ??= new ForwardSearch(source);
          const end = linkTailEnd(source, at + 1, search);
          if (end !== -1) {
            pieces[opener.piece] = "";
            next = end;
            break;
          }
        } else if (following === 91) {
          const label = labelAt(source, at + 1);
          if (label && (label.label === "" || definitions().has(normaliseLabel(label.label)))) {
            pieces[opener.piece] = "";
            next = label.end;
            break;
          }
        }
        const labelStart = opener.at + (opener.image ? 2 : 1);
        const shortcut = at - labelStart <= maxLabel ? source.slice(labelStart, at) : "";
        if (shortcut.trim() !== "" && definitions().has(normaliseLabel(shortcut))) {
          pieces[opener.piece] = "";
        } else pieces.push("]");
        break;
      }
      case 60: {
        // < : an autolink keeps its address; a comment, processing instruction or declaration goes
        // whole; a tag goes, and a script or style goes with its content.
        search ??= new ForwardSearch(source);
        const html = inlineHtmlEnd(source, at, search);
        if (html.text !== null) {
          pieces.push(html.text);
          next = html.end;
        } else pieces.push("<");
        break;
      }
      case 38: {
        entity.lastIndex = at;
        const ref = entity.exec(source);
        const decoded = ref?.[1] === undefined ? null : decodeReference(ref[1]);
        if (ref && decoded !== null) {
          pieces.push(decoded);
          next = at + ref[0].length;
        } else pieces.push("&");
        break;
      }
    }
    copied = next;
  }
  if (copied < source.length) pieces.push(source.slice(copied));
  return pieces.join("");
}

/** What inline HTML at `at` stands for (`text`, "" when nothing) and where it ends; text null if none. */
function inlineHtmlEnd(
  source: string,
  at: number,
  search: ForwardSearch,
): { text: string | null; end: number } {
  const none = { text: null, end: at + 1 };
  if (source.startsWith("<!--", at)) {
    if (source.startsWith("<!-->", at)) return { text: "", end: at + 5 };
    if (source.startsWith("<!--->", at)) return { text: "", end: at + 6 };
    const close = search.indexOf("-->", at + 4);
    return close === -1 ? none : { text: "", end: close + 3 };
  }
  if (source.startsWith("<![CDATA[", at)) {
    const close = search.indexOf("]]>", at + 9);
    return close === -1 ? none : { text: source.slice(at + 9, close), end: close + 3 };
  }
  if (source.startsWith("<?", at)) {
    const close = search.indexOf("?>", at + 2);
    return close === -1 ? none : { text: "", end: close + 2 };
  }
  if (source.startsWith("<!", at) && /[A-Za-z]/.test(source.charAt(at + 2))) {
    const close = search.indexOf(">", at + 2);
    return close === -1 ? none : { text: "", end: close + 1 };
  }
  autolink.lastIndex = at;
  const link = autolink.exec(source);
  if (link) return { text: link[1] ?? "", end: at + link[0].length };
  emailAutolink.lastIndex = at;
  const email = emailAutolink.exec(source);
  if (email) return { text: email[1] ?? "", end: at + email[0].length };
  htmlTag.lastIndex = at;
  const tag = htmlTag.exec(source);
  if (!tag) return none;
  const end = at + tag[0].length;
  const name = tag[1]?.toLowerCase();
  if (name === "script" || name === "style") {
    const close = search.indexOf(`</${name}`, end);
    const closeUpper = search.indexOf(`</${name.toUpperCase()}`, end);
    const first = close === -1 ? closeUpper : closeUpper === -1 ? close : Math.min(close, closeUpper);
    if (first !== -1) {
      const gt = source.indexOf(">", first);
      return { text: "", end: gt === -1 ? source.length : gt + 1 };
    }
  }
  if (name === "img") {
    // As in HTML documents, an image's alt text stands for it.
    const alt = imageAlt.exec(tag[0]);
    const text = alt?.[1] ?? alt?.[2] ?? alt?.[3];
    if (text) return { text: ` ${decodeEntities(text)} `, end };
  }
  return { text: tagSeparator((tag[1] ?? tag[2] ?? "").toLowerCase()), end };
}
