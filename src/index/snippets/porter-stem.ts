// The Porter stemmer exactly as FTS5's `porter` tokenizer applies it to a token its `unicode61` tokenizer
// has lowercased (SQLite's ext/fts5/fts5_tokenize.c, 3.53, the version the index's engine bundles), for tokens of ASCII letters
// and digits: the JS snippets (ascii-snippet.ts) must find the very tokens FTS5 would match, so this follows
// FTS5's own steps and conditions, including where they differ from the published algorithm (a token under
// 3 or over 64 bytes is left as it is; a step's rules are tried by suffix, and only the first suffix that
// fits is tried at all). test/index/snippets/porter-stem.test.ts holds it equal to FTS5 on every ASCII word of
// Debian's manuals, git's manuals and generated words.

/** FTS5 leaves tokens longer than this (in bytes) unstemmed. */
const MAX_STEMMED = 64;
/** FTS5 leaves tokens shorter than this unstemmed. */
const MIN_STEMMED = 3;

type Condition = (stem: string) => boolean;

function isVowel(c: string | undefined, yIsVowel: boolean): boolean {
  return c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");
}

/** Past the first vowel-consonant run from the start (a "VC"), or 0 when there is none. */
function gobbleVC(stem: string, from: number, previousConsonant: boolean): number {
  let consonant = previousConsonant;
  let i = from;
  for (; i < stem.length; i++) {
    consonant = !isVowel(stem[i], consonant);
    if (!consonant) break;
  }
  for (i++; i < stem.length; i++) {
    consonant = !isVowel(stem[i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

const mGt0: Condition = (stem) => gobbleVC(stem, 0, false) !== 0;
const mGt1: Condition = (stem) => {
  const n = gobbleVC(stem, 0, false);
  return n !== 0 && gobbleVC(stem, n, true) !== 0;
};
const mEq1: Condition = (stem) => {
  const n = gobbleVC(stem, 0, false);
  return n !== 0 && gobbleVC(stem, n, true) === 0;
};
/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const oStar: Condition = (stem) => {
  const last = stem[stem.length - 1];
  if (last === "w" || last === "x" || last === "y") return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < stem.length; i++) {
    consonant = !isVowel(stem[i], consonant);
    mask = ((mask << 1) + (consonant ? 1 : 0)) & 0xffff;
  }
  return (mask & 0x7) === 0x5;
};
const mGt1AndSOrT: Condition = (stem) => {
  const last = stem[stem.length - 1];
  return (last === "s" || last === "t") && mGt1(stem);
};
/** *v*: the stem holds a vowel (y counting as one after the first letter). */
const hasVowel: Condition = (stem) => {
  for (let i = 0; i < stem.length; i++) if (isVowel(stem[i], i > 0)) return true;
  return false;
};

/** [suffix, condition on what precedes it, replacement]: a step's rules in FTS5's order. */
type Rule = readonly [string, Condition, string];

const step2: readonly Rule[] = [
  ["ational", mGt0, "ate"],
  ["tional", mGt0, "tion"],
  ["enci", mGt0, "ence"],
  ["anci", mGt0, "ance"],
  ["izer", mGt0, "ize"],
  ["logi", mGt0, "log"],
  ["bli", mGt0, "ble"],
  ["alli", mGt0, "al"],
  ["entli", mGt0, "ent"],
  ["eli", mGt0, "e"],
  ["ousli", mGt0, "ous"],
  ["ization", mGt0, "ize"],
  ["ation", mGt0, "ate"],
  ["ator", mGt0, "ate"],
  ["alism", mGt0, "al"],
  ["iveness", mGt0, "ive"],
  ["fulness", mGt0, "ful"],
  ["ousness", mGt0, "ous"],
  ["aliti", mGt0, "al"],
  ["iviti", mGt0, "ive"],
  ["biliti", mGt0, "ble"],
];

const step3: readonly Rule[] = [
  ["ical", mGt0, "ic"],
  ["ness", mGt0, ""],
  ["icate", mGt0, "ic"],
  ["iciti", mGt0, "ic"],
  ["ful", mGt0, ""],
  ["ative", mGt0, ""],
  ["alize", mGt0, "al"],
];

const step4: readonly Rule[] = [
  ["al", mGt1, ""],
  ["ance", mGt1, ""],
  ["ence", mGt1, ""],
  ["er", mGt1, ""],
  ["ic", mGt1, ""],
  ["able", mGt1, ""],
  ["ible", mGt1, ""],
  ["ant", mGt1, ""],
  ["ement", mGt1, ""],
  ["ment", mGt1, ""],
  ["ent", mGt1, ""],
  ["ion", mGt1AndSOrT, ""],
  ["ou", mGt1, ""],
  ["ism", mGt1, ""],
  ["ate", mGt1, ""],
  ["iti", mGt1, ""],
  ["ous", mGt1, ""],
  ["ive", mGt1, ""],
  ["ize", mGt1, ""],
];

/**
 * The first rule whose suffix ends `word` with at least one letter before it; its replacement when its
 * condition holds of that stem. FTS5 picks among a step's rules by the word's next-to-last letter, and every
 * rule of one such group shares it, so trying them in order finds the same rule.
 */
function applyStep(word: string, rules: readonly Rule[]): { word: string; applied: boolean } {
  for (const [suffix, condition, replacement] of rules) {
    if (word.length > suffix.length && word.endsWith(suffix)) {
      const stem = word.slice(0, word.length - suffix.length);
      return condition(stem) ? { word: stem + replacement, applied: true } : { word, applied: false };
    }
  }
  return { word, applied: false };
}

function step1A(word: string): string {
  const n = word.length;
  if (word[n - 1] !== "s") return word;
  if (word[n - 2] === "e") {
    if ((n > 4 && word[n - 4] === "s" && word[n - 3] === "s") || (n > 3 && word[n - 3] === "i")) {
      return word.slice(0, n - 2);
    }
    return word.slice(0, n - 1);
  }
  return word[n - 2] !== "s" ? word.slice(0, n - 1) : word;
}

/** 1B: "eed" (m > 0) to "ee"; "ed" and "ing" after a vowel removed, and then said to have applied. */
function step1B(word: string): { word: string; applied: boolean } {
  const n = word.length;
  if (n > 3 && word.endsWith("eed")) {
    const stem = word.slice(0, n - 3);
    return { word: mGt0(stem) ? `${stem}ee` : word, applied: false };
  }
  if (n > 2 && word.endsWith("ed")) {
    const stem = word.slice(0, n - 2);
    return hasVowel(stem) ? { word: stem, applied: true } : { word, applied: false };
  }
  if (n > 3 && word.endsWith("ing")) {
    const stem = word.slice(0, n - 3);
    return hasVowel(stem) ? { word: stem, applied: true } : { word, applied: false };
  }
  return { word, applied: false };
}

const step1B2: readonly Rule[] = [
  ["at", () => true, "ate"],
  ["bl", () => true, "ble"],
  ["iz", () => true, "ize"],
];

/** The token FTS5 indexes for `token`, a lowercase run of ASCII letters and digits. */
export function porterStem(token: string): string {
  if (token.length > MAX_STEMMED || token.length < MIN_STEMMED) return token;
  let word = step1A(token);
  const b = step1B(word);
  word = b.word;
  if (b.applied) {
    const b2 = applyStep(word, step1B2);
    word = b2.word;
    if (!b2.applied) {
      const n = word.length;
      const last = word[n - 1];
      if (!isVowel(last, false) && last !== "l" && last !== "s" && last !== "z" && last === word[n - 2]) {
        word = word.slice(0, n - 1);
      } else if (mEq1(word) && oStar(word)) {
        word = `${word}e`;
      }
    }
  }
  if (word[word.length - 1] === "y" && hasVowel(word.slice(0, -1))) word = `${word.slice(0, -1)}i`;
  word = applyStep(word, step2).word;
  word = applyStep(word, step3).word;
  word = applyStep(word, step4).word;
  if (word[word.length - 1] === "e") {
    const stem = word.slice(0, -1);
    if (mGt1(stem) || (mEq1(stem) && !oStar(stem))) word = stem;
  }
  if (word.length > 1 && word.endsWith("ll") && mGt1(word.slice(0, -1))) word = word.slice(0, -1);
  return word;
}
