// The corpora the real suite (bench/real-http.ts) measures side by side, each built at bench time and the
// same for every process that builds it: Debian's manuals (bench/debian-docs.ts), Cranfield's abstracts and
// questions (read from MEMORIA_EVAL_DIR or ../shared/eval beside the repository, never copied in), and the
// synthetic SciFact shape (bench/shapes.ts) at the Debian corpus's passage count. Each comes with the
// documents a client sends, the passages memoria's chunker cuts from them (the floor and the peers hold
// exactly those), and two kinds of question, chosen by one rule on every corpus.

import { readCollection } from "../eval/collection.js";
import { cranfieldDir } from "../eval/paths.js";
import { queryTerms } from "../src/index/query.js";
import { chunkDocument } from "../src/ingest/chunk.js";
import type { DocumentFormat } from "../src/ingest/formats.js";
import type { CorpusPassage } from "./corpus.js";
import { DEBIAN_MANUALS, heldOutSentences, readDebianManuals } from "./debian-docs.js";
import { longQueryMix } from "./queries.js";
import { generateShape } from "./shapes.js";

export const BENCH_CORPORA = ["debian", "cranfield", "synthetic"] as const;
export type BenchCorpusName = (typeof BENCH_CORPORA)[number];

export function isBenchCorpusName(name: string): name is BenchCorpusName {
  return (BENCH_CORPORA as readonly string[]).includes(name);
}

export interface BenchDocument {
  title: string;
  content: string;
  format: DocumentFormat;
}

export interface BenchCorpus {
  name: BenchCorpusName;
  /** One line on what it is: packages, documents, what was held out. */
  description: string;
  /** Whether it is text people wrote (the figures are quoted on these) or generated words. */
  real: boolean;
  documents: BenchDocument[];
  /** What memoria's chunker cuts from `documents`, in order: the floor's and the peers' passages. */
  passages: CorpusPassage[];
  /** UTF-8 bytes of the passages' headings and text: the "byte of text" memory is counted against. */
  textBytes: number;
  /** Two words of a long question, each held in 2–200 passages: a person's search. */
  short: string[];
  /** Questions of many words, none of them a passage's own words: an agent's search. */
  long: string[];
  /** Another team's documents, for its searches while this corpus's team floods. */
  otherTeam: BenchDocument[];
}

/** Questions of each kind the latency figures time: a p99 of 200 is its second-worst. */
export const QUESTIONS = 200;
/** Long questions asked before the memory reading after them. */
export const MEMORY_QUESTIONS = 300;
/** Documents of the other team: enough for its searches to do real work, few enough to load in a second. */
const OTHER_TEAM_DOCUMENTS = 50;

/** A short question's words must be in at least this many passages (so it has answers to rank) … */
const SHORT_MIN_PASSAGES = 2;
/** … and at most this many: rare, as the words a person types to find one thing are. */
const SHORT_MAX_PASSAGES = 200;
/** Words of three letters or fewer are mostly function words and identifiers' fragments. */
const SHORT_MIN_LENGTH = 4;

/** Lower-cased runs of letters and digits, as the query builder cuts them: close to FTS5's count, unstemmed. */
export function passagesHolding(passages: readonly CorpusPassage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of passages) {
    for (const word of new Set(queryTerms(`${p.title} ${p.heading} ${p.body}`.toLowerCase()))) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * The short questions: from each sentence in turn, its two rarest words held in SHORT_MIN_PASSAGES to
 * SHORT_MAX_PASSAGES passages (ties by the word), until `count`.
 */
export function shortQuestions(
  sentences: readonly string[],
  counts: ReadonlyMap<string, number>,
  count: number,
): string[] {
  const out: string[] = [];
  for (const sentence of sentences) {
    const n = (w: string) => counts.get(w) ?? 0;
    const rare = [...new Set(queryTerms(sentence.toLowerCase()))]
      .filter((w) => w.length >= SHORT_MIN_LENGTH && n(w) >= SHORT_MIN_PASSAGES && n(w) <= SHORT_MAX_PASSAGES)
      .sort((a, b) => n(a) - n(b) || (a < b ? -1 : 1));
    if (rare.length >= 2) out.push(rare.slice(0, 2).join(" "));
    if (out.length >= count) break;
  }
  return out;
}

export function passagesOf(documents: readonly BenchDocument[]): CorpusPassage[] {
  return documents.flatMap((doc) =>
    chunkDocument(doc).map((p) => ({ heading: p.heading, body: p.text, title: doc.title, path: "" })),
  );
}

export function textBytesOf(passages: readonly CorpusPassage[]): number {
  let bytes = 0;
  for (const p of passages) bytes += Buffer.byteLength(p.heading) + Buffer.byteLength(p.body);
  return bytes;
}

function assemble(
  fields: Omit<BenchCorpus, "passages" | "textBytes" | "short"> & { shortFrom: readonly string[] },
): BenchCorpus {
  const { shortFrom, ...rest } = fields;
  const passages = passagesOf(rest.documents);
  return {
    ...rest,
    passages,
    textBytes: textBytesOf(passages),
    short: shortQuestions(shortFrom, passagesHolding(passages), QUESTIONS),
  };
}

/** Debian's manuals until `passages` are indexed; held-out files give the questions and the other team. */
export function debianCorpus(passages: number, packages = DEBIAN_MANUALS): BenchCorpus {
  const manuals = readDebianManuals(passages, packages);
  const long = heldOutSentences(manuals, MEMORY_QUESTIONS);
  const strip = ({ title, content, format }: BenchDocument) => ({ title, content, format });
  return assemble({
    name: "debian",
    description:
      `Debian manuals: ${manuals.packages.length} packages (${manuals.packages.join(", ")}), ` +
      `${manuals.indexed.length} documents indexed, ${manuals.heldOut.length} held out for questions`,
    real: true,
    documents: manuals.indexed.map(strip),
    long,
    // Sentences of 6–40 words give more candidates for two rare words than the long questions alone.
    shortFrom: heldOutSentences(manuals, 4 * QUESTIONS, 6, 40),
    otherTeam: manuals.heldOut.slice(0, OTHER_TEAM_DOCUMENTS).map(strip),
  });
}

/**
 * Cranfield 1400: its abstracts, one document each, and its 225 judged questions as the long questions.
 * Small (about 1.4 MB of text): its latencies and memory are a small team's, not 20,000 passages'.
 */
export function cranfieldCorpus(dir: string = cranfieldDir()): BenchCorpus {
  const collection = readCollection(dir);
  const documents: BenchDocument[] = collection.documents.map((d) => ({
    title: d.title.trim() === "" ? `Cranfield ${d.id}` : d.title,
    content: d.text,
    format: "text",
  }));
  const questions = collection.queries.map((q) => q.text.replace(/\s+\.$/, ".").trim());
  return assemble({
    name: "cranfield",
    description: `Cranfield 1400: ${documents.length} abstracts, its ${questions.length} judged questions`,
    real: true,
    documents,
    long: questions,
    shortFrom: questions,
    // The collection's own last abstracts, as another team holding the same kind of text.
    otherTeam: documents.slice(-OTHER_TEAM_DOCUMENTS),
  });
}

/** A second long mix's seed, for the 100 questions past the first 200 before the memory reading. */
const SECOND_LONG_SEED = 0x6d6f7265;

/** The generated SciFact shape at `passages` passages, its long mix (bench/queries.ts) as the questions. */
export function syntheticCorpus(passages: number): BenchCorpus {
  const generated = generateShape("scifact", passages);
  const documents: BenchDocument[] = generated.map((d) => ({
    title: d.title,
    content: d.content,
    format: "markdown",
  }));
  const long = [...longQueryMix(), ...longQueryMix(SECOND_LONG_SEED)].slice(0, MEMORY_QUESTIONS);
  const other = generateShape("scifact", passages + 2 * OTHER_TEAM_DOCUMENTS).slice(generated.length);
  return assemble({
    name: "synthetic",
    description: `synthetic, SciFact-shaped: ${documents.length} generated documents of Zipf-drawn words`,
    real: false,
    documents,
    long,
    shortFrom: long,
    otherTeam: other
      .slice(0, OTHER_TEAM_DOCUMENTS)
      .map((d) => ({ title: d.title, content: d.content, format: "markdown" })),
  });
}

/** The corpus of a name; `passages` sizes the Debian and synthetic ones (Cranfield is what it is). */
export function benchCorpus(name: BenchCorpusName, passages: number): BenchCorpus {
  switch (name) {
    case "debian":
      return debianCorpus(passages);
    case "cranfield":
      return cranfieldCorpus();
    case "synthetic":
      return syntheticCorpus(passages);
  }
}
