// FTS5's bm25() arithmetic (fts5_aux.c), for the code that reasons about its scores outside FTS5: pruning's
// bounds (prune.ts) and feedback's rescoring (feedback.ts). A row's score is the sum over the expression's
// phrases of idf·(f·(k1+1))/(f + k1·(1−b+b·D/avgD)): f the phrase's column-weighted frequency in the row, D
// the row's length in tokens (all columns), avgD the table's average, idf computed per phrase over the whole
// table. test/index/ranking/column-sizes.test.ts checks phraseShare against bm25() itself.

/** FTS5's bm25 k1; a phrase's share approaches idf·(k1+1) as its frequency grows. */
export const BM25_K1 = 1.2;

/** FTS5's bm25 b: how strongly a row's length discounts its frequencies. */
export const BM25_B = 0.75;

/** FTS5 clamps an IDF that is not positive (a term in at least half of all rows) to this. */
export const IDF_FLOOR = 1e-6;

/** FTS5's IDF for a phrase found in `matching` of `passages` rows, clamped as FTS5 clamps it. */
export function phraseIdf(passages: number, matching: number): number {
  const idf = Math.log((passages - matching + 0.5) / (matching + 0.5));
  return idf <= 0 ? IDF_FLOOR : idf;
}

/**
 * One phrase's share of a row's score, as fts5_aux.c computes it but for the association: it multiplies idf
 * by the saturated frequency after dividing, this before, so the two may differ in the last bit (feedback's
 * rescoring, the one user, is defined by this; clampedShare below is bm25()'s own bits).
 */
export function phraseShare(idf: number, frequency: number, length: number, averageLength: number): number {
  return (
    (idf * (frequency * (BM25_K1 + 1.0))) /
    (frequency + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength))
  );
}

/**
 * A phrase's share where its IDF is clamped (IDF_FLOOR), in fts5_aux.c's own order of operations,
 * `idf · ((f·(k1+1)) / (f + k1·(1−b+b·D/avgD)))`: bm25()'s bits exactly, with no logarithm that could differ
 * (measured: 300 of 300 rows equal to the bit, against 221 in phraseShare's association). Pruning adds these
 * to FTS5's own sums (pruned-ranking.ts).
 */
export function clampedShare(frequency: number, length: number, averageLength: number): number {
  return (
    IDF_FLOOR *
    ((frequency * (BM25_K1 + 1.0)) / (frequency + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength)))
  );
}
