// gather is the one place working memory decides what to read. EntrySource is its whole view of storage, so
// a plain in-memory implementation over an array is the real interface, not a stand-in for a database: it
// answers each read the way its contract says and records what was asked, so the tests can check which reads
// ran and with what bound.

import { describe, expect, it } from "vitest";
import { type MatchQuery, matchQuery } from "../../src/index/query.js";
import { POOL_LIMIT } from "../../src/memory/constants.js";
import { type MemoryEntry, newerFirst } from "../../src/memory/entry.js";
import { type EntrySource, gather } from "../../src/memory/gather.js";
import { slice } from "../../src/memory/slice.js";

type Read =
  | { read: "newest"; limit: number }
  | { read: "matching"; query: MatchQuery; limit: number }
  | { read: "newestOfProject"; project: string; limit: number };

class ArraySource implements EntrySource<MatchQuery> {
  readonly reads: Read[] = [];

  constructor(
    private readonly entries: readonly MemoryEntry[],
    /** The match read's order, best first; by default titles holding more query terms, then newest. */
    private readonly rankMatches?: (query: MatchQuery) => MemoryEntry[],
  ) {}

  newest(limit: number): MemoryEntry[] {
    this.reads.push({ read: "newest", limit });
    return [...this.entries].sort(newerFirst).slice(0, limit);
  }

  parseQuery(text: string): MatchQuery {
    return matchQuery(text);
  }

  matching(query: MatchQuery, limit: number): MemoryEntry[] {
    this.reads.push({ read: "matching", query, limit });
    if (this.rankMatches) return this.rankMatches(query).slice(0, limit);
    const terms = [...new Set(query.terms.map((t) => t.toLowerCase()))];
    const hits = (e: MemoryEntry) => terms.filter((t) => e.title.toLowerCase().includes(t)).length;
    return this.entries
      .filter((e) => hits(e) > 0)
      .sort((a, b) => hits(b) - hits(a) || newerFirst(a, b))
      .slice(0, limit);
  }

  newestOfProject(project: string, limit: number): MemoryEntry[] {
    this.reads.push({ read: "newestOfProject", project, limit });
    return this.entries
      .filter((e) => e.project === project)
      .sort(newerFirst)
      .slice(0, limit);
  }

  readKinds(): Read["read"][] {
    return this.reads.map((r) => r.read);
  }
}

/** Entry n is created n minutes after the first, so a higher n is newer. */
function entry(n: number, fields: Partial<MemoryEntry> = {}): MemoryEntry {
  return {
    id: `e${String(n).padStart(4, "0")}`,
    createdAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
    project: null,
    type: null,
    title: `entry ${n}`,
    impact: null,
    ...fields,
  };
}

const small = [
  entry(1, { title: "June revenue report", project: "finance" }),
  entry(2, { title: "Office phone number", project: "ops" }),
  entry(3, { title: "Revenue forecast", project: "finance" }),
  entry(4, { title: "Pin vitest" }),
  entry(5, { title: "June offsite", project: "ops" }),
];

describe("gather", () => {
  it("reads only the newest entries when there is no query and no project", () => {
    const source = new ArraySource(small);
    const pool = gather(source, { query: null, project: null });
    expect(source.reads).toEqual([{ read: "newest", limit: POOL_LIMIT }]);
    expect(pool.matched).toEqual([]);
    expect(pool.entries.map((e) => e.id).sort()).toEqual(small.map((e) => e.id).sort());
  });

  it("skips the match read for a query with no letters or digits, which could match nothing", () => {
    for (const query of ["?!", "", "   ", "— …", "🎉"]) {
      const source = new ArraySource(small);
      const pool = gather(source, { query, project: null });
      expect(source.readKinds(), JSON.stringify(query)).toEqual(["newest"]);
      expect(pool.matched).toEqual([]);
    }
  });

  it("skips the project read when there is no project", () => {
    const source = new ArraySource(small);
    gather(source, { query: "june", project: null });
    expect(source.readKinds()).toEqual(["newest", "matching"]);
  });

  it("runs all three reads, each bounded by POOL_LIMIT, when given a query and a project", () => {
    const source = new ArraySource(small);
    gather(source, { query: "revenue", project: "finance" });
    expect(source.readKinds().sort()).toEqual(["matching", "newest", "newestOfProject"]);
    for (const read of source.reads) expect(read.limit).toBe(POOL_LIMIT);
    expect(source.reads.find((r) => r.read === "newestOfProject")).toMatchObject({ project: "finance" });
  });

  it("asks the source with the MatchQuery built from the raw query", () => {
    const raw = "what's June's revenue?";
    const source = new ArraySource(small);
    gather(source, { query: raw, project: null });
    const read = source.reads.find((r) => r.read === "matching");
    expect(read).toEqual({ read: "matching", query: matchQuery(raw), limit: POOL_LIMIT });
  });

  it("holds each entry once, however many reads returned it", () => {
    // Entry 1 is among the newest, matches "june revenue" and is in "finance": three reads return it.
    const source = new ArraySource(small);
    const pool = gather(source, { query: "june revenue", project: "finance" });
    const ids = pool.entries.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(small.map((e) => e.id).sort());
  });

  it("keeps the source's match order, which is the relevance ranking and not recency", () => {
    // The source ranks the oldest entry first and the newest last: gather must not re-sort it.
    const order = [small[0], small[3], small[1], small[4]] as MemoryEntry[];
    const source = new ArraySource(small, () => order);
    const pool = gather(source, { query: "anything", project: null });
    expect(pool.matched).toEqual(["e0001", "e0004", "e0002", "e0005"]);
  });

  it("makes an entry older than the newest POOL_LIMIT a candidate through the match or the project read", () => {
    // 300 entries: the newest read stops at entry 101, so entries 1 and 2 are out of its reach.
    const entries = Array.from({ length: 300 }, (_, i) => entry(i + 1, { title: `routine note ${i + 1}` }));
    entries[0] = entry(1, { title: "Passport renewal process" });
    entries[1] = entry(2, { title: "Old decision", project: "memoria" });
    const ids = (query: string | null, project: string | null) =>
      gather(new ArraySource(entries), { query, project }).entries.map((e) => e.id);

    const plain = ids(null, null);
    expect(plain).toHaveLength(POOL_LIMIT);
    expect(plain).not.toContain("e0001");
    expect(plain).not.toContain("e0002");

    expect(ids("passport", null)).toContain("e0001");
    expect(ids(null, "memoria")).toContain("e0002");

    // Once in the pool, the match order carries it to the top: recency 201 and match 1 give
    // 1/261 + 1/61, more than the newest entry's 1/61.
    const pool = gather(new ArraySource(entries), { query: "passport", project: null });
    const result = slice(pool.entries, { matched: pool.matched, project: null, budget: 100_000 });
    expect(result.candidates).toBe(POOL_LIMIT + 1);
    expect(result.items[0]).toMatchObject({
      rank: 1,
      score: (61 + 261) / (261 * 61),
      entry: { id: "e0001" },
    });
  });

  it("never holds more than three reads' worth of entries", () => {
    // Every entry matches and is in the project, but each read still stops at POOL_LIMIT.
    const entries = Array.from({ length: 1000 }, (_, i) => entry(i + 1, { title: "note", project: "p" }));
    // The match read ranks the oldest first, so its 200 differ from the newest 200.
    const source = new ArraySource(entries, () => [...entries]);
    const pool = gather(source, { query: "note", project: "p" });
    expect(pool.matched).toHaveLength(POOL_LIMIT);
    expect(pool.entries.length).toBeLessThanOrEqual(3 * POOL_LIMIT);
    expect(pool.entries).toHaveLength(2 * POOL_LIMIT);
  });
});
