// Properties of the fused ranking and the budget fill over generated pools. Ids come from a small alphabet
// and createdAt from a handful of instants, so shared timestamps, score ties, duplicate entries and `matched`
// ids that are not in the pool all turn up often; titles mix 1-, 2-, 3- and 4-byte characters so the byte
// count, not the character count, decides what fits.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_BUDGET } from "../../src/memory/constants.js";
import type { MemoryEntry } from "../../src/memory/entry.js";
import { estimateTokens, minimumTokens, renderLine } from "../../src/memory/line.js";
import { fuse, type SliceOptions, type SliceResult, slice } from "../../src/memory/slice.js";

// A fixed seed keeps a failure reproducible from the log alone.
const runs = { numRuns: 200, seed: 20260301 };

const IDS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "e1", "e10", "e2"];
// Ids the pools never use, so a `matched` list can name entries that are not candidates.
const GHOSTS = ["zz", "gone"];
// Canonical ISO strings (what toISOString produces and storage holds), some a millisecond apart.
const INSTANTS = [
  "2026-01-01T00:00:00.000Z",
  "2026-01-01T00:00:00.001Z",
  "2026-01-31T23:59:59.999Z",
  "2026-02-01T00:00:00.000Z",
  "2026-03-01T12:00:00.000Z",
];
const PROJECTS = ["alpha", "beta", "gamma"];

const piece = fc.constantFrom("a", "word", " ", "é", "東京", "📈", " — ", "a longer phrase of ascii ");
const text = (minLength: number, maxLength: number) =>
  fc.array(piece, { minLength, maxLength }).map((parts) => parts.join(""));

const entryArb: fc.Arbitrary<MemoryEntry> = fc.record({
  id: fc.constantFrom(...IDS),
  createdAt: fc.constantFrom(...INSTANTS),
  project: fc.constantFrom(null, ...PROJECTS),
  type: fc.constantFrom(null, "decision", "note"),
  title: text(1, 12),
  impact: fc.oneof(fc.constant(null), text(0, 12)),
});

// One entry per id: two different entries under one id have no defined winner, so they are not a pool.
const poolArb = fc.uniqueArray(entryArb, { selector: (e) => e.id, maxLength: IDS.length, size: "max" });

const optionsArb = (pool: MemoryEntry[]): fc.Arbitrary<SliceOptions> =>
  fc.record({
    // Pool ids and ghosts, repeats allowed, in any order.
    matched: fc.array(fc.constantFrom(...pool.map((e) => e.id), ...GHOSTS), { maxLength: 12 }),
    // "delta" has no entries: a project nobody is in.
    project: fc.constantFrom(null, ...PROJECTS, "delta"),
    // Lines cost roughly 8 to 60 tokens: mostly budgets that hold a few of them, sometimes all.
    budget: fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 100 }), weight: 3 },
      { arbitrary: fc.integer({ min: 1, max: 400 }), weight: 1 },
      { arbitrary: fc.constant(MAX_BUDGET), weight: 1 },
    ),
  });

const scenarioArb = poolArb.chain((pool) => fc.tuple(fc.constant(pool), optionsArb(pool)));

const distinctIds = (pool: readonly MemoryEntry[]) => new Set(pool.map((e) => e.id)).size;

/** Newest first, by the instant rather than the string, then the higher id. */
function newestFirst(a: MemoryEntry, b: MemoryEntry): number {
  const dt = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  if (dt !== 0) return dt;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

/**
 * The spec, written out the long way: each list built on its own, each entry's score summed over the lists
 * it is on, the whole pool sorted, then a greedy fill that skips what does not fit. Scores are added in the
 * order recency, match, project, as the formula lists them; floating-point addition is not associative, so a
 * different order could differ in the last bit.
 */
function oracle(pool: readonly MemoryEntry[], options: SliceOptions): SliceResult {
  const unique: MemoryEntry[] = [];
  for (const entry of pool) if (!unique.some((u) => u.id === entry.id)) unique.push(entry);

  const recency = [...unique].sort(newestFirst).map((e) => e.id);
  const matchList: string[] = [];
  for (const id of options.matched) {
    if (unique.some((e) => e.id === id) && !matchList.includes(id)) matchList.push(id);
  }
  const projectList =
    options.project === null
      ? []
      : [...unique]
          .filter((e) => e.project === options.project)
          .sort(newestFirst)
          .map((e) => e.id);

  // Scores as exact fractions in BigInt: equal sums are equal whatever order their terms come in, so the
  // tie-break, never floating-point rounding, orders them.
  const scored = unique.map((entry) => {
    const ranks = [recency.indexOf(entry.id), matchList.indexOf(entry.id), projectList.indexOf(entry.id)];
    let num = 0n;
    let den = 1n;
    for (const r of ranks.filter((i) => i >= 0)) {
      const d = BigInt(60 + r + 1);
      num = num * d + den;
      den *= d;
    }
    return { entry, num, den, score: Number(num) / Number(den) };
  });
  scored.sort((x, y) => {
    const l = x.num * y.den;
    const r = y.num * x.den;
    return l !== r ? (l > r ? -1 : 1) : newestFirst(x.entry, y.entry);
  });

  const items: SliceResult["items"] = [];
  let spent = 0;
  scored.forEach(({ entry, score }, i) => {
    const line = renderLine(entry);
    const tokens = estimateTokens(line);
    if (spent + tokens <= options.budget) {
      items.push({ entry, line, tokens, score, rank: i + 1 });
      spent += tokens;
    }
  });
  return {
    items,
    candidates: unique.length,
    included: items.length,
    skipped: unique.length - items.length,
    estimatedTokens: spent,
    budget: options.budget,
  };
}

describe("slice, over generated pools", () => {
  it("does not depend on the pool's order or on entries repeated in it", () => {
    const arb = scenarioArb.chain(([pool, options]) =>
      fc
        .subarray(pool)
        .map((dups) => [...pool, ...dups.map((e) => ({ ...e }))])
        .chain((withDups) =>
          fc.shuffledSubarray(withDups, { minLength: withDups.length, maxLength: withDups.length }),
        )
        .map((mixed) => ({ pool, options, mixed })),
    );
    fc.assert(
      fc.property(arb, ({ pool, options, mixed }) => {
        expect(slice(mixed, options)).toEqual(slice(pool, options));
      }),
      runs,
    );
  });

  it("accounts for every distinct candidate as included or skipped", () => {
    fc.assert(
      fc.property(scenarioArb, ([pool, options]) => {
        const doubled = [...pool, ...pool];
        const result = slice(doubled, options);
        expect(result.candidates).toBe(distinctIds(doubled));
        expect(result.included).toBe(result.items.length);
        expect(result.included + result.skipped).toBe(result.candidates);
        expect(result.budget).toBe(options.budget);
      }),
      runs,
    );
  });

  it("spends what its items cost, within the budget, each cost read from its own line", () => {
    fc.assert(
      fc.property(scenarioArb, ([pool, options]) => {
        const result = slice(pool, options);
        const sum = result.items.reduce((total, item) => total + item.tokens, 0);
        expect(result.estimatedTokens).toBe(sum);
        expect(result.estimatedTokens).toBeLessThanOrEqual(options.budget);
        for (const item of result.items) {
          expect(item.line).toBe(renderLine(item.entry));
          expect(item.tokens).toBe(estimateTokens(item.line));
        }
      }),
      runs,
    );
  });

  it("skips an entry only when its line costs more than what is left at its turn", () => {
    fc.assert(
      fc.property(scenarioArb, ([pool, options]) => {
        const result = slice(pool, options);
        const ranked = fuse(pool, options);
        const byRank = new Map(result.items.map((item) => [item.rank, item]));
        let left = options.budget;
        ranked.forEach(({ entry, score }, i) => {
          const tokens = estimateTokens(renderLine(entry));
          const item = byRank.get(i + 1);
          if (item === undefined) {
            expect(tokens).toBeGreaterThan(left);
          } else {
            // Items carry the ranking's entry, score and 1-based position, skipped entries counted.
            expect(item.entry).toEqual(entry);
            expect(item.score).toBe(score);
            expect(tokens).toBeLessThanOrEqual(left);
            left -= tokens;
          }
        });
        expect(byRank.size).toBe(result.items.length);
        // Items are in rank order.
        const ranks = result.items.map((item) => item.rank);
        expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
      }),
      runs,
    );
  });

  it("includes a later, cheaper line after skipping an expensive one", () => {
    const arb = fc
      .record({
        cheap: fc.integer({ min: 1, max: 40 }),
        extra: fc.integer({ min: 4, max: 200 }),
        char: fc.constantFrom("x", "é", "東", "📈"),
      })
      .chain(({ cheap, extra, char }) => {
        const newer: MemoryEntry = {
          id: "n",
          createdAt: "2026-03-02T00:00:00.000Z",
          project: null,
          type: null,
          title: char.repeat(cheap + extra),
          impact: null,
        };
        const older: MemoryEntry = {
          ...newer,
          id: "o",
          createdAt: "2026-03-01T00:00:00.000Z",
          title: char.repeat(cheap),
        };
        const expensive = estimateTokens(renderLine(newer));
        const affordable = estimateTokens(renderLine(older));
        return fc
          .integer({ min: affordable, max: expensive - 1 })
          .map((budget) => ({ newer, older, budget, affordable }));
      });
    fc.assert(
      fc.property(arb, ({ newer, older, budget, affordable }) => {
        const result = slice([older, newer], { matched: [], project: null, budget });
        expect(result.items.map((item) => [item.entry.id, item.rank])).toEqual([["o", 2]]);
        expect(result).toMatchObject({ candidates: 2, included: 1, skipped: 1, estimatedTokens: affordable });
      }),
      runs,
    );
  });

  it("ranks by recency alone, ranks 1..n, with no query and no project", () => {
    fc.assert(
      fc.property(poolArb, (pool) => {
        const result = slice(pool, { matched: [], project: null, budget: MAX_BUDGET });
        const expected = [...pool].sort(newestFirst);
        expect(result.items.map((item) => item.entry.id)).toEqual(expected.map((e) => e.id));
        expect(result.items.map((item) => item.rank)).toEqual(expected.map((_, i) => i + 1));
        expect(result.items.map((item) => item.score)).toEqual(expected.map((_, i) => 1 / (61 + i)));
      }),
      runs,
    );
  });

  it("agrees with a brute-force reimplementation of the spec", () => {
    fc.assert(
      fc.property(scenarioArb, ([pool, options]) => {
        expect(slice(pool, options)).toEqual(oracle(pool, options));
      }),
      runs,
    );
  });

  it("boosts the project without filtering: every project's entries appear when the budget allows", () => {
    fc.assert(
      fc.property(scenarioArb, ([pool, options]) => {
        const result = slice(pool, { ...options, budget: MAX_BUDGET });
        expect(result.items.map((item) => item.entry.id).sort()).toEqual(pool.map((e) => e.id).sort());
        expect(result.skipped).toBe(0);
      }),
      runs,
    );
  });

  it("never ranks an entry below one it is at least as good as on every list", () => {
    // A is newer than B (better on recency); if B is matched, A is matched earlier; if B is in the project, so
    // is A (and then, being newer, earlier on that list too). Every term of A's score is then at least B's, and
    // an exact tie goes to the newer, so A must come first.
    fc.assert(
      fc.property(scenarioArb, ([pool, options]) => {
        const ranked = fuse(pool, options).map((r) => r.entry);
        const matchPos = new Map<string, number>();
        options.matched.forEach((id, i) => {
          if (!matchPos.has(id)) matchPos.set(id, i);
        });
        const inProject = (e: MemoryEntry) => options.project !== null && e.project === options.project;
        for (const [i, a] of ranked.entries()) {
          for (const [j, b] of ranked.entries()) {
            if (newestFirst(a, b) >= 0) continue;
            const bm = matchPos.get(b.id);
            const am = matchPos.get(a.id);
            if (bm !== undefined && (am === undefined || am > bm)) continue;
            if (inProject(b) && !inProject(a)) continue;
            expect(i, `${a.id} should rank above ${b.id}`).toBeLessThan(j);
          }
        }
      }),
      runs,
    );
  });

  it("ignores matched ids that are not in the pool, and repeats of an id after its first place", () => {
    const arb = scenarioArb.chain(([pool, options]) =>
      fc
        .record({
          ghosts: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...GHOSTS)), { maxLength: 4 }),
          repeats: fc.array(fc.nat(), { maxLength: 4 }),
        })
        .map(({ ghosts, repeats }) => {
          const clean = [...new Set(options.matched.filter((id) => !GHOSTS.includes(id)))];
          const noisy = [...clean];
          // A repeat goes anywhere after the id's first place, so the first place still decides its rank.
          for (const r of repeats) {
            if (clean.length === 0) break;
            const k = r % clean.length;
            const id = clean[k] as string;
            const firstAt = noisy.indexOf(id);
            noisy.splice(firstAt + 1 + (r % (noisy.length - firstAt)), 0, id);
          }
          for (const [at, ghost] of ghosts) noisy.splice(at % (noisy.length + 1), 0, ghost);
          return { pool, options, clean, noisy };
        }),
    );
    fc.assert(
      fc.property(arb, ({ pool, options, clean, noisy }) => {
        expect(slice(pool, { ...options, matched: noisy })).toEqual(
          slice(pool, { ...options, matched: clean }),
        );
      }),
      runs,
    );
  });

  it("ignores a matched list that names only ghosts, as if there were no query", () => {
    fc.assert(
      fc.property(poolArb, fc.constantFrom(null, ...PROJECTS), (pool, project) => {
        const budget = MAX_BUDGET;
        expect(slice(pool, { matched: [...GHOSTS, ...GHOSTS], project, budget })).toEqual(
          slice(pool, { matched: [], project, budget }),
        );
      }),
      runs,
    );
  });

  it("never puts an entry's minimum line cost above its real one (the fill skips on it unrendered)", () => {
    fc.assert(
      fc.property(entryArb, (entry) => {
        expect(minimumTokens(entry)).toBeLessThanOrEqual(estimateTokens(renderLine(entry)));
      }),
      runs,
    );
  });
});
