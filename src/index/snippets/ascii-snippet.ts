// A body's snippet cut in JS exactly as FTS5's snippet() cuts it from the snippet table (snippet-table.ts),
// for the case most passages are: a body of ASCII text (and a few separators past it) and a query of ASCII
// words, every passage holding a match of the expression somewhere. The table costs a search ~1.4× the FTS5
// OR floor for 20 hits at 19k passages of Debian's manuals (filling it tokenizes every row; snippet()
// tokenizes the body twice more), this ~0.55× (docs/decisions/0058-ascii-snippets.md, 0069).
//
// It follows SQLite's ext/fts5 (3.53, the version the index's engine bundles): unicode61 splits ASCII text into runs of
// letters and digits and lowercases them, porter stems them (porter-stem.ts); a quoted word is one phrase;
// a NEAR group keeps only its phrases' instances that stand within its distance of each other, in one
// column; snippet() scores every window starting at an instance or at a sentence's start, and renders the
// best with the same highlight and ellipsis rules. Anything outside that case (a body with a character past
// ASCII other than SEPARATORS_PAST_ASCII, a query word that is not ASCII letters and digits) gives null, and
// the table cuts it.
// test/index/snippets/ascii-snippet.test.ts holds it equal to FTS5 on real text and generated hostile text.

import { NEAR_DISTANCE } from "../query.js";
import { porterStem } from "./porter-stem.js";
import { MATCH_CLOSE, MATCH_OPEN, SNIPPET_ELLIPSIS, SNIPPET_TOKENS } from "./snippet.js";

/**
 * Characters past ASCII that unicode61 treats as separators, as it does ASCII punctuation, and that this
 * cutter may therefore treat so: the typographic quotes, dashes, ellipsis, arrows, box-drawing and the
 * no-break space that Debian's manuals hold. With them 99.2% of the manuals' 19k passages are cut in JS,
 * without them 74% (decision 0058). test/index/snippets/ascii-snippet.test.ts checks each is a separator in FTS5.
 */
export const SEPARATORS_PAST_ASCII = "’”“‘–…—©→─└├│\u00a0";
/** The UTF-16 units past ASCII a body may hold and still be cut here: SEPARATORS_PAST_ASCII's (all one unit). */
const SEPARATOR_UNITS = new Set([...SEPARATORS_PAST_ASCII].map((c) => c.charCodeAt(0)));
const ASCII_WORD = /^[A-Za-z0-9]+$/;

/** 1 for the ASCII characters unicode61 makes tokens of (letters and digits), by code. */
const TOKEN_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  TOKEN_CHAR[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0;
}

/**
 * Where a body's tokens start and end, kept by a caller from one body to the next and grown as a body needs
 * (SnippetTable keeps one): a body is cut from its tokens before the next one's are read, and two fresh
 * arrays a body were 12 KB of allocation for a 3 KB body.
 */
export class TokenEdges {
  starts = new Int32Array(2048);
  ends = new Int32Array(2048);

  /** Room for `tokens` tokens; what was held before is not kept. */
  reserve(tokens: number): void {
    if (this.starts.length >= tokens) return;
    const size = Math.max(tokens, 2 * this.starts.length);
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
  }
}

/**
 * A body's tokens: where each of the first `count` starts and ends (the caller's TokenEdges); the indexes of
 * those whose stem is a phrase's, with that stem, in token order; and the tokens that begin a sentence
 * (fts5SentenceFinderCb).
 */
interface BodyTokens {
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  matched: number[];
  matchedStems: string[];
  sentences: number[];
}

interface Instance {
  phrase: number;
  offset: number;
}

/**
 * The phrases FTS5 reads from orExpression(terms, terms), each as the stem it matches: every term, then, with
 * two terms or more, the NEAR group's copy of each. Null when a term is not one ASCII token.
 */
export function asciiPhrases(terms: readonly string[]): string[] | null {
  if (!terms.every((t) => ASCII_WORD.test(t))) return null;
  const stems = terms.map((t) => porterStem(t.toLowerCase()));
  return stems.length > 1 ? [...stems, ...stems] : stems;
}

/** Whether text[start, end) lowercased begins with `prefix` (lowercase). */
function beginsWith(text: string, start: number, end: number, prefix: string): boolean {
  if (end - start < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) {
    let c = text.charCodeAt(start + k);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== prefix.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * What every token stemming to `stem` begins with: porter replaces at most the last four letters of what it
 * keeps of a token (its longest replacement, "tion", "ence", "ance"), and keeps at least a token's first
 * letter unless the stem is a single letter ("ies" → "i"). test/index/snippets/porter-stem.test.ts holds both on every
 * real and generated word.
 */
export function stemPrefix(stem: string): string {
  return stem.length < 2 ? "" : stem.slice(0, Math.max(1, stem.length - 4));
}

/**
 * unicode61's ASCII tokens (runs of letters and digits) and the sentences they begin, in one pass over the
 * body; null at a character past ASCII other than SEPARATORS_PAST_ASCII (a lone surrogate or a pair is one).
 * Only a token that begins with a phrase's stemPrefix is stemmed, and each distinct one once: stemming every
 * token cost 4× the whole FTS5 snippet table. One pass over character codes into typed arrays, rather than
 * a check of the whole body by a regular expression and arrays of every token's stem: the 20 bodies of a
 * two-word search at 20k passages of Debian's manuals were cut in 0.64–0.67 ms, now 0.41–0.58 (in one process,
 * three runs each, load ~3.5; docs/decisions/0069-short-questions-over-http.md).
 */
function tokens(
  text: string,
  phraseStems: readonly string[],
  stemsOf: Map<string, string>,
  edges: TokenEdges,
): BodyTokens | null {
  const wanted = new Set(phraseStems);
  const prefixes = [...wanted].map(stemPrefix);
  // A prefix's first letter, or -1 for the empty prefix every token begins with.
  const firsts = prefixes.map((p) => (p.length > 0 ? p.charCodeAt(0) : -1));
  const n = text.length;
  // A token is at least one character and is followed by a separator or the end.
  edges.reserve((n >> 1) + 1);
  const { starts, ends } = edges;
  const matched: number[] = [];
  const matchedStems: string[] = [];
  const sentences: number[] = [];
  let count = 0;
  let i = 0;
  while (i < n) {
    // The separators before a token: a sentence starts after ". " or ": " (whitespace, and before it the
    // last other separator a '.' or ':'; a gap of whitespace alone follows a token's letter, which is neither).
    let blank = false;
    let mark = false;
    let c = 0;
    for (; i < n; i++) {
      c = text.charCodeAt(i);
      if (c < 128) {
        if (TOKEN_CHAR[c] === 1) break;
        if (c === 32 || c === 9 || c === 10 || c === 13) blank = true;
        else {
          blank = false;
          mark = c === 46 || c === 58;
        }
      } else if (SEPARATOR_UNITS.has(c)) {
        blank = false;
        mark = false;
      } else return null;
    }
    if (i >= n) break;
    const start = i;
    for (i++; i < n; i++) {
      const d = text.charCodeAt(i);
      if (d >= 128 || TOKEN_CHAR[d] !== 1) break;
    }
    starts[count] = start;
    ends[count] = i;
    if (count === 0 || (blank && mark)) sentences.push(count);
    const first = c >= 65 && c <= 90 ? c + 32 : c;
    let candidate = false;
    for (let p = 0; p < prefixes.length && !candidate; p++) {
      const f = firsts[p];
      candidate = (f === -1 || f === first) && beginsWith(text, start, i, prefixes[p] ?? "");
    }
    if (candidate) {
      const token = text.slice(start, i).toLowerCase();
      let stem = stemsOf.get(token);
      if (stem === undefined) {
        stem = porterStem(token);
        stemsOf.set(token, stem);
      }
      if (wanted.has(stem)) {
        matched.push(count);
        matchedStems.push(stem);
      }
    }
    count++;
  }
  return { count, starts, ends, matched, matchedStems, sentences };
}

/**
 * A NEAR group's instances that FTS5 keeps (fts5ExprNearIsMatch): windows where every phrase stands within
 * `distance` tokens, found by the same sweep, so the same positions come out.
 */
function nearInstances(lists: readonly number[][], distance: number): number[][] {
  const out = lists.map((): number[] => []);
  const at = lists.map(() => 0);
  const pos = (i: number) => lists[i]?.[at[i] ?? 0] ?? Number.POSITIVE_INFINITY;
  const lookahead = (i: number) => lists[i]?.[(at[i] ?? 0) + 1] ?? Number.POSITIVE_INFINITY;
  /** Steps list i on; true at its end. */
  const advance = (i: number) => {
    at[i] = (at[i] ?? 0) + 1;
    return pos(i) === Number.POSITIVE_INFINITY;
  };
  if (lists.some((l) => l.length === 0)) return out;
  for (;;) {
    let max = pos(0);
    let match: boolean;
    do {
      match = true;
      for (let i = 0; i < lists.length; i++) {
        const min = max - 1 - distance;
        if (pos(i) < min || pos(i) > max) {
          match = false;
          while (pos(i) < min) if (advance(i)) return out;
          if (pos(i) > max) max = pos(i);
        }
      }
    } while (!match);
    for (let i = 0; i < lists.length; i++) {
      const list = out[i] ?? [];
      if (list.length === 0 || list[list.length - 1] !== pos(i)) list.push(pos(i));
    }
    let next = 0;
    let least = lookahead(0);
    for (let i = 0; i < lists.length; i++) {
      if (lookahead(i) < least) {
        least = lookahead(i);
        next = i;
      }
    }
    if (advance(next)) return out;
  }
}

/** The body's phrase instances in FTS5's xInst order: by offset, then by phrase. */
function instancesOf(body: BodyTokens, phrases: readonly string[]): Instance[] {
  const lists = phrases.map((): number[] => []);
  for (let m = 0; m < body.matched.length; m++) {
    const stem = body.matchedStems[m];
    const offset = body.matched[m] ?? 0;
    for (let p = 0; p < phrases.length; p++) if (phrases[p] === stem) lists[p]?.push(offset);
  }
  const single = phrases.length > 1 ? phrases.length / 2 : phrases.length;
  const near = phrases.length > 1 ? nearInstances(lists.slice(single), NEAR_DISTANCE) : [];
  const all = [...lists.slice(0, single), ...near];
  const instances: Instance[] = [];
  for (const [phrase, offsets] of all.entries())
    for (const offset of offsets) instances.push({ phrase, offset });
  return instances.sort((a, b) => a.offset - b.offset || a.phrase - b.phrase);
}

/** fts5SnippetScore: a window's score, and where a window around its instances would start. */
function windowScore(
  instances: readonly Instance[],
  phrases: number,
  size: number,
  start: number,
): { score: number; adjusted: number } {
  const seen = new Uint8Array(phrases);
  const end = start + SNIPPET_TOKENS;
  let score = 0;
  let first = -1;
  let last = 0;
  for (const { phrase, offset } of instances) {
    if (offset < start || offset >= end) continue;
    score += seen[phrase] ? 1 : 1000;
    seen[phrase] = 1;
    if (first < 0) first = offset;
    last = offset + 1;
  }
  let adjusted = first - Math.trunc((SNIPPET_TOKENS - (last - first)) / 2);
  if (adjusted + SNIPPET_TOKENS > size) adjusted = size - SNIPPET_TOKENS;
  if (adjusted < 0) adjusted = 0;
  return { score, adjusted };
}

/**
 * The raw snippet (markers, not yet escaped) FTS5 cuts of `body` for `phrases` (asciiPhrases), or null when
 * the body holds a character past ASCII other than SEPARATORS_PAST_ASCII. FTS5 counts UTF-8 bytes where this
 * counts UTF-16 units, but only ever cuts at a token's edge or looks for ASCII whitespace, '.' and ':' before
 * one, and no character of a multi-byte sequence is either, so both cut the same characters. `stemsOf` keeps
 * the tokens stemmed so far, for the caller to share between the bodies of one search. The passage must match the expression in some column, as every ranked row does.
 */
export function asciiSnippet(
  body: string,
  phrases: readonly string[],
  stemsOf: Map<string, string> = new Map(),
  edges: TokenEdges = new TokenEdges(),
): string | null {
  const bodyTokens = tokens(body, phrases, stemsOf, edges);
  if (bodyTokens === null) return null;
  const size = bodyTokens.count;
  const instances = instancesOf(bodyTokens, phrases);
  const starts = bodyTokens.sentences;
  let bestScore = 0;
  let bestStart = 0;
  for (const { offset } of instances) {
    const around = windowScore(instances, phrases.length, size, offset);
    if (around.score > bestScore) {
      bestScore = around.score;
      bestStart = around.adjusted;
    }
    if (starts.length > 0 && size > SNIPPET_TOKENS) {
      let jj = 0;
      for (; jj < starts.length - 1; jj++) if ((starts[jj + 1] ?? 0) > offset) break;
      const sentence = starts[jj] ?? 0;
      if (sentence < offset) {
        const score =
          windowScore(instances, phrases.length, size, sentence).score + (sentence === 0 ? 120 : 100);
        if (score > bestScore) {
          bestScore = score;
          bestStart = sentence;
        }
      }
    }
  }
  return highlighted(body, bodyTokens, instances, bestStart);
}

/** Coalesced instances (fts5CInstIterNext): overlapping ones as one span; single tokens here. */
function coalesced(instances: readonly Instance[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (const { offset } of instances) {
    const last = spans[spans.length - 1];
    if (last && offset <= last.end) last.end = Math.max(last.end, offset);
    else spans.push({ start: offset, end: offset });
  }
  return spans;
}

/** fts5HighlightCb over the window of SNIPPET_TOKENS tokens from `rangeStart`, with its ellipses. */
function highlighted(
  text: string,
  body: BodyTokens,
  instances: readonly Instance[],
  rangeStart: number,
): string {
  const rangeEnd = rangeStart + SNIPPET_TOKENS - 1;
  const spans = coalesced(instances);
  let span = 0;
  while (span < spans.length && (spans[span]?.start ?? 0) < rangeStart) span++;
  const spanStart = () => spans[span]?.start ?? -1;
  const spanEnd = () => spans[span]?.end ?? -1;
  let out = rangeStart > 0 ? SNIPPET_ELLIPSIS : "";
  let copied = 0;
  let open = false;
  const last = Math.min(rangeEnd, body.count - 1);
  for (let position = rangeStart; position <= last; position++) {
    const token = { start: body.starts[position] ?? 0, end: body.ends[position] ?? 0 };
    if (rangeStart > 0 && position === rangeStart) copied = token.start;
    if (open && (position <= spanStart() || spanStart() < 0) && token.start > copied) {
      out += MATCH_CLOSE;
      open = false;
    }
    if (position === spanStart() && !open) {
      out += text.slice(copied, token.start) + MATCH_OPEN;
      copied = token.start;
      open = true;
    }
    if (position === spanEnd()) {
      if (!open) {
        out += MATCH_OPEN;
        open = true;
      }
      out += text.slice(copied, token.end);
      copied = token.end;
      span++;
    }
    if (position === rangeEnd) {
      if (open) {
        if (spanStart() >= 0 && position >= spanStart()) {
          out += text.slice(copied, token.end);
          copied = token.end;
        }
        out += MATCH_CLOSE;
        open = false;
      }
      out += text.slice(copied, token.end);
      copied = token.end;
    }
  }
  if (open) out += MATCH_CLOSE;
  return rangeEnd >= body.count - 1 ? out + text.slice(copied) : out + SNIPPET_ELLIPSIS;
}
