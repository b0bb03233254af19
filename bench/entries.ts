// A generated team memory for the working-memory benchmark: N entries written over a few years, spread over
// projects and types, their words drawn Zipf-style from the same vocabulary as the document corpus, and a
// fixed mix of (query, project) asks. Deterministic for a seed.

import type { IndexedEntry } from "../src/index/entry-index.js";
import { loadVocabulary, mulberry32 } from "./corpus.js";

export const ENTRIES_SEED = 0x656e7472;

/** Distinct words entries are written in: a team's working vocabulary is far smaller than a corpus's. */
const ENTRY_VOCABULARY = 20_000;
const ZIPF_EXPONENT = 1.07;
/** Projects of a team; a few are busy, most are not (Zipf again). */
const PROJECTS = 40;
const TYPES = ["decision", "incident", "learning", "note", "todo"];
/** The period entries are written over: about one entry every 16 minutes for 100k entries over three years. */
const SPAN_MS = 3 * 365 * 24 * 3600 * 1000;
const START = Date.parse("2023-01-01T00:00:00.000Z");
/** Asks in the mix. Query words come from ranks where a word matches hundreds to thousands of entries. */
const ASKS = 200;
const QUERY_RANKS = [30, 3_000] as const;

function zipfSampler(size: number, random: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) {
    total += 1 / (i + 1) ** ZIPF_EXPONENT;
    cumulative[i] = total;
  }
  return () => {
    const target = random() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

const between = (random: () => number, min: number, max: number) =>
  min + Math.floor(random() * (max - min + 1));

export function generateEntries(count: number, seed = ENTRIES_SEED): IndexedEntry[] {
  const words = loadVocabulary().slice(0, ENTRY_VOCABULARY);
  const random = mulberry32(seed);
  const word = zipfSampler(words.length, random);
  const project = zipfSampler(PROJECTS, random);
  const text = (min: number, max: number) =>
    Array.from({ length: between(random, min, max) }, () => words[word()]).join(" ");
  const step = SPAN_MS / count;
  return Array.from({ length: count }, (_, i) => {
    const impact = random() < 0.3 ? null : text(3, 12);
    return {
      id: `e${i.toString(36).padStart(8, "0")}`,
      createdAt: new Date(START + Math.floor(i * step + random() * step)).toISOString(),
      project: random() < 0.1 ? null : `project-${project()}`,
      type: TYPES[between(random, 0, TYPES.length - 1)] ?? null,
      title: text(4, 10),
      impact,
      body: random() < 0.2 ? null : text(15, 60),
    };
  });
}

export interface Ask {
  query: string;
  project: string;
}

export function askMix(seed = ENTRIES_SEED ^ 0x61736b73): Ask[] {
  const words = loadVocabulary().slice(0, ENTRY_VOCABULARY);
  const random = mulberry32(seed);
  const [min, max] = QUERY_RANKS;
  return Array.from({ length: ASKS }, () => {
    const length = between(random, 1, 4);
    const query = Array.from(
      { length },
      () => words[Math.min(max, Math.floor(min * (max / min) ** random())) - 1],
    ).join(" ");
    return { query, project: `project-${between(random, 0, PROJECTS - 1)}` };
  });
}
