/**
 * A deterministic, generated corpus for benchmarks.
 *
 * Real team notes cannot be checked in, and random letters would not behave like text in a full-text index
 * (no long posting lists, no rare terms). So documents are made of real English words whose frequencies follow
 * a Zipf-like law, which gives the index the same shape of work as natural prose: a few terms in almost every
 * passage, a long tail of terms in very few. Everything is a pure function of the seed, so two runs of a
 * benchmark index byte-identical text.
 */
import { readFileSync } from "node:fs";
import wordListPath from "word-list";
import { IndexDatabase } from "../src/index/engine.js";

export interface CorpusDocument {
  title: string;
  /** Markdown: `# Title`, then one `## Heading` per section, each followed by plain paragraphs. */
  content: string;
  /** Ancestor folder names, outermost first. */
  path: string[];
}

export interface CorpusOptions {
  /** Number of `## ` sections in the whole corpus (the unit the index stores as one passage). */
  chunks: number;
  seed?: number;
  /** Sections per document; the last document takes whatever remains. Default 10. */
  sectionsPerDocument?: number;
}

export interface CorpusPassage {
  heading: string;
  body: string;
  title: string;
  path: string;
}

/** Any fixed value works; this one spells "memo" so it is recognisable in a debugger. */
export const CORPUS_SEED = 0x6d656d6f;
const DEFAULT_SEED = CORPUS_SEED;

/**
 * The vocabulary's rank order must not depend on the corpus seed: a query mix and a corpus built with
 * different seeds must still agree on which words are common and which are rare.
 */
const VOCABULARY_SEED = 0x766f6361;

/** Of the order of a large team wiki's distinct words; big enough for a long tail of rare terms. */
const VOCABULARY_SIZE = 50_000;

/** Two letters keeps "is", "of", …; twelve drops the chemistry-style monsters that make no realistic query. */
const WORD_PATTERN = /^[a-z]{2,12}$/;

/** Zipf exponent; measured English word frequencies fit an exponent slightly above 1. */
const ZIPF_EXPONENT = 1.07;

/** Default sections per document: a typical design note or runbook page. */
const DEFAULT_SECTIONS_PER_DOCUMENT = 10;

/** Section body bounds in characters (paragraphs joined by a blank line): about 1 KB per passage. */
export const SECTION_MIN_CHARS = 900;
export const SECTION_MAX_CHARS = 1100;

/**
 * Paragraphs stop before the word that would overflow their share, so each one falls short of its share by
 * at most a space, a longest word (12) and a full stop. Drawing the target from at least the minimum plus
 * this much per paragraph keeps even the most short-falling paragraphs above the minimum.
 */
const MAX_SHORTFALL_PER_PARAGRAPH = 1 + 12 + 1;
const MAX_PARAGRAPHS = 4;

/** Markdown paragraph separator; also how paragraphs are joined in the plaintext the index gets. */
const PARAGRAPH_SEPARATOR = "\n\n";

/** Separator between folder names in a passage's path, as shown to users. */
export const PATH_SEPARATOR = " › ";

/** About thirty folders, so that paths of up to three of them repeat across documents like a real tree. */
const FOLDER_COUNT = 30;
const MAX_PATH_DEPTH = 3;

/**
 * Folder names and title words come from this rank band: common enough to be plausible names, but not the
 * handful of top-ranked words that already sit in every passage.
 */
const NAME_RANK_MIN = 50;
const NAME_RANK_MAX = 2_000;

/** Sentence lengths in words, a typical range for prose. */
const SENTENCE_MIN_WORDS = 5;
const SENTENCE_MAX_WORDS = 16;

/** Queries in the mix: enough for stable medians without making a benchmark run slow. */
const QUERY_COUNT = 200;

/**
 * Query lengths 1–6 words, weighted towards short queries as in search logs. Index i is the weight of i+1
 * words.
 */
const QUERY_LENGTH_WEIGHTS = [25, 30, 20, 12, 8, 5];

/**
 * Rank bands for query words (1-based ranks, inclusive). Mid-frequency terms dominate real queries; common
 * terms stress long posting lists, rare ones short lists.
 */
export const COMMON_RANKS = [1, 100] as const;
export const MID_RANKS = [100, 5_000] as const;
export const RARE_RANKS = [5_000, VOCABULARY_SIZE] as const;
/** Share of query words drawn from each band; the remainder is mid-frequency. */
const COMMON_SHARE = 0.15;
const RARE_SHARE = 0.15;

/** One query in ten carries a word that is in no corpus, to measure the cost of a search that finds nothing. */
const QUERIES_WITH_ABSENT_WORD = QUERY_COUNT / 10;

/** The search index's tokenizer; absent words are checked against the vocabulary with it. */
const INDEX_TOKENIZER = "porter unicode61";

/** Vocabulary words per row of the probe table; fewer, larger rows load faster and match the same. */
const VOCABULARY_ROW_WORDS = 1_000;

/** mulberry32: tiny, fast, and good enough for test data; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** Fisher–Yates, in place. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const item = items[i] as T;
    items[i] = items[j] as T;
    items[j] = item;
  }
  return items;
}

export function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Every usable word of the list, in seeded-shuffle order; the first VOCABULARY_SIZE are the vocabulary. */
let shuffledWords: string[] | undefined;

function allWords(): string[] {
  if (shuffledWords === undefined) {
    const words = readFileSync(wordListPath, "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((word) => WORD_PATTERN.test(word));
    // The list is alphabetical; shuffling stops rank (and so frequency) from tracking spelling.
    shuffledWords = shuffle(words, mulberry32(VOCABULARY_SEED));
  }
  return shuffledWords;
}

/** The vocabulary, most frequent word first. Callers get a copy so they cannot disturb generation. */
export function loadVocabulary(): string[] {
  return allWords().slice(0, VOCABULARY_SIZE);
}

export interface Sampler {
  words: string[];
  capitalised: string[];
  /** cumulative[i] = sum of the weights of ranks 0..i. */
  cumulative: Float64Array;
}

let sampler: Sampler | undefined;

/** The vocabulary with its Zipf weights, built once; shared by every generator of the bench. */
export function getSampler(): Sampler {
  if (sampler === undefined) {
    const words = allWords().slice(0, VOCABULARY_SIZE);
    const cumulative = new Float64Array(words.length);
    let total = 0;
    for (let i = 0; i < words.length; i++) {
      total += 1 / (i + 1) ** ZIPF_EXPONENT;
      cumulative[i] = total;
    }
    sampler = { words, capitalised: words.map(capitalise), cumulative };
  }
  return sampler;
}

/** Zero-based rank of a Zipf-distributed draw: the first rank whose cumulative weight exceeds the target. */
export function sampleRank(s: Sampler, random: () => number): number {
  const { cumulative } = s;
  const target = random() * (cumulative[cumulative.length - 1] as number);
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cumulative[mid] as number) > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** `count` distinct words, uniformly from the 1-based rank band [min, max]. */
export function distinctWordsFromBand(
  words: string[],
  random: () => number,
  count: number,
  min: number,
  max: number,
): string[] {
  const picked = new Set<string>();
  while (picked.size < count) picked.add(words[randomInt(random, min, max) - 1] as string);
  return [...picked];
}

/** The fixed folder names: one or two name-band words each, title-cased, like "Billing Runbooks". */
let folderNames: string[] | undefined;

function getFolderNames(): string[] {
  if (folderNames === undefined) {
    const { words } = getSampler();
    const random = mulberry32(VOCABULARY_SEED ^ 0x666f6c64);
    const names = new Set<string>();
    while (names.size < FOLDER_COUNT) {
      const parts = distinctWordsFromBand(
        words,
        random,
        randomInt(random, 1, 2),
        NAME_RANK_MIN,
        NAME_RANK_MAX,
      );
      names.add(parts.map(capitalise).join(" "));
    }
    folderNames = [...names];
  }
  return folderNames;
}

/**
 * One paragraph of at most `maxChars` characters: sentences of Zipf-drawn words, first word capitalised,
 * each closed by a full stop. It stops before the word that would overflow, so it ends within
 * MAX_SHORTFALL_PER_PARAGRAPH of the limit.
 */
function paragraph(s: Sampler, random: () => number, maxChars: number): string {
  let text = "";
  let sentenceWordsLeft = 0;
  for (;;) {
    const rank = sampleRank(s, random);
    const startsSentence = sentenceWordsLeft === 0;
    const word = startsSentence ? (s.capitalised[rank] as string) : (s.words[rank] as string);
    // Room for the separating space (if any), the word and the full stop that may have to close it.
    const separator = text.length === 0 ? "" : " ";
    if (text.length + separator.length + word.length + 1 > maxChars) {
      if (!startsSentence) text += ".";
      return text;
    }
    text += separator + word;
    if (startsSentence) sentenceWordsLeft = randomInt(random, SENTENCE_MIN_WORDS, SENTENCE_MAX_WORDS);
    sentenceWordsLeft--;
    if (sentenceWordsLeft === 0) text += ".";
  }
}

/** Bounds of a passage body: its length in characters and how many paragraphs it is written in. */
export interface BodyBounds {
  minChars: number;
  maxChars: number;
  minParagraphs: number;
  maxParagraphs: number;
}

const SECTION_BOUNDS: BodyBounds = {
  minChars: SECTION_MIN_CHARS,
  maxChars: SECTION_MAX_CHARS,
  minParagraphs: 2,
  maxParagraphs: MAX_PARAGRAPHS,
};

/** A passage body: paragraphs whose joined length lies in [minChars, maxChars]. */
export function passageBody(s: Sampler, random: () => number, bounds: BodyBounds): string {
  const paragraphCount = randomInt(random, bounds.minParagraphs, bounds.maxParagraphs);
  const targetMin = bounds.minChars + MAX_SHORTFALL_PER_PARAGRAPH * bounds.maxParagraphs;
  const target = randomInt(random, targetMin, bounds.maxChars);
  const textChars = target - PARAGRAPH_SEPARATOR.length * (paragraphCount - 1);
  // Uneven shares (weights 0.6–1.4) so paragraphs differ in length as in real notes.
  const weights = Array.from({ length: paragraphCount }, () => 0.6 + 0.8 * random());
  const totalWeight = weights.reduce((sum, w) => sum + w, 0);
  const paragraphs: string[] = [];
  let remaining = textChars;
  for (let i = 0; i < paragraphCount; i++) {
    const share =
      i === paragraphCount - 1 ? remaining : Math.floor((textChars * (weights[i] as number)) / totalWeight);
    remaining -= share;
    paragraphs.push(paragraph(s, random, share));
  }
  return paragraphs.join(PARAGRAPH_SEPARATOR);
}

/** A section body of the ten-section shape: 2–4 paragraphs, about 1 KB. */
function sectionBody(s: Sampler, random: () => number): string {
  return passageBody(s, random, SECTION_BOUNDS);
}

/** `count` Zipf-drawn words; title-cased throughout or only the first, as a title or heading wants. */
export function phrase(s: Sampler, random: () => number, count: number, titleCase: boolean): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const rank = sampleRank(s, random);
    parts.push((titleCase || i === 0 ? s.capitalised[rank] : s.words[rank]) as string);
  }
  return parts.join(" ");
}

/** Title words come from the name band so that titles read as names rather than as filler. */
export function title(s: Sampler, random: () => number): string {
  const count = randomInt(random, 2, 5);
  return distinctWordsFromBand(s.words, random, count, NAME_RANK_MIN, NAME_RANK_MAX)
    .map(capitalise)
    .join(" ");
}

export function folderPath(random: () => number): string[] {
  const folders = getFolderNames();
  const depth = randomInt(random, 0, MAX_PATH_DEPTH);
  return shuffle([...folders], random).slice(0, depth);
}

export function generateCorpus(opts: CorpusOptions): CorpusDocument[] {
  const { chunks } = opts;
  const perDocument = opts.sectionsPerDocument ?? DEFAULT_SECTIONS_PER_DOCUMENT;
  if (!Number.isInteger(chunks) || chunks < 0)
    throw new RangeError(`chunks must be a whole number: ${chunks}`);
  if (!Number.isInteger(perDocument) || perDocument < 1) {
    throw new RangeError(`sectionsPerDocument must be a positive whole number: ${perDocument}`);
  }
  const s = getSampler();
  const random = mulberry32(opts.seed ?? DEFAULT_SEED);
  const documents: CorpusDocument[] = [];
  for (let done = 0; done < chunks; done += perDocument) {
    const docTitle = title(s, random);
    const path = folderPath(random);
    const parts = [`# ${docTitle}`];
    const sections = Math.min(perDocument, chunks - done);
    for (let i = 0; i < sections; i++) {
      parts.push(`## ${phrase(s, random, randomInt(random, 2, 4), false)}`, sectionBody(s, random));
    }
    documents.push({ title: docTitle, content: `${parts.join("\n\n")}\n`, path });
  }
  return documents;
}

/**
 * The plaintext an index gets from the corpus: one passage per `## ` section, and one untitled passage for
 * text between the `# Title` line and the first `## ` (as a SciFact-shaped document's abstract is; the
 * chunker gives it an empty heading). The generated markdown has no inline syntax, so a section's
 * plaintext is its paragraphs as written, joined by a blank line.
 */
export function corpusPassages(docs: CorpusDocument[]): CorpusPassage[] {
  const passages: CorpusPassage[] = [];
  for (const doc of docs) {
    const path = doc.path.join(PATH_SEPARATOR);
    const [lead = "", ...sections] = `\n${doc.content}`.split("\n## ");
    // The lead is the H1 line, and whatever follows it before the first section.
    const untitled = lead.replace(/^\n# [^\n]*/, "").trim();
    if (untitled !== "") passages.push({ heading: "", body: untitled, title: doc.title, path });
    for (const section of sections) {
      const newline = section.indexOf("\n");
      const heading = (newline === -1 ? section : section.slice(0, newline)).trim();
      const body = newline === -1 ? "" : section.slice(newline + 1).trim();
      passages.push({ heading, body, title: doc.title, path });
    }
  }
  return passages;
}

/**
 * Draws words from outside the vocabulary that no generated text can match. Being outside the vocabulary is
 * not enough: the index stems with porter, so "bads" would find a corpus "bad". The index's own tokenizer
 * decides: a candidate is kept only if an FTS5 table of the whole vocabulary has no match for it.
 */
export function absentWordDrawer(random: () => number): { draw(): string; close(): void } {
  const words = allWords();
  const db = new IndexDatabase(":memory:");
  db.exec(`CREATE VIRTUAL TABLE vocabulary USING fts5(words, tokenize = '${INDEX_TOKENIZER}')`);
  const insert = db.prepare("INSERT INTO vocabulary (words) VALUES (?)");
  db.transaction(() => {
    for (let i = 0; i < VOCABULARY_SIZE; i += VOCABULARY_ROW_WORDS) {
      insert.run(words.slice(i, Math.min(i + VOCABULARY_ROW_WORDS, VOCABULARY_SIZE)).join(" "));
    }
  })();
  const probe = db.prepare("SELECT 1 FROM vocabulary WHERE vocabulary MATCH ? LIMIT 1");
  return {
    draw() {
      for (;;) {
        const word = words[randomInt(random, VOCABULARY_SIZE, words.length - 1)] as string;
        // Quoted as a phrase so that words such as "and" or "near" are not read as query operators.
        if (probe.get(`"${word}"`) === undefined) return word;
      }
    },
    close: () => db.close(),
  };
}

function drawWeighted(weights: readonly number[], random: () => number): number {
  const total = weights.reduce((sum, w) => sum + w, 0);
  let target = random() * total;
  for (let i = 0; i < weights.length; i++) {
    target -= weights[i] as number;
    if (target < 0) return i;
  }
  return weights.length - 1;
}

/** Log-uniform over a rank band, so each order of magnitude of frequency within it is equally represented. */
export function logUniformRank(random: () => number, [min, max]: readonly [number, number]): number {
  return Math.min(max, Math.floor(min * (max / min) ** random()));
}

/**
 * A fixed mix of QUERY_COUNT queries, each 1–6 distinct lowercase words. Words are mostly mid-frequency, some
 * common, some rare; QUERIES_WITH_ABSENT_WORD of the queries contain one word found in no corpus.
 */
export function queryMix(seed: number = DEFAULT_SEED): string[] {
  const { words } = getSampler();
  const random = mulberry32(seed);
  // Exactly which queries get an absent word is itself seeded, but their number is fixed.
  const withAbsent = shuffle(
    Array.from({ length: QUERY_COUNT }, (_, i) => i < QUERIES_WITH_ABSENT_WORD),
    random,
  );
  // Its own stream, so that how many candidates the stemmer rejects does not shift the other draws.
  const absent = absentWordDrawer(mulberry32(seed ^ 0x61627365));
  try {
    return withAbsent.map((hasAbsent) => {
      const length = drawWeighted(QUERY_LENGTH_WEIGHTS, random) + 1;
      const query = new Set<string>();
      while (query.size < length) {
        const band = random();
        const ranks =
          band < COMMON_SHARE ? COMMON_RANKS : band < COMMON_SHARE + RARE_SHARE ? RARE_RANKS : MID_RANKS;
        query.add(words[logUniformRank(random, ranks) - 1] as string);
      }
      const terms = [...query];
      if (hasAbsent) terms[Math.floor(random() * terms.length)] = absent.draw();
      return terms.join(" ");
    });
  } finally {
    absent.close();
  }
}
