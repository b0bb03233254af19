// Searches one connection to a team's passage database: the ranking, pruning, feedback and snippets of a
// search, everything read inside one read transaction, so a search never sees half of a write. The main
// thread's index searches its own connection through one of these, and each search thread its own reader
// connection: the same code both ways, so both answer alike to the last bit
// (docs/decisions/0044-search-threads.md).

import type { IndexDatabase, IndexStatement } from "../engine.js";
import { type MatchQuery, orExpression } from "../query.js";
import { ColumnSizes } from "../ranking/column-sizes.js";
import type { ExpansionTerm, FeedbackParameters } from "../ranking/feedback.js";
import { FeedbackRescoring } from "../ranking/feedback-rescoring.js";
import { ranksWhole } from "../ranking/prune.js";
import {
  canonicalOrder,
  prunedRanking,
  type RankedRow,
  type RowTermCounts,
} from "../ranking/pruned-ranking.js";
import { TermTable } from "../ranking/term-table.js";
import { SnippetTable } from "../snippets/snippet-table.js";
import { InflatedBlocks } from "./inflated-blocks.js";
import { type PassageHit, TRAIL_SEPARATOR, titleColumnText } from "./passage-document.js";
import { hitsSql, rankByRowidSql, rankSql, rankWithTiesSql, stateSql } from "./passage-layout.js";
import type { StoredPassage, TextBlock } from "./passage-text.js";
import { contractOrder, type DocumentShown, type StoredHit } from "./stored-hit.js";

// How many passages a quoted term matches: bm25()'s own document count for the phrase, which pruning's
// bounds need. It counts what the query matches: the term stemmed as FTS5 stems a query (feedback counts a
// stored token itself, through an fts5vocab table: see FeedbackRescoring).
const termCountSql = "SELECT count(*) AS n FROM passages WHERE passages MATCH ?";

/**
 * A query whose terms match this many rows a result or fewer, summed, is ranked by its full expression in one
 * statement: up to there, pruning's threshold list and partial lists (two to four statements, each scoring
 * its own rows) cost more than FTS5 walking every matched row once. Its answer is the one pruning gives, to
 * the bit: the same expression in the same canonical order, which is pruning's own fallback. Measured on
 * SQLite 3.53 (bench/rare-terms.ts: 20,024 passages of Debian's manuals, limit 20, the real suite's 200
 * two-word questions, 100 of its long ones and 300 of 2–4 words from held-out sentences, both paths
 * alternated in one process, p50 of the whole search, full ÷ pruned): rows summed under 500 0.85×, 500–1,000
 * 0.83×, 1,000–1,500 0.84×, then 0.98× in each band of 500 to 3,000, 3,000–4,000 1.14×, past 4,000 1.80×. So
 * the full expression wins up to 1,500 rows, the two are even to 3,000 and pruning wins past it: 100 a result
 * (2,000 rows at 20 hits) stops inside the even band. On libSQL's SQLite 3.45 they were even at ~500
 * (docs/decisions/0090-rare-terms-bound-on-3.53.md, amending 0057). Measured again once a rarer word's
 * threshold list stood in for the NOT list (0091): 0.77–0.89× under 1,500, 1.02–1.07× from 1,500 to 2,000, so
 * the crossing moved down to 1,500–2,000 rows and 100 a result still stops at it.
 */
export const FULL_RANKING_ROWS_PER_LIMIT = 100;
// Whether an expression matches any row: FTS5 stops at the first, and scores none (pruning's NEAR check).
const anyRowSql = "SELECT 1 FROM passages WHERE passages MATCH ? LIMIT 1";

/** What passage_state holds; before the first write there is no row, and an empty index reads as zeros. */
interface IndexState {
  passages: number;
  unordered: number;
  generation: number;
}

export class PassageSearcher {
  readonly #db: IndexDatabase;
  readonly #rank: IndexStatement;
  readonly #rankWithTies: IndexStatement;
  readonly #rankByRowid: IndexStatement;
  readonly #hits: IndexStatement;
  readonly #termCount: IndexStatement;
  readonly #anyRow: IndexStatement;
  readonly #state: IndexStatement;
  readonly #snippets: SnippetTable;
  readonly #inflated = new InflatedBlocks();
  /** Feedback's rescoring, or null when it is off. */
  readonly #feedback: FeedbackRescoring | null;
  /**
   * Exact passage counts of query terms at #generation, forgotten when the generation moves on. Counts kept
   * across writes as lower bounds were tried (they spare the first search after a write ~1.2 ms p50 of
   * recounting at 20k passages) and given up: pruning's split, and with it the order in which a score's
   * shares are summed, then depended on the index's history, so the same data could answer a restarted
   * server with scores different in the last bits, and feedback could weigh its words differently.
   */
  readonly #exactCounts = new Map<string, number>();
  readonly #terms: TermTable;
  readonly #columnSizes: ColumnSizes;
  /** The state the current read transaction sees (read first in every search). */
  #current: IndexState = { passages: 0, unordered: 0, generation: -1 };

  /** Rows summed per result up to which a query skips pruning (FULL_RANKING_ROWS_PER_LIMIT). */
  readonly #fullRankingRowsPerLimit: number;

  /**
   * `db` is a connection to a passage database whose tables exist (passage-index.ts creates them).
   * `fullRankingRowsPerLimit`: FULL_RANKING_ROWS_PER_LIMIT but in the tests and the bench that hold or time
   * pruning against the full expression through find().
   */
  constructor(
    db: IndexDatabase,
    feedback: FeedbackParameters | null = null,
    fullRankingRowsPerLimit = FULL_RANKING_ROWS_PER_LIMIT,
  ) {
    this.#db = db;
    this.#fullRankingRowsPerLimit = fullRankingRowsPerLimit;
    this.#rank = db.prepare(rankSql);
    this.#rankWithTies = db.prepare(rankWithTiesSql);
    this.#rankByRowid = db.prepare(rankByRowidSql);
    this.#hits = db.prepare(hitsSql);
    this.#termCount = db.prepare(termCountSql);
    this.#anyRow = db.prepare(anyRowSql);
    this.#state = db.prepare(stateSql);
    this.#snippets = new SnippetTable(db);
    const terms = new TermTable(db);
    const columnSizes = new ColumnSizes(db, "passages");
    this.#terms = terms;
    this.#columnSizes = columnSizes;
    this.#feedback = feedback
      ? new FeedbackRescoring(db, feedback, {
          rank: (query, count) => this.#rankQuery(query, count),
          stored: (rowids) => this.#storedPassages(rowids),
          terms,
          columnSizes,
        })
      : null;
  }

  /**
   * Answers a query as its full expression would, without scoring the passages that can only hold terms too
   * weak to reach the top `limit` (pruned-ranking.ts; docs/decisions/0022-long-query-pruning.md). With
   * feedback, the first pass's best candidates are scored again with the expansion (feedback-rescoring.ts;
   * docs/decisions/0027-feedback-rescoring.md, 0036-feedback-by-length.md). Snippets highlight with what was
   * typed.
   */
  find(query: MatchQuery, limit: number): PassageHit[] {
    return this.#reading(() => {
      const rescored = this.#feedback?.rescore(query, limit, this.#current.passages) ?? null;
      // Highlighted with what the person typed: the expansion words rank, but nobody asked for them.
      if (rescored) return this.#answer(rescored.rows, query.expression, rescored.stored);
      // Every row ranked by the query's own phrases matches them, which the snippets in JS rely on.
      const matched = query.expression === orExpression(query.terms, query.terms) ? query.terms : undefined;
      return this.#answer(this.#rankQuery(query, limit), query.expression, undefined, matched);
    });
  }

  /**
   * The words pseudo-relevance feedback adds to `query` (feedback.ts): drawn from the query's best passages,
   * none when feedback is off, the index is small, the question is short or no word qualifies.
   */
  expansionOf(query: MatchQuery): ExpansionTerm[] {
    return this.#reading(() => this.#feedback?.expansionOf(query, this.#current.passages) ?? []);
  }

  /**
   * Runs one FTS5 expression. `highlight` is the expression whose matches the snippets mark (by default the
   * same one), so a search that ranked with fewer terms still highlights every word the person typed.
   */
  search(expression: string, limit: number, highlight = expression): PassageHit[] {
    return this.#reading(() => this.#answer(this.#rankExpression(expression, limit), highlight));
  }

  /**
   * Runs `read` in one read transaction, after reading the state it sees: a write commits whole or not at
   * all between two searches, never inside one. A new generation forgets the counts taken at the old one.
   */
  #reading<T>(read: () => T): T {
    return this.#db.transaction(() => {
      const row = this.#state.get() as IndexState | undefined;
      const state = row ?? { passages: 0, unordered: 0, generation: 0 };
      if (state.generation !== this.#current.generation) {
        this.#exactCounts.clear();
        this.#feedback?.forgetCounts();
      }
      this.#current = { passages: state.passages, unordered: state.unordered, generation: state.generation };
      return read();
    })();
  }

  #exactCount(term: string): number {
    let n = this.#exactCounts.get(term);
    if (n === undefined) {
      n = (this.#termCount.get(`"${term}"`) as { n: number }).n;
      this.#exactCounts.set(term, n);
    }
    return n;
  }

  /**
   * The query's top `limit` rows as its full expression (its terms ORed and the NEAR group of them all) ranks
   * them, pruned (pruned-ranking.ts; docs/decisions/0022-long-query-pruning.md).
   */
  #rankQuery(query: MatchQuery, limit: number): RankedRow[] {
    if (query.expression === "") return [];
    const terms = query.terms;
    if (terms.length < 2) return this.#rankExpression(orExpression(terms, terms), limit);
    const counts = new Map(terms.map((t) => [t, this.#exactCount(t)]));
    // Pruning merges lists by rowid for ties, which is the contract's order only while every document's rowids
    // are ordered (rowids.ts); until a rebuild restores that, the full expression answers. Its phrases in
    // pruning's order, so the scores are the ones a pruned search of the same data gives, to the last bit.
    // Few rows a result (ranksWhole): pruning would cost more than it saves.
    const whole = ranksWhole(counts, limit, this.#fullRankingRowsPerLimit);
    if (this.#current.unordered > 0 || whole) {
      const ordered = canonicalOrder(terms, counts);
      return this.#rankExpression(orExpression(ordered, ordered), limit);
    }
    return prunedRanking(terms, limit, {
      rank: (expression, n) => this.#rankByRowid.all(expression, n) as RankedRow[],
      matchingAtLeast: (term) => this.#exactCount(term),
      matchesAny: (expression) => this.#anyRow.get(expression) !== undefined,
      passages: this.#current.passages,
      termCounts: (rowids, words) => this.#termCounts(rowids, words),
    });
  }

  /** What bm25() reads of some rows for some one-token terms: pruning adds the clamped shares with it. */
  #termCounts(rowids: readonly number[], words: readonly string[]): RowTermCounts | null {
    const frequencies = this.#terms.frequenciesOf(this.#storedPassages(rowids), words);
    if (frequencies === null) return null;
    return { ...this.#columnSizes.averages(), lengths: this.#columnSizes.lengths(rowids), frequencies };
  }

  /** One expression's top `limit` rows in the contract's order (score, then document id, then ordinal). */
  #rankExpression(expression: string, limit: number): RankedRow[] {
    if (expression === "") return [];
    let ranked: RankedRow[];
    if (this.#current.unordered === 0) {
      ranked = this.#rankByRowid.all(expression, limit) as RankedRow[];
    } else {
      ranked = this.#rank.all(expression, limit + 1) as RankedRow[];
      if (ranked.length > limit) {
        ranked =
          ranked[limit]?.rank === ranked[limit - 1]?.rank
            ? (this.#rankWithTies.all(expression, limit) as RankedRow[])
            : ranked.slice(0, limit);
      }
    }
    return ranked;
  }

  /**
   * The hits for ranked rows: their stored columns (`stored`, when the caller has read them already), snippets
   * marking what `highlight` matches, sorted. `matchedTerms`: the rows all match orExpression of these terms,
   * which is `highlight` (SnippetTable.cut).
   */
  #answer(
    ranked: readonly RankedRow[],
    highlight: string,
    stored: readonly StoredHit[] = this.#storedPassages(ranked.map((r) => r.rowid)),
    matchedTerms?: readonly string[],
  ): PassageHit[] {
    if (ranked.length === 0) return [];
    const snippets = this.#snippets.cut(stored, highlight, matchedTerms);
    const hits = ranked.map((row, i): PassageHit => {
      const detail = stored[i];
      return {
        chunkId: detail?.chunkId ?? "",
        documentId: detail?.documentId ?? "",
        ordinal: detail?.ordinal ?? 0,
        title: detail?.document?.title ?? "",
        heading: detail?.heading ?? "",
        path: detail?.document?.path ?? [],
        snippet: snippets[i] ?? "",
        score: -row.rank,
      };
    });
    return hits.sort((a, b) => b.score - a.score || contractOrder(a, b));
  }

  /**
   * What a hit shows of each passage, in the given order: its row, its own passage of its block's text (each
   * block inflated once however many of its passages were returned, or kept from an earlier search:
   * inflated-blocks.ts) and its document's title, path and tags (each document parsed once), all read by one
   * statement.
   */
  #storedPassages(rowids: readonly number[]): StoredHit[] {
    const found: (HitRow | undefined)[] = rowids.map(() => undefined);
    for (const row of this.#hits.all(JSON.stringify(rowids)) as HitRow[]) found[row.position] = row;
    const blocks = new Map<number, TextBlock>();
    const documents = new Map<string, DocumentShown | undefined>();
    return rowids.map((rowid, i) => {
      const row = found[i];
      let text: StoredPassage | undefined;
      if (row?.block != null && row.packed != null) {
        let block = blocks.get(row.block);
        if (!block) {
          block = this.#inflated.blockOf(row.block, bytesOf(row.packed));
          blocks.set(row.block, block);
        }
        text = block.passage(rowid - row.block);
      }
      const documentId = row?.document_id ?? "";
      if (!documents.has(documentId)) documents.set(documentId, row ? documentOf(row) : undefined);
      const document = documents.get(documentId);
      return {
        chunkId: text?.chunkId ?? "",
        documentId,
        ordinal: row?.ordinal ?? 0,
        document,
        heading: text?.heading ?? "",
        body: text?.body ?? "",
        title: document ? titleColumnText(document.title, document.tags) : "",
        path: document?.path.join(TRAIL_SEPARATOR) ?? "",
      };
    });
  }
}

/** One row of hitsSql: null where the hit's row, document or block is missing. */
interface HitRow {
  position: number;
  document_id: string | null;
  ordinal: number | null;
  title: string | null;
  path: string | null;
  tags: string | null;
  block: number | null;
  packed: Uint8Array | ArrayBuffer | null;
}

/** The driver hands a blob back as an ArrayBuffer from all() (a Buffer from get()): viewed, not copied. */
function bytesOf(blob: Uint8Array | ArrayBuffer): Uint8Array {
  return blob instanceof Uint8Array ? blob : new Uint8Array(blob);
}

function documentOf(row: HitRow): DocumentShown | undefined {
  if (row.title === null || row.path === null || row.tags === null) return undefined;
  return {
    title: JSON.parse(row.title) as string,
    path: JSON.parse(row.path) as string[],
    tags: JSON.parse(row.tags) as string[],
  };
}
