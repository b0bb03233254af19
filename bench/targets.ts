// The real suite's targets, and the summary the real suite prints at its end: each target, its figure on every
// corpus measured, and whether it is met. A target is judged on the largest real corpus of the run (the
// Debian manuals at 20,000 passages and more), since the issue asks for every figure on real text at that
// size; the other corpora's figures stand beside it, each with its own verdict, for comparison.

/** The figures of one corpus a target can be read from; NaN where the run did not measure it. */
export interface CorpusFigures {
  corpus: string;
  real: boolean;
  passages: number;
  /** Long questions over HTTP, p50 and p99, each ÷ the plain FTS5 OR floor's of the same questions. */
  longP50Ratio: number;
  longP99Ratio: number;
  /** Short questions over HTTP, milliseconds. */
  shortP50Ms: number;
  shortP99Ms: number;
  /**
   * Server RSS after the documents went in through the batch route and 300 long questions, less the empty
   * server's, ÷ the bytes of text.
   */
  rssPerTextByte: number;
  /** The same after a restart over the same database: the index built on the first search, then 300 questions. */
  rssPerTextByteRestarted: number;
  /** Searches a second at 8 connections ÷ at 1. */
  scaling8: number;
  /** Another team's search p99 while one team floods with 64 connections, milliseconds. */
  otherTeamP99Ms: number;
}

export type FigureKey = Exclude<keyof CorpusFigures, "corpus" | "real" | "passages">;

export interface Target {
  /** The item number and what it asks, in a few words. */
  item: string;
  figure: FigureKey;
  bound: "at most" | "at least" | "under";
  limit: number;
  unit: "×" | " ms" | " B/B";
}

export const SUITE_TARGETS: readonly Target[] = [
  {
    item: "2. long questions p50 ÷ FTS5 OR floor",
    figure: "longP50Ratio",
    bound: "at most",
    limit: 0.6,
    unit: "×",
  },
  {
    item: "2. long questions p99 ÷ FTS5 OR floor",
    figure: "longP99Ratio",
    bound: "at most",
    limit: 0.6,
    unit: "×",
  },
  { item: "3. short questions p50 over HTTP", figure: "shortP50Ms", bound: "at most", limit: 3, unit: " ms" },
  {
    item: "3. short questions p99 over HTTP",
    figure: "shortP99Ms",
    bound: "at most",
    limit: 10,
    unit: " ms",
  },
  {
    item: "4. RSS a byte of text, built through the batch route",
    figure: "rssPerTextByte",
    bound: "at most",
    limit: 3,
    unit: " B/B",
  },
  {
    item: "4. RSS a byte of text, built at a restart",
    figure: "rssPerTextByteRestarted",
    bound: "at most",
    limit: 3,
    unit: " B/B",
  },
  { item: "5. 8 connections ÷ 1, searches/s", figure: "scaling8", bound: "at least", limit: 1.8, unit: "×" },
  {
    item: "6. other team's p99 under a flood",
    figure: "otherTeamP99Ms",
    bound: "under",
    limit: 250,
    unit: " ms",
  },
];

export type Verdict = "met" | "not met" | "not measured";

export function verdict(target: Target, value: number): Verdict {
  if (!Number.isFinite(value)) return "not measured";
  switch (target.bound) {
    case "at most":
      return value <= target.limit ? "met" : "not met";
    case "at least":
      return value >= target.limit ? "met" : "not met";
    case "under":
      return value < target.limit ? "met" : "not met";
  }
}

/** The corpus a target is judged on: the real one of the most passages; null if the run measured none. */
export function judgedCorpus(figures: readonly CorpusFigures[]): CorpusFigures | null {
  const real = figures.filter((f) => f.real);
  if (real.length === 0) return null;
  return real.reduce((best, f) => (f.passages > best.passages ? f : best));
}

export interface SummaryRow {
  target: Target;
  /** Per corpus, in the order given: its figure and its verdict. */
  cells: { corpus: string; value: number; verdict: Verdict }[];
  /** The judged corpus's verdict: the row's answer. */
  verdict: Verdict;
}

export function summarize(
  figures: readonly CorpusFigures[],
  targets: readonly Target[] = SUITE_TARGETS,
): SummaryRow[] {
  const judged = judgedCorpus(figures);
  return targets.map((target) => ({
    target,
    cells: figures.map((f) => ({
      corpus: f.corpus,
      value: f[target.figure],
      verdict: verdict(target, f[target.figure]),
    })),
    verdict: judged ? verdict(target, judged[target.figure]) : "not measured",
  }));
}

function shown(value: number, unit: Target["unit"]): string {
  if (!Number.isFinite(value)) return "–";
  return `${value.toFixed(unit === " ms" ? 1 : 2)}${unit}`;
}

/** The summary as a markdown table: one row a target, one column a corpus, the verdict on the judged one. */
export function formatSummary(figures: readonly CorpusFigures[], rows: readonly SummaryRow[]): string[] {
  const judged = judgedCorpus(figures);
  const names = figures.map((f) => `${f.corpus} (${f.passages.toLocaleString("en")} passages)`);
  const lines = [
    `| target | ${names.join(" | ")} | target | on ${judged?.corpus ?? "real text"} |`,
    `|---|${names.map(() => "---|").join("")}---|---|`,
  ];
  for (const row of rows) {
    const cells = row.cells.map((c) => `${shown(c.value, row.target.unit)} (${c.verdict})`);
    const limit = `${row.target.bound} ${shown(row.target.limit, row.target.unit)}`;
    lines.push(`| ${row.target.item} | ${cells.join(" | ")} | ${limit} | **${row.verdict}** |`);
  }
  return lines;
}
