// `npx tsx bench/rare-terms.ts [passages] [rounds]`: where a question's full expression, run as one statement,
// costs less than pruning it (FULL_RANKING_ROWS_PER_LIMIT in src/index/passages/passage-searcher.ts), on real text
// (Debian's manuals, bench/debian-docs.ts), in one process. Two indexes hold the same passages: one prunes
// every question of two terms or more, the other ranks every question by its full expression; each question is
// asked of both in turn, the first of the two alternating by round, so load moves both alike. The questions
// are the real suite's two-word ones and some of its long ones (bench/real-corpora.ts), and 2–4 words cut from
// held-out sentences, so every commonness is met. They are grouped by the rows their terms match, summed, as
// the searcher sums them, and each group prints its p50 of the whole search on both paths and their ratio.
// Both paths answer the same to the bit (test/index/ranking/prune.test.ts): only their time differs.

import { PassageIndex } from "../src/index/passages/passage-index.js";
import { matchQuery, queryTerms } from "../src/index/query.js";
import { heldOutSentences, indexedDocuments, readDebianManuals } from "./debian-docs.js";
import { loadedQueryFloor, SEARCH_LIMIT } from "./floor.js";
import { MEMORY_QUESTIONS, passagesHolding, passagesOf, QUESTIONS, shortQuestions } from "./real-corpora.js";
import { latency } from "./stats.js";

/** Upper edges of the groups, in rows summed; the last group takes the rest. */
const GROUP_EDGES = [500, 1000, 1500, 2000, 2500, 3000, 4000];
/** Questions cut from held-out sentences, beside the suite's: enough for each group to hold a dozen or more. */
const CUT_QUESTIONS = 300;
/** The suite's long questions taken: they are nearly all past the last edge, where pruning's gain is plain. */
const LONG_QUESTIONS = 100;

export function benchRareTerms(passages: number, rounds: number): void {
  const manuals = readDebianManuals(passages);
  const documents = indexedDocuments(manuals);
  const plain = passagesOf(manuals.indexed);
  const short = shortQuestions(
    heldOutSentences(manuals, 4 * QUESTIONS, 6, 40),
    passagesHolding(plain),
    QUESTIONS,
  );
  const long = heldOutSentences(manuals, MEMORY_QUESTIONS).slice(0, LONG_QUESTIONS);
  const cut: string[] = [];
  for (const [i, sentence] of heldOutSentences(manuals, 2 * CUT_QUESTIONS, 6, 40).entries()) {
    const words = queryTerms(sentence.toLowerCase()).filter((w) => w.length > 2);
    const n = 2 + (i % 3);
    if (words.length < n) continue;
    const from = i % (words.length - n + 1);
    cut.push(words.slice(from, from + n).join(" "));
    if (cut.length >= CUT_QUESTIONS) break;
  }

  const pruned = new PassageIndex({ fullRankingRowsPerLimit: 0 });
  const full = new PassageIndex({ fullRankingRowsPerLimit: Number.POSITIVE_INFINITY });
  for (const index of [pruned, full]) {
    index.apply(documents);
    while (index.wholeMergeStep()) {}
  }
  // The rows each term matches as the searcher counts them: the phrase, stemmed as FTS5 stems a query, over
  // the same indexed columns (the floor's table has them).
  const floor = loadedQueryFloor(plain);
  const count = floor.db.prepare("SELECT count(*) AS n FROM passages WHERE passages MATCH ?");
  const rowsOf = (q: string) =>
    matchQuery(q).terms.reduce((sum, t) => sum + (count.get(`"${t}"`) as { n: number }).n, 0);
  const questions = [...new Set([...short, ...long, ...cut])]
    .map((q) => ({ q, match: matchQuery(q), rows: rowsOf(q) }))
    .filter((x) => x.match.terms.length >= 2);
  floor.db.close();

  // Both indexes warm, and every term's count taken (a searcher keeps them until a write).
  for (const { match } of questions) for (const index of [pruned, full]) index.find(match, SEARCH_LIMIT);
  const groups = [...GROUP_EDGES, Number.POSITIVE_INFINITY].map(() => ({
    questions: 0,
    pruned: [] as number[],
    full: [] as number[],
  }));
  const groupOf = (rows: number) => {
    const i = GROUP_EDGES.findIndex((edge) => rows < edge);
    return groups[i < 0 ? GROUP_EDGES.length : i];
  };
  for (const { rows } of questions) {
    const group = groupOf(rows);
    if (group) group.questions++;
  }
  for (let round = 0; round < rounds; round++) {
    for (const { match, rows } of questions) {
      const group = groupOf(rows);
      if (!group) continue;
      const order = round % 2 === 0 ? (["pruned", "full"] as const) : (["full", "pruned"] as const);
      for (const path of order) {
        const index = path === "pruned" ? pruned : full;
        const t = performance.now();
        index.find(match, SEARCH_LIMIT);
        group[path].push(performance.now() - t);
      }
    }
  }
  pruned.close();
  full.close();

  console.log(
    `\nquestions of 2 terms or more — ${documents.reduce((n, d) => n + d.passages.length, 0)} passages of ` +
      `${manuals.packages.length} Debian manuals, ${questions.length} questions × ${rounds} rounds, limit ${SEARCH_LIMIT}, in process`,
  );
  console.log("| rows summed | questions | pruned p50 ms | full expression p50 ms | full ÷ pruned |");
  console.log("|---|---|---|---|---|");
  groups.forEach((group, i) => {
    if (group.questions === 0) return;
    const from = i === 0 ? 0 : GROUP_EDGES[i - 1];
    const to = GROUP_EDGES[i];
    const label = to === undefined ? `${from} and more` : `${from}–${to - 1}`;
    const p = latency(group.pruned).p50;
    const f = latency(group.full).p50;
    console.log(
      `| ${label} | ${group.questions} | ${p.toFixed(3)} | ${f.toFixed(3)} | ${(f / p).toFixed(2)}× |`,
    );
  });
}

benchRareTerms(Number(process.argv[2] ?? 20_000), Number(process.argv[3] ?? 4));
