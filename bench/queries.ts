/**
 * Long queries: what agents send. SciFact's claims are natural-language sentences of 10–20 words, and an
 * agent asking memoria writes the same — a question or a claim, not keywords. Every word is a term of the
 * OR expression, so a long query matches most of the corpus through its common words, and FTS5 scores every
 * passage that matches any of them: the cost the 1–6-word mix (bench/corpus.ts queryMix) hides.
 */
import {
  getSampler,
  logUniformRank,
  MID_RANKS,
  mulberry32,
  RARE_RANKS,
  randomInt,
  sampleRank,
} from "./corpus.js";

/** As many as the short mix, so both mixes give percentiles of the same resolution. */
export const LONG_QUERY_COUNT = 200;
export const LONG_QUERY_MIN_WORDS = 10;
export const LONG_QUERY_MAX_WORDS = 20;

/**
 * Where a claim's words come from. Prose-like draws (Zipf over the whole vocabulary, as the corpus's own
 * sentences are written) bring in the function words and common terms found in half of all passages;
 * mid-frequency and rare draws are the claim's content words ("biomaterials", "inductive"). A SciFact claim
 * is denser in content words than running prose, hence not all prose draws.
 */
export const PROSE_SHARE = 0.45;
export const RARE_SHARE = 0.15;

/** Its own seed, so the long mix does not replay the short mix's draws. */
export const LONG_QUERY_SEED = 0x636c6169;

/**
 * LONG_QUERY_COUNT queries of 10–20 distinct lowercase vocabulary words, deterministic for a seed. Distinct
 * because a repeated word adds nothing to an OR, and the floor and every peer must get the same terms.
 */
export function longQueryMix(seed: number = LONG_QUERY_SEED): string[] {
  const s = getSampler();
  const random = mulberry32(seed);
  return Array.from({ length: LONG_QUERY_COUNT }, () => {
    const length = randomInt(random, LONG_QUERY_MIN_WORDS, LONG_QUERY_MAX_WORDS);
    const words = new Set<string>();
    while (words.size < length) {
      const band = random();
      const rank =
        band < PROSE_SHARE
          ? sampleRank(s, random)
          : logUniformRank(random, band < PROSE_SHARE + RARE_SHARE ? RARE_RANKS : MID_RANKS) - 1;
      words.add(s.words[rank] as string);
    }
    return [...words].join(" ");
  });
}
