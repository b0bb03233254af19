// Feedback's orchestration over one passage index: when it acts, the first pass it rescores, the expansion
// words it draws from that pass's best passages (feedback.ts, through the scratch term table), and the
// candidates scored again with them by FTS5's own bm25 arithmetic. The index hands over its first pass and its
// stored passages; this file owns nothing of its storage but a vocabulary view for the expansion words'
// counts. docs/decisions/0027-feedback-rescoring.md, 0036-feedback-by-length.md.

import type { IndexDatabase, IndexStatement } from "../engine.js";
import { contractOrder, type StoredHit } from "../passages/stored-hit.js";
import type { MatchQuery } from "../query.js";
import type { ColumnSizes } from "./column-sizes.js";
import { type ExpansionTerm, expansionTerms, type FeedbackParameters, feedbackScore } from "./feedback.js";
import type { RankedRow } from "./pruned-ranking.js";
import type { TermTable } from "./term-table.js";

/** What the rescoring needs of its index. */
export interface FeedbackSource {
  /** The query's first pass: its top `count` rows as the index ranks them. */
  rank(query: MatchQuery, count: number): RankedRow[];
  /** What a hit shows of each row, in the order given. */
  stored(rowids: readonly number[]): StoredHit[];
  terms: TermTable;
  columnSizes: ColumnSizes;
}

/** Rows in their answer's order, with what a hit shows of each. */
export interface Rescored {
  rows: RankedRow[];
  stored: StoredHit[];
}

export class FeedbackRescoring {
  readonly #p: FeedbackParameters;
  readonly #source: FeedbackSource;
  /** Passage counts of feedback's tokens (#tokenCount), forgotten on every change to the index. */
  readonly #tokenCounts = new Map<string, number>();
  readonly #tokenRows: IndexStatement;
  readonly #tokensRows: IndexStatement;

  constructor(db: IndexDatabase, parameters: FeedbackParameters, source: FeedbackSource) {
    this.#p = parameters;
    this.#source = source;
    // In the temp schema: a snapshot copies the main schema's tables, and this one holds nothing of its own.
    db.exec("CREATE VIRTUAL TABLE temp.passage_tokens USING fts5vocab(main, passages, 'row')");
    this.#tokenRows = db.prepare("SELECT doc AS n FROM temp.passage_tokens WHERE term = ?");
    this.#tokensRows = db.prepare(
      "SELECT term, doc AS n FROM temp.passage_tokens WHERE term IN (SELECT value FROM json_each(?))",
    );
  }

  /** The index changed: counts taken before are no longer exact. */
  forgetCounts(): void {
    this.#tokenCounts.clear();
  }

  /**
   * The top `limit` rows with feedback, in the contract's order; null when feedback does not act here (the
   * index below minCorpus `passages`, the question under minQueryTerms words, no limit), and the caller's own
   * ranking answers.
   */
  rescore(query: MatchQuery, limit: number, passages: number): Rescored | null {
    const p = this.#p;
    if (!this.#acts(query, passages) || limit < 1) return null;
    const { candidates, stored, expansion, frequencies } = this.#pass(
      query,
      Math.max(limit, p.candidates),
      passages,
    );
    // bm25()'s N and avgD, from the record bm25() reads them from; an empty average means no tokens at all.
    const { rows, averageLength } = this.#source.columnSizes.averages();
    if (expansion.length === 0 || !(averageLength > 0)) {
      return { rows: candidates.slice(0, limit), stored: stored.slice(0, limit) };
    }
    const lengths = this.#source.columnSizes.lengths(candidates.map((row) => row.rowid));
    const corpus = {
      passages: rows,
      averageLength,
      passagesWith: (token: string) => this.#tokenCount(token),
    };
    const rescored = candidates.map((row, i) => ({
      row: {
        rowid: row.rowid,
        rank: -feedbackScore(
          { score: -row.rank, length: lengths.get(row.rowid) ?? 0, frequencies: frequencies[i] ?? new Map() },
          expansion,
          corpus,
          p,
        ),
      },
      stored: stored[i] as StoredHit,
    }));
    rescored.sort((a, b) => a.row.rank - b.row.rank || contractOrder(a.stored, b.stored));
    const top = rescored.slice(0, limit);
    return { rows: top.map((r) => r.row), stored: top.map((r) => r.stored) };
  }

  /** The words feedback adds to `query`: none when it does not act or no word qualifies. */
  expansionOf(query: MatchQuery, passages: number): ExpansionTerm[] {
    if (!this.#acts(query, passages)) return [];
    return this.#pass(query, this.#p.passages, passages).expansion;
  }

  /** Checked before the first pass, which would otherwise run for nothing: a big enough index, a long enough question. */
  #acts(query: MatchQuery, passages: number): boolean {
    return this.#p.minCorpus <= passages && query.terms.length >= Math.max(1, this.#p.minQueryTerms);
  }

  /**
   * The first pass's top `count` passages in the contract's order, with what a hit shows of them, the
   * expansion drawn from the best few, and each candidate's frequency of every expansion word.
   */
  #pass(query: MatchQuery, count: number, passages: number) {
    const p = this.#p;
    const first = this.#source.rank(query, count);
    if (first.length === 0) return { candidates: [], stored: [], expansion: [], frequencies: [] };
    const read = this.#source.stored(first.map((row) => row.rowid));
    // The contract's order, ties by document and ordinal, before the best few are taken: a tie at the cut
    // must pick the same passages whatever the index's history.
    const pairs = first.map((row, i) => ({ row, stored: read[i] as StoredHit }));
    pairs.sort((a, b) => a.row.rank - b.row.rank || contractOrder(a.stored, b.stored));
    const candidates = pairs.map((pair) => pair.row);
    const stored = pairs.map((pair) => pair.stored);
    const { chosen, frequencies } = this.#source.terms.read(
      stored,
      query.terms,
      p.passages,
      (counts, stems) => {
        this.#countTokens(counts.flatMap((termCounts) => [...termCounts.keys()]));
        return expansionTerms(
          counts.map((termCounts, i) => ({ score: -(candidates[i]?.rank ?? 0), termCounts })),
          stems,
          (token) => this.#tokenCount(token),
          passages,
          p,
        );
      },
    );
    return { candidates, stored, expansion: chosen, frequencies };
  }

  /**
   * Counts every token of `tokens` not counted yet, in one statement: the expansion weighs each token of the
   * feedback passages (~150–250), and one statement a token cost 6–12 ms for 150 new tokens on 20k passages of
   * real manuals at a load average of 8, one statement for them all 3–4.5 ms, the same counts
   * (docs/decisions/0060-token-counts-at-once.md). Tokens no passage holds count 0.
   */
  #countTokens(tokens: readonly string[]): void {
    const uncounted = [...new Set(tokens)].filter((token) => !this.#tokenCounts.has(token));
    if (uncounted.length === 0) return;
    for (const token of uncounted) this.#tokenCounts.set(token, 0);
    for (const row of this.#tokensRows.all(JSON.stringify(uncounted)) as { term: string; n: number }[]) {
      this.#tokenCounts.set(row.term, row.n);
    }
  }

  /**
   * Passages holding `token` itself, a token as FTS5 stores it. Not a quoted term's count: a quoted term is
   * stemmed again, and porter is not idempotent ("dimensional" is stored as "dimension", which a query stems
   * to "dimens"), so an expansion word's count must come from the token's own postings.
   */
  #tokenCount(token: string): number {
    let n = this.#tokenCounts.get(token);
    if (n === undefined) {
      n = (this.#tokenRows.get(token) as { n: number } | undefined)?.n ?? 0;
      this.#tokenCounts.set(token, n);
    }
    return n;
  }
}
