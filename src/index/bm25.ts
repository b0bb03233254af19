// FTS5's bm25() arithmetic (fts5_aux.c), for the code that reasons about its scores outside FTS5: pruning's
// bounds (prune.ts) and feedback's rescoring (feedback.ts). A row's score is the sum over the expression's
// phrases of idf·(f·(k1+1))/(f + k1·(1−b+b·D/avgD)): f the phrase's column-weighted frequency in the row, D
// the row's length in tokens (all columns), avgD the table's average, idf computed per phrase over the whole
// table. test/index/column-sizes.test.ts checks phraseShare against bm25() itself.

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

/** One phrase's share of a row's score, in the order of operations fts5_aux.c uses. */
export function phraseShare(idf: number, frequency: number, length: number, averageLength: number): number {
  return (
    (idf * (frequency * (BM25_K1 + 1.0))) /
    (frequency + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength))
  );
}
