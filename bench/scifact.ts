/**
 * SciFact-shaped documents: what most users' notes look like, as opposed to the ten-section pages of
 * bench/corpus.ts. SciFact (5,183 abstracts) averages 1.1 passages a document at ~1.5 KB each, so almost
 * every document is its own sealed row, and a cold start pays per-row costs (read, open, insert) ten times
 * as often as on the ten-section shape for the same text — an earlier run measured 2.7× the floor here against
 * 1.06× there. The real data set is not available to the bench, so the shape is generated from the same
 * Zipf vocabulary, deterministically for a seed.
 */
import {
  type BodyBounds,
  CORPUS_SEED,
  type CorpusDocument,
  folderPath,
  getSampler,
  mulberry32,
  passageBody,
  phrase,
  randomInt,
  title,
} from "./corpus.js";

/**
 * One document in ten carries a second, headed section, so passages per document average 1.1 as in
 * SciFact. (There the second passage comes from the chunker splitting an abstract past its 2,000-character
 * cap; a heading gives the same count without the bench having to predict the chunker's cut.)
 */
export const SECOND_SECTION_SHARE = 0.1;

/**
 * An abstract's body: 1,100–1,900 characters (mean ~1.5 KB), under the chunker's 2,000-code-point cap so
 * it stays one passage; one or two paragraphs, as abstracts are written.
 */
export const ABSTRACT_BOUNDS: BodyBounds = {
  minChars: 1_100,
  maxChars: 1_900,
  minParagraphs: 1,
  maxParagraphs: 2,
};

/** The occasional second section: a short results or methods paragraph. */
export const SECOND_SECTION_BOUNDS: BodyBounds = {
  minChars: 400,
  maxChars: 1_200,
  minParagraphs: 1,
  maxParagraphs: 2,
};

/**
 * `chunks` passages in SciFact-shaped markdown documents: `# Title`, the abstract as untitled paragraphs,
 * and now and then one `## ` section. The last document takes whatever remains, so the passage count is
 * exact (the bench checks memoria indexed exactly that many).
 */
export function generateSciFactCorpus(opts: { chunks: number; seed?: number }): CorpusDocument[] {
  const { chunks } = opts;
  if (!Number.isInteger(chunks) || chunks < 0)
    throw new RangeError(`chunks must be a whole number: ${chunks}`);
  const s = getSampler();
  // Its own stream, so the same seed does not make these documents echo the ten-section corpus's text.
  const random = mulberry32((opts.seed ?? CORPUS_SEED) ^ 0x73636966);
  const documents: CorpusDocument[] = [];
  for (let done = 0; done < chunks; ) {
    const docTitle = title(s, random);
    const path = folderPath(random);
    const parts = [`# ${docTitle}`, passageBody(s, random, ABSTRACT_BOUNDS)];
    done++;
    if (done < chunks && random() < SECOND_SECTION_SHARE) {
      parts.push(
        `## ${phrase(s, random, randomInt(random, 1, 3), false)}`,
        passageBody(s, random, SECOND_SECTION_BOUNDS),
      );
      done++;
    }
    documents.push({ title: docTitle, content: `${parts.join("\n\n")}\n`, path });
  }
  return documents;
}
