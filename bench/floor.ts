/**
 * "The floor": how long the bare engine takes to index the corpus's plaintext, with nothing of ours in the
 * way — one fresh in-memory FTS5 table, one transaction, one prepared insert reused for every passage. No
 * real index build can be faster, so benchmarks report their times against this one.
 */
import { createRequire } from "node:module";
import { IndexDatabase } from "../src/index/engine.js";
import { queryTerms } from "../src/index/query.js";
import type { CorpusPassage } from "./corpus.js";

/**
 * The package a bench worker thread requires to build the floor as this file does: the indexes' own engine
 * (src/index/engine.ts), node:sqlite's API, so the floor and memoria run the same SQLite.
 */
export const FLOOR_ENGINE = createRequire(import.meta.url).resolve("@photostructure/sqlite");

/** The same table shape and tokenizer as the search index, so the engine does the same work per passage. */
export const CREATE_TABLE = `CREATE VIRTUAL TABLE passages USING fts5(heading, body, title, path, chunk_id UNINDEXED, document_id UNINDEXED, ordinal UNINDEXED, tokenize = 'porter unicode61')`;

export const INSERT =
  "INSERT INTO passages (heading, body, title, path, chunk_id, document_id, ordinal) VALUES (?, ?, ?, ?, ?, ?, ?)";

type Row = [string, string, string, string, string, string, number];

/**
 * Identifier columns are not part of the plaintext, so they are made up here: a new document starts whenever
 * title or path changes (as generated documents are contiguous), and ordinal counts sections within it.
 */
export function floorRows(passages: readonly CorpusPassage[]): Row[] {
  const result: Row[] = [];
  let documentIndex = -1;
  let ordinal = 0;
  let previous: CorpusPassage | undefined;
  for (const [i, p] of passages.entries()) {
    if (previous === undefined || previous.title !== p.title || previous.path !== p.path) {
      documentIndex++;
      ordinal = 0;
    }
    result.push([p.heading, p.body, p.title, p.path, `chunk-${i}`, `doc-${documentIndex}`, ordinal++]);
    previous = p;
  }
  return result;
}

export function measureFloor(passages: readonly CorpusPassage[]): { ms: number } {
  // Building the parameter rows is our bookkeeping, not the engine's work, so it happens before the clock.
  const params = floorRows(passages);
  const start = performance.now();
  // Opening the database and creating the table are part of a fresh index build, so they are timed too.
  const db = new IndexDatabase(":memory:");
  try {
    db.exec(CREATE_TABLE);
    const insert = db.prepare(INSERT);
    db.transaction(() => {
      for (const row of params) insert.run(...row);
    })();
    const ms = performance.now() - start;
    return { ms };
  } finally {
    db.close();
  }
}

/**
 * The plain FTS5 OR of a query's terms — each term quoted, ORed, ranked by FTS5's bm25, top 20 — the least
 * any engine over this table must do to answer it. memoria's own expression adds a NEAR group and drops
 * terms found in half of all passages; this one does neither.
 */
export function plainOrExpression(query: string): string {
  return queryTerms(query)
    .map((term) => `"${term}"`)
    .join(" OR ");
}

/** The floor's search: the plain OR's top `limit` by FTS5's own bm25 rank. */
export const SEARCH = "SELECT chunk_id, rank FROM passages WHERE passages MATCH ? ORDER BY rank LIMIT ?";

/** Top-k of every search the bench times, memoria's and the peers' alike. */
export const SEARCH_LIMIT = 20;

/**
 * The floor's table: the passages loaded as measureFloor loads them, then merged into one segment. `filename`
 * is where (a private `:memory:` database by default; a named memdb database that other threads can open,
 * bench/engine-threads.ts).
 */
export function loadedQueryFloor(passages: readonly CorpusPassage[], filename = ":memory:") {
  const db = new IndexDatabase(filename);
  db.exec(CREATE_TABLE);
  const insert = db.prepare(INSERT);
  const params = floorRows(passages);
  db.transaction(() => {
    for (const row of params) insert.run(...row);
  })();
  db.exec("INSERT INTO passages (passages) VALUES ('optimize')");
  const search = db.prepare(SEARCH);
  return { db, search };
}

/**
 * The floor's table filled a passage at a time (one transaction, as `loadedQueryFloor`), then merged; for a
 * process that reads passages as they arrive and must not hold them all at once (bench/peers.ts).
 */
export function growingQueryFloor(): {
  add(passage: CorpusPassage): void;
  /** Commits, merges, and answers a question with the plain OR. */
  done(): (question: string) => unknown[];
} {
  const db = new IndexDatabase(":memory:");
  db.exec(CREATE_TABLE);
  const insert = db.prepare(INSERT);
  db.exec("BEGIN");
  let i = 0;
  return {
    add(p) {
      // Each passage its own document: ids are not part of the plaintext, and only their size matters here.
      insert.run(p.heading, p.body, p.title, p.path, `chunk-${i}`, `doc-${i}`, 0);
      i++;
    },
    done() {
      db.exec("COMMIT");
      db.exec("INSERT INTO passages (passages) VALUES ('optimize')");
      const search = db.prepare(SEARCH);
      return (question) => search.all(plainOrExpression(question), SEARCH_LIMIT);
    },
  };
}

/** measureQueryFloor's table, kept open for a caller that interleaves it with other engines, question by question. */
export function openQueryFloor(passages: readonly CorpusPassage[]): {
  /** Milliseconds the floor took to answer `question`. */
  time(question: string): number;
  /**
   * What the plain OR of `question` must walk, by FTS5's own tokenizer and stemmer: each term's posting
   * list length (passages holding it), in the question's order, and the passages the OR matches.
   */
  lists(question: string): { terms: number; lengths: number[]; matched: number };
  close(): void;
} {
  const { db, search } = loadedQueryFloor(passages);
  const count = db.prepare("SELECT count(*) AS n FROM passages WHERE passages MATCH ?");
  const matching = (expression: string) => Number((count.get(expression) as { n: number }).n);
  // A term's list is counted once: questions share their common words, and those lists are the long ones.
  const lengths = new Map<string, number>();
  const listLength = (term: string) => {
    const known = lengths.get(term);
    if (known !== undefined) return known;
    const n = matching(`"${term}"`);
    lengths.set(term, n);
    return n;
  };
  return {
    time(question) {
      const expression = plainOrExpression(question);
      const t = performance.now();
      search.all(expression, SEARCH_LIMIT);
      return performance.now() - t;
    },
    lists(question) {
      const terms = queryTerms(question);
      return {
        terms: terms.length,
        lengths: terms.map(listLength),
        matched: terms.length === 0 ? 0 : matching(plainOrExpression(question)),
      };
    },
    close: () => db.close(),
  };
}

/**
 * The floor for search: the same plaintext in a fresh :memory: FTS5 table (as measureFloor loads it, then
 * merged into one segment, as memoria's index is once its build settles, so the floor is the engine at its
 * best), and each mix of queries answered by the plain OR expression, in process. Returns every time in ms,
 * one array per mix, in the order given.
 */
export function measureQueryFloor(
  passages: readonly CorpusPassage[],
  mixes: readonly (readonly string[])[],
  rounds: number,
): number[][] {
  const { db, search } = loadedQueryFloor(passages);
  try {
    return mixes.map((queries) => {
      const expressions = queries.map(plainOrExpression);
      const times: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const expression of expressions) {
          const t = performance.now();
          search.all(expression, SEARCH_LIMIT);
          times.push(performance.now() - t);
        }
      }
      return times;
    });
  } finally {
    db.close();
  }
}
