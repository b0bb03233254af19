// The working-memory block is read by agents as part of their prompt, so its numbers and its shape are a
// contract. Everything here is worked out by hand from the formula — score = Σ 1/(60 + rank) over the lists an
// entry is on, tokens = ceil(UTF-8 bytes / 4), skip-and-continue fill — and written down as literals, so the
// test is an oracle: a change to the code that changes any number fails here, even if it looks plausible.

import { describe, expect, it } from "vitest";
import { renderBlock } from "../../src/memory/block.js";
import {
  BYTES_PER_TOKEN,
  DEFAULT_BUDGET,
  FUSION_K,
  MAX_BUDGET,
  POOL_LIMIT,
  WEIGHT_MATCH,
  WEIGHT_PROJECT,
  WEIGHT_RECENCY,
} from "../../src/memory/constants.js";
import type { MemoryEntry } from "../../src/memory/entry.js";
import { estimateTokens, renderLine } from "../../src/memory/line.js";
import { fuse, slice } from "../../src/memory/slice.js";
import { utf8Length } from "../../src/text/length.js";

describe("working-memory constants", () => {
  it("are pinned", () => {
    // Changing any of these changes every agent's block: it must be a visible, reviewed change that updates
    // this test, never a silent one.
    expect(FUSION_K).toBe(60);
    expect(WEIGHT_RECENCY).toBe(1.0);
    expect(WEIGHT_MATCH).toBe(1.0);
    expect(WEIGHT_PROJECT).toBe(1.0);
    expect(POOL_LIMIT).toBe(200);
    expect(DEFAULT_BUDGET).toBe(2000);
    expect(MAX_BUDGET).toBe(100_000);
    expect(BYTES_PER_TOKEN).toBe(4);
  });
});

// Recency (createdAt desc, then id desc): ea 1, eb 2, ed 3, ec 4, ee 5, ef 6 — ec and ed share a createdAt, so
// the higher id, ed, is the newer.
const ea: MemoryEntry = {
  id: "ea",
  createdAt: "2026-03-05T09:00:00.000Z",
  project: "memoria",
  type: "decision",
  title: "Rank by fusion",
  impact: "one order for all",
};
const eb: MemoryEntry = {
  id: "eb",
  createdAt: "2026-03-04T12:00:00.000Z",
  project: null,
  type: "incident",
  title: "Reindex timed out",
  impact: "search stale 2h",
};
const ec: MemoryEntry = {
  id: "ec",
  createdAt: "2026-03-03T08:00:00.000Z",
  project: "billing",
  type: "note",
  title: "Invoices batch at 02:00",
  impact: null,
};
const ed: MemoryEntry = {
  id: "ed",
  createdAt: "2026-03-03T08:00:00.000Z",
  project: "infra",
  type: null,
  title: "Two cores per box",
  impact: "set maxWorkers 2",
};
const ee: MemoryEntry = {
  id: "ee",
  createdAt: "2026-03-02T07:15:00.000Z",
  project: "memoria",
  type: "task",
  title: "Pin vitest 4.1",
  impact: "",
};
const ef: MemoryEntry = {
  id: "ef",
  // 23:30 UTC on the first: the line must show 2026-03-01, not a local-time date.
  createdAt: "2026-03-01T23:30:00.000Z",
  project: "billing",
  type: "decision",
  title: "Café 東京 📈",
  impact: "quarterly prices move to yen",
};

// Given in neither recency nor rank order: the result must not depend on it.
const pool = [ec, ef, ea, ee, eb, ed];
// Relevance: ef 1, ea 2, ec 3, ed 4, eb 5. Project "memoria", newest first: ea 1, ee 2.
const matched = ["ef", "ea", "ec", "ed", "eb"];
const project = "memoria";

/**
 * Σ 1/d over the given K + rank denominators, as the exact fraction it is, divided once: two sums of the same
 * terms in another order are then the same number, as they are on paper (a float sum term by term can differ
 * in the last bit, and then rounding would decide a tie).
 */
function rrf(...denominators: number[]): number {
  let num = 0;
  let den = 1;
  for (const d of denominators) {
    num = num * d + den;
    den *= d;
  }
  return num / den;
}

const expectedScores: Record<string, number> = {
  ea: rrf(61, 62, 61), // recency 1, match 2, project 1: 1/61 + 1/62 + 1/61
  ef: rrf(66, 61), // recency 6, match 1
  eb: rrf(62, 65), // recency 2, match 5 (no project)
  ee: rrf(65, 62), // recency 5, project 2 (not matched)
  ed: rrf(63, 64), // recency 3, match 4
  ec: rrf(64, 63), // recency 4, match 3
};

// ea ≈ 0.04892 > ef ≈ 0.03154 > eb = ee ≈ 0.03151 > ed = ec ≈ 0.03150.
// eb and ee tie exactly: eb is newer (03-04 vs 03-02), so it goes first.
// ed and ec tie exactly and share a createdAt: the higher id, ed, goes first.
const expectedOrder = ["ea", "ef", "eb", "ee", "ed", "ec"];

// Bytes: "- ea " 5 + date 10 + " " 1 + "[memoria/decision]" 18 + " " 1 + title 14 + " — " 5 (the em dash is
// 3 bytes) + impact 17 = 71 → ceil(71 / 4) = 18 tokens.
const lineA = "- ea 2026-03-05 [memoria/decision] Rank by fusion — one order for all";
// 5 + 10 + 1 + "[billing/decision]" 18 + 1 + "Café 東京 📈" 17 (Caf 3, é 2, space, 東京 6, space, 📈 4) + 5
// + "quarterly prices move to yen" 28 = 85 → 22 tokens.
const lineF = "- ef 2026-03-01 [billing/decision] Café 東京 📈 — quarterly prices move to yen";
// 16 + "[-/incident]" 12 + 1 + "Reindex timed out" 17 + 5 + "search stale 2h" 15 = 66 → 17 tokens.
const lineB = "- eb 2026-03-04 [-/incident] Reindex timed out — search stale 2h";
// 16 + "[memoria/task]" 14 + 1 + "Pin vitest 4.1" 14 = 45 → 12 tokens; the empty impact adds nothing.
const lineE = "- ee 2026-03-02 [memoria/task] Pin vitest 4.1";
// 16 + "[infra/-]" 9 + 1 + "Two cores per box" 17 + 5 + "set maxWorkers 2" 16 = 64 → 16 tokens, exactly.
const lineD = "- ed 2026-03-03 [infra/-] Two cores per box — set maxWorkers 2";
// 16 + "[billing/note]" 14 + 1 + "Invoices batch at 02:00" 23 = 54 → 14 tokens; no impact, no dash.
const lineC = "- ec 2026-03-03 [billing/note] Invoices batch at 02:00";

describe("a fixed pool, worked out by hand", () => {
  it("fuses the three lists into the expected scores and order", () => {
    const ranked = fuse(pool, { matched, project });
    expect(ranked.map((r) => r.entry.id)).toEqual(expectedOrder);
    for (const { entry, score } of ranked) {
      expect(score).toBe(expectedScores[entry.id]);
    }
    // The two ties are exact ties, so the order between them is the tie-break's alone.
    expect(expectedScores.eb).toBe(expectedScores.ee);
    expect(expectedScores.ed).toBe(expectedScores.ec);
  });

  it("renders the expected lines at the expected byte and token counts", () => {
    const expected: [MemoryEntry, string, number, number][] = [
      [ea, lineA, 71, 18],
      [ef, lineF, 85, 22],
      [eb, lineB, 66, 17],
      [ee, lineE, 45, 12],
      [ed, lineD, 64, 16],
      [ec, lineC, 54, 14],
    ];
    for (const [entry, line, bytes, tokens] of expected) {
      expect(renderLine(entry)).toBe(line);
      expect(utf8Length(line)).toBe(bytes);
      expect(estimateTokens(line)).toBe(tokens);
    }
  });

  it("includes everything when the budget allows, ranks 1 to 6", () => {
    const result = slice(pool, { matched, project, budget: DEFAULT_BUDGET });
    expect(result.items.map((i) => [i.entry.id, i.rank, i.tokens, i.line])).toEqual([
      ["ea", 1, 18, lineA],
      ["ef", 2, 22, lineF],
      ["eb", 3, 17, lineB],
      ["ee", 4, 12, lineE],
      ["ed", 5, 16, lineD],
      ["ec", 6, 14, lineC],
    ]);
    expect(result.items.map((i) => i.score)).toEqual(expectedOrder.map((id) => expectedScores[id]));
    expect(result).toMatchObject({
      candidates: 6,
      included: 6,
      skipped: 0,
      estimatedTokens: 18 + 22 + 17 + 12 + 16 + 14, // 99
      budget: 2000,
    });
  });

  it("skips an expensive line and includes a later cheaper one (budget 39)", () => {
    // ea 18 → 21 left; ef 22 > 21, skipped; eb 17 ≤ 21, included → 4 left; ee 12, ed 16, ec 14 all > 4.
    const result = slice(pool, { matched, project, budget: 39 });
    expect(result.items.map((i) => [i.entry.id, i.rank, i.tokens, i.score])).toEqual([
      ["ea", 1, 18, expectedScores.ea],
      ["eb", 3, 17, expectedScores.eb],
    ]);
    expect(result).toMatchObject({ candidates: 6, included: 2, skipped: 4, estimatedTokens: 35, budget: 39 });
    expect(renderBlock(result)).toBe(`${lineA}\n${lineB}`);
  });

  it("keeps walking past several misfits (budget 34)", () => {
    // ea 18 → 16 left; ef 22 and eb 17 do not fit; ee 12 does → 4 left; ed 16, ec 14 do not.
    const result = slice(pool, { matched, project, budget: 34 });
    expect(result.items.map((i) => [i.entry.id, i.rank])).toEqual([
      ["ea", 1],
      ["ee", 4],
    ]);
    expect(result).toMatchObject({ candidates: 6, included: 2, skipped: 4, estimatedTokens: 30, budget: 34 });
  });

  it("fills exactly to the budget when the lines add up to it", () => {
    // ea 18 + ef 22 = 40 leaves 0; nothing else fits.
    const result = slice(pool, { matched, project, budget: 40 });
    expect(result.items.map((i) => i.entry.id)).toEqual(["ea", "ef"]);
    expect(result).toMatchObject({ included: 2, skipped: 4, estimatedTokens: 40, budget: 40 });
  });

  it("includes nothing when even the cheapest line is too dear, and still counts every candidate", () => {
    // The cheapest line, ee, costs 12.
    const result = slice(pool, { matched, project, budget: 11 });
    expect(result).toEqual({
      items: [],
      candidates: 6,
      included: 0,
      skipped: 6,
      estimatedTokens: 0,
      budget: 11,
    });
    expect(renderBlock(result)).toBe("");
  });

  it("ranks by recency alone with no query and no project", () => {
    const result = slice(pool, { matched: [], project: null, budget: DEFAULT_BUDGET });
    expect(result.items.map((i) => [i.entry.id, i.rank, i.score])).toEqual([
      ["ea", 1, 1 / 61],
      ["eb", 2, 1 / 62],
      ["ed", 3, 1 / 63],
      ["ec", 4, 1 / 64],
      ["ee", 5, 1 / 65],
      ["ef", 6, 1 / 66],
    ]);
  });
});

describe("renderLine", () => {
  const base: MemoryEntry = {
    id: "e1",
    createdAt: "2026-03-01T10:00:00.000Z",
    project: "memoria",
    type: "decision",
    title: "Title",
    impact: "impact",
  };

  it("shows project and type, or - for whichever is missing", () => {
    expect(renderLine(base)).toBe("- e1 2026-03-01 [memoria/decision] Title — impact");
    expect(renderLine({ ...base, project: null })).toBe("- e1 2026-03-01 [-/decision] Title — impact");
    expect(renderLine({ ...base, type: null })).toBe("- e1 2026-03-01 [memoria/-] Title — impact");
    expect(renderLine({ ...base, project: null, type: null })).toBe("- e1 2026-03-01 [-/-] Title — impact");
  });

  it("keeps an entry on one line when its title or impact was typed over several", () => {
    expect(renderLine({ ...base, title: "First line\r\n  second", impact: "a\nb\u2028c" })).toBe(
      "- e1 2026-03-01 [memoria/decision] First line second — a b c",
    );
  });

  it("leaves out the impact clause when the impact is only white space, and trims title and impact", () => {
    expect(renderLine({ ...base, title: "  Title  ", impact: "   " })).toBe(
      "- e1 2026-03-01 [memoria/decision] Title",
    );
    expect(renderLine({ ...base, impact: " \n " })).toBe("- e1 2026-03-01 [memoria/decision] Title");
    expect(renderLine({ ...base, impact: " spaced " })).toBe(
      "- e1 2026-03-01 [memoria/decision] Title — spaced",
    );
  });

  it("leaves out the impact clause, dash included, when there is no impact", () => {
    expect(renderLine({ ...base, impact: "" })).toBe("- e1 2026-03-01 [memoria/decision] Title");
    expect(renderLine({ ...base, impact: null })).toBe("- e1 2026-03-01 [memoria/decision] Title");
    expect(renderLine({ ...base, project: null, type: null, impact: null })).toBe(
      "- e1 2026-03-01 [-/-] Title",
    );
  });

  it("dates a line by createdAt's UTC day, whatever the machine's time zone", () => {
    expect(renderLine({ ...base, createdAt: "2026-03-01T23:30:00.000Z" })).toBe(
      "- e1 2026-03-01 [memoria/decision] Title — impact",
    );
    expect(renderLine({ ...base, createdAt: "2026-03-01T00:00:00.000Z" })).toBe(
      "- e1 2026-03-01 [memoria/decision] Title — impact",
    );
    // 23:30 at UTC-5 is 04:30 UTC the next day.
    expect(renderLine({ ...base, createdAt: "2026-03-01T23:30:00-05:00" })).toBe(
      "- e1 2026-03-02 [memoria/decision] Title — impact",
    );
  });

  it("renders a multi-byte title and impact verbatim", () => {
    expect(renderLine({ ...base, title: "東京 📈", impact: "naïve" })).toBe(
      "- e1 2026-03-01 [memoria/decision] 東京 📈 — naïve",
    );
  });
});

describe("estimateTokens", () => {
  it("is ceil(UTF-8 bytes / 4), with exact boundaries", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("a")).toBe(1);
    expect(estimateTokens("abcd")).toBe(1); // 4 bytes
    expect(estimateTokens("abcde")).toBe(2); // 5 bytes
    expect(estimateTokens("abcdefgh")).toBe(2); // 8 bytes
    expect(estimateTokens("abcdefghi")).toBe(3); // 9 bytes
  });

  it("counts bytes, not characters, for 2-, 3- and 4-byte characters", () => {
    expect(estimateTokens("é")).toBe(1); // 2 bytes
    expect(estimateTokens("éé")).toBe(1); // 4 bytes
    expect(estimateTokens("ééa")).toBe(2); // 5 bytes
    expect(estimateTokens("東")).toBe(1); // 3 bytes
    expect(estimateTokens("東a")).toBe(1); // 4 bytes
    expect(estimateTokens("東京")).toBe(2); // 6 bytes
    expect(estimateTokens("📈")).toBe(1); // 4 bytes, 2 UTF-16 units
    expect(estimateTokens("📈a")).toBe(2); // 5 bytes
    expect(estimateTokens("📈📈")).toBe(2); // 8 bytes
    expect(estimateTokens("Café 東京 📈")).toBe(5); // 17 bytes
  });

  it("counts the same bytes as a real UTF-8 encoder, lone surrogates included", () => {
    const encoder = new TextEncoder();
    const samples = [
      "",
      "plain ascii",
      "naïve café",
      "東京 — 大阪",
      "📈👍🏽👨‍👩‍👧",
      "\u{10FFFF}",
      "\u07FF\u0800\uFFFF",
      "\uD800", // lone high surrogate at the end
      "a\uD800b", // lone high surrogate followed by a non-surrogate
      "a\uDC00b", // lone low surrogate
      "\uDC00\uD800", // a pair in the wrong order is two lone surrogates
      "\uD83D\uD83D\uDCC8", // lone high, then a valid pair
    ];
    for (const s of samples) expect(utf8Length(s), JSON.stringify(s)).toBe(encoder.encode(s).length);
  });
});

describe("renderBlock", () => {
  it("joins the included lines with newlines in rank order", () => {
    const result = slice(pool, { matched, project, budget: DEFAULT_BUDGET });
    expect(renderBlock(result)).toBe([lineA, lineF, lineB, lineE, lineD, lineC].join("\n"));
  });

  it("is empty for an empty pool", () => {
    const result = slice([], { matched: ["x"], project: "memoria", budget: 10 });
    expect(result).toEqual({
      items: [],
      candidates: 0,
      included: 0,
      skipped: 0,
      estimatedTokens: 0,
      budget: 10,
    });
    expect(renderBlock(result)).toBe("");
  });
});

describe("slice's budget", () => {
  it("must be a whole number above zero", () => {
    for (const budget of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => slice(pool, { matched, project, budget }), String(budget)).toThrow(RangeError);
    }
  });

  it("accepts 1, the smallest budget, even if nothing fits in it", () => {
    expect(slice(pool, { matched, project, budget: 1 })).toMatchObject({ included: 0, skipped: 6 });
  });
});

describe("exact ties", () => {
  it("orders equal scores made of the same terms in another order by recency, not by rounding", () => {
    // e02: recency 2, match 10, project 1 → 1/62 + 1/70 + 1/61. e10: recency 10, match 1, project 2 →
    // 1/70 + 1/61 + 1/62. Equal on paper; summed term by term as floats they differ in the last bit
    // (0.04680818916672962 against 0.046808189166729616), which once ranked the older e10 first.
    const entry = (n: number, inProject: boolean): MemoryEntry => ({
      id: `e${String(n).padStart(2, "0")}`,
      createdAt: `2026-01-${String(31 - n).padStart(2, "0")}T00:00:00.000Z`,
      project: inProject ? "p" : null,
      type: null,
      title: "t",
      impact: null,
    });
    const tiePool = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => entry(n, n === 2 || n === 10));
    const result = slice(tiePool, {
      matched: ["e10", "e01", "e03", "e04", "e05", "e06", "e07", "e08", "e09", "e02"],
      project: "p",
      budget: 100_000,
    });
    const [first, second] = result.items;
    expect([first?.entry.id, second?.entry.id]).toEqual(["e02", "e10"]);
    expect(first?.score).toBe(second?.score);
    expect(first?.score).toBe(rrf(62, 70, 61));
  });
});
