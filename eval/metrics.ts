// Retrieval quality of a run against graded judgments, with trec_eval's semantics (`trec_eval -c`, as BEIR
// and Pyserini report): nDCG@10 with linear graded gain, Recall@100 and MAP@100. Pure: the numbers for the
// same run and judgments are those the collection's own ndcg.py prints, and test/eval/metrics.test.ts holds
// the two side by side.

/** One retrieved document and the score its engine gave it. */
export interface Retrieved {
  docId: string;
  score: number;
}

/** query id → document id → graded relevance (≥ 1 relevant, ≤ 0 judged not relevant). */
export type Judgments = Map<string, Map<string, number>>;

export interface QueryMetrics {
  ndcg10: number;
  recall100: number;
  map100: number;
}

export interface RunMetrics extends QueryMetrics {
  /** Queries averaged over: every judged query with at least one relevant document. */
  queries: number;
  /** Of those, how many the run holds nothing for (they score 0, as with `-c`). */
  missing: number;
  perQuery: Map<string, QueryMetrics>;
}

// Python compares strings by code point; so does this (no locale), so ties break the same way.
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The order trec_eval reads a run in: score descending, ties by document id descending (its rule, not the
 * engine's), the rank column ignored; a document retrieved twice counts once, at its better place.
 */
export function trecOrder(run: readonly Retrieved[]): string[] {
  const sorted = [...run].sort((a, b) => b.score - a.score || byCodePoint(b.docId, a.docId));
  const seen = new Set<string>();
  const order: string[] = [];
  for (const { docId } of sorted) {
    if (seen.has(docId)) continue;
    seen.add(docId);
    order.push(docId);
  }
  return order;
}

const gain = (rel: number) => Math.max(rel, 0);

export function ndcgAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((doc, i) => {
    dcg += gain(judged.get(doc) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .map(gain)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

const relevantOf = (judged: ReadonlyMap<string, number>) =>
  new Set([...judged].filter(([, rel]) => rel >= 1).map(([doc]) => doc));

export function recallAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const relevant = relevantOf(judged);
  if (relevant.size === 0) return 0;
  return ranking.slice(0, k).filter((doc) => relevant.has(doc)).length / relevant.size;
}

/** Average precision cut at k, divided by every relevant document (not by min(R, k)), as map_cut does. */
export function averagePrecisionAt(
  ranking: readonly string[],
  judged: ReadonlyMap<string, number>,
  k: number,
): number {
  const relevant = relevantOf(judged);
  if (relevant.size === 0) return 0;
  let hits = 0;
  let total = 0;
  ranking.slice(0, k).forEach((doc, i) => {
    if (!relevant.has(doc)) return;
    hits++;
    total += hits / (i + 1);
  });
  return total / relevant.size;
}

/** Means over every judged query with a relevant document; a query the run lacks scores 0. */
export function evaluate(run: ReadonlyMap<string, readonly Retrieved[]>, judgments: Judgments): RunMetrics {
  const perQuery = new Map<string, QueryMetrics>();
  let missing = 0;
  for (const [queryId, judged] of judgments) {
    if (relevantOf(judged).size === 0) continue;
    const retrieved = run.get(queryId) ?? [];
    if (retrieved.length === 0) missing++;
    const ranking = trecOrder(retrieved);
    perQuery.set(queryId, {
      ndcg10: ndcgAt(ranking, judged, 10),
      recall100: recallAt(ranking, judged, 100),
      map100: averagePrecisionAt(ranking, judged, 100),
    });
  }
  const n = perQuery.size;
  const mean = (pick: (m: QueryMetrics) => number) =>
    n === 0 ? 0 : [...perQuery.values()].reduce((sum, m) => sum + pick(m), 0) / n;
  return {
    ndcg10: mean((m) => m.ndcg10),
    recall100: mean((m) => m.recall100),
    map100: mean((m) => m.map100),
    queries: n,
    missing,
    perQuery,
  };
}

/** One line, the collection's script's layout, so the two can be read against each other. */
export function formatMetrics(m: RunMetrics): string {
  return (
    `nDCG@10 ${m.ndcg10.toFixed(4)}  Recall@100 ${m.recall100.toFixed(4)}  MAP@100 ${m.map100.toFixed(4)}  ` +
    `(queries ${m.queries}, missing from run ${m.missing})`
  );
}

/** The run as a TREC run file: `qid Q0 docid rank score tag`, one line a retrieved document. */
export function trecRunText(run: ReadonlyMap<string, readonly Retrieved[]>, tag: string): string {
  const lines: string[] = [];
  for (const [queryId, retrieved] of run) {
    retrieved.forEach((r, i) => {
      lines.push(`${queryId} Q0 ${r.docId} ${i + 1} ${r.score.toFixed(6)} ${tag}`);
    });
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
