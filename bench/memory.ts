// The working-memory path, measured in a fresh process: gather + slice + render for a team of N entries,
// over a fixed mix of asks that each name a query and a project (so all three reads run and pools approach
// 600 candidates), and the pure slice alone. Prints one JSON line. Run by bench/run.ts, which alternates:
//   tsx bench/memory.ts floor <entries> <rounds>   the floor: the three reads as plain statements
//   tsx bench/memory.ts path <entries> <rounds>    memoria's gather + slice + render
//
// The floor is the same three reads issued as plain statements against a plain copy of the same rows (the
// same tables and indexes, filled oldest first) in the same process: what the engine costs to hand over the
// pool, with none of memoria's code around it. Each runs in its own process, so neither shares caches or
// heap with the other. The memory path is reported as a ratio to it.

import { IndexDatabase } from "../src/index/engine.js";
import { EntryIndex } from "../src/index/entry-index.js";
import { matchQuery } from "../src/index/query.js";
import { renderBlock } from "../src/memory/block.js";
import { DEFAULT_BUDGET, POOL_LIMIT } from "../src/memory/constants.js";
import { gather } from "../src/memory/gather.js";
import { slice } from "../src/memory/slice.js";
import { askMix, generateEntries } from "./entries.js";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

function floorDatabase(entries: ReturnType<typeof generateEntries>) {
  const db = new IndexDatabase(":memory:");
  db.exec(`CREATE TABLE meta (rowid INTEGER PRIMARY KEY, id TEXT, created_at TEXT, project TEXT, type TEXT,
      title TEXT, impact TEXT, body TEXT);
    CREATE INDEX newest ON meta (created_at, id);
    CREATE INDEX of_project ON meta (project, created_at, id);
    CREATE VIRTUAL TABLE text USING fts5(title, impact, body, content = 'meta', content_rowid = 'rowid',
      tokenize = 'porter unicode61');`);
  const meta = db.prepare("INSERT INTO meta VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  const text = db.prepare("INSERT INTO text (rowid, title, impact, body) VALUES (?, ?, ?, ?)");
  const sorted = [...entries].sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0,
  );
  db.transaction(() => {
    sorted.forEach((e, i) => {
      meta.run(i + 1, e.id, e.createdAt, e.project, e.type, e.title, e.impact, e.body);
      text.run(i + 1, e.title, e.impact, e.body);
    });
  })();
  db.exec("INSERT INTO text (text) VALUES ('optimize')");
  const columns = "id, created_at, project, type, title, impact";
  const reads = {
    newest: db.prepare(`SELECT ${columns} FROM meta ORDER BY created_at DESC, id DESC LIMIT ?`),
    project: db.prepare(
      `SELECT ${columns} FROM meta WHERE project = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    match: db.prepare(
      `SELECT ${columns} FROM (SELECT rowid, rank FROM text WHERE text MATCH ? ORDER BY rank, rowid DESC LIMIT ?) r
       CROSS JOIN meta m ON m.rowid = r.rowid`,
    ),
  };
  return { db, reads };
}

const [mode = "path", count = "100000", roundsText = "3"] = process.argv.slice(2);
const entries = generateEntries(Number(count));
const asks = askMix();
const rounds = Number(roundsText);

/** Runs every ask `rounds` times after one warm-up pass, timing each with `ask`. */
function run(ask: (a: (typeof asks)[number]) => void): number[] {
  for (const a of asks) ask(a);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const a of asks) {
      const t = performance.now();
      ask(a);
      times.push(performance.now() - t);
    }
  }
  return times;
}

if (mode === "floor") {
  const floor = floorDatabase(entries);
  const times = run((a) => {
    floor.reads.newest.all(POOL_LIMIT);
    floor.reads.match.all(matchQuery(a.query).expression, POOL_LIMIT);
    floor.reads.project.all(a.project, POOL_LIMIT);
  });
  floor.db.close();
  console.log(JSON.stringify({ ...stats(times), asks: times.length }));
} else {
  const index = new EntryIndex();
  const BATCH = 1024;
  for (let i = 0; i < entries.length; i += BATCH) index.apply(entries.slice(i, i + BATCH));
  // As a build does once it has loaded every entry.
  index.optimize();
  const gathers: number[] = [];
  const slices: number[] = [];
  let candidates = 0;
  let included = 0;
  const times = run((a) => {
    const t = performance.now();
    const pool = gather(index, { query: a.query, project: a.project });
    const s = performance.now();
    const result = slice(pool.entries, { matched: pool.matched, project: a.project, budget: DEFAULT_BUDGET });
    slices.push(performance.now() - s);
    gathers.push(s - t);
    renderBlock(result);
    candidates += result.candidates;
    included += result.included;
  });
  index.close();
  const g = stats(gathers);
  const sl = stats(slices);
  console.log(
    JSON.stringify({
      ...stats(times),
      asks: times.length,
      gatherP50: g.p50,
      gatherP99: g.p99,
      sliceP50: sl.p50,
      sliceP99: sl.p99,
      candidatesPerAsk: candidates / slices.length,
      includedPerAsk: included / slices.length,
      rssMiB: process.memoryUsage().rss / 1024 / 1024,
    }),
  );
}
