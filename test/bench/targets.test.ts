// The real suite's summary: each of the suite's targets judged on the largest real corpus of the run, every
// corpus's figure beside it with its own verdict, and an unmeasured figure never reported as met.

import { describe, expect, it } from "vitest";
import {
  type CorpusFigures,
  formatSummary,
  judgedCorpus,
  SUITE_TARGETS,
  summarize,
  type Target,
  verdict,
} from "../../bench/targets.js";

function figures(overrides: Partial<CorpusFigures>): CorpusFigures {
  return {
    corpus: "debian",
    real: true,
    passages: 20_003,
    longP50Ratio: 0.5,
    longP99Ratio: 0.7,
    shortP50Ms: 2.5,
    shortP99Ms: 9,
    rssPerTextByte: 2.9,
    rssPerTextByteRestarted: 3.1,
    scaling8: 1.79,
    otherTeamP99Ms: 250,
    ...overrides,
  };
}

const target = (figure: Target["figure"]) => {
  const found = SUITE_TARGETS.find((t) => t.figure === figure);
  if (!found) throw new Error(`no target for ${figure}`);
  return found;
};

describe("the issue's targets", () => {
  it("holds each bound at its limit: at most and at least include it, under does not", () => {
    expect(verdict(target("longP50Ratio"), 0.6)).toBe("met");
    expect(verdict(target("longP50Ratio"), 0.6001)).toBe("not met");
    expect(verdict(target("scaling8"), 1.8)).toBe("met");
    expect(verdict(target("scaling8"), 1.7999)).toBe("not met");
    expect(verdict(target("otherTeamP99Ms"), 249.9)).toBe("met");
    expect(verdict(target("otherTeamP99Ms"), 250)).toBe("not met");
  });

  it("never calls a figure that was not measured met", () => {
    for (const t of SUITE_TARGETS) {
      expect(verdict(t, Number.NaN)).toBe("not measured");
      expect(verdict(t, Number.POSITIVE_INFINITY)).toBe("not measured");
    }
  });

  it("covers items 2 to 6 of the issue, both percentiles where it names both", () => {
    expect(SUITE_TARGETS.map((t) => t.item.split(".")[0])).toEqual(["2", "2", "3", "3", "4", "4", "5", "6"]);
    expect(SUITE_TARGETS.map((t) => t.limit)).toEqual([0.6, 0.6, 3, 10, 3, 3, 1.8, 250]);
  });
});

describe("the summary", () => {
  const debian = figures({});
  const cranfield = figures({ corpus: "cranfield", passages: 1_400, longP99Ratio: 0.4, scaling8: 2 });
  const synthetic = figures({ corpus: "synthetic", real: false, passages: 30_000, longP99Ratio: 0.5 });

  it("is judged on the real corpus of the most passages, never the generated one", () => {
    expect(judgedCorpus([cranfield, synthetic, debian])?.corpus).toBe("debian");
    expect(judgedCorpus([synthetic])).toBeNull();
  });

  it("gives each corpus its own verdict and the row the judged corpus's", () => {
    const rows = summarize([debian, cranfield, synthetic]);
    const p99 = rows.find((r) => r.target.figure === "longP99Ratio");
    expect(p99?.verdict).toBe("not met");
    expect(p99?.cells.map((c) => c.verdict)).toEqual(["not met", "met", "met"]);
    const scaling = rows.find((r) => r.target.figure === "scaling8");
    expect(scaling?.verdict).toBe("not met");
    expect(scaling?.cells.map((c) => c.value)).toEqual([1.79, 2, 1.79]);
    expect(rows.find((r) => r.target.figure === "shortP50Ms")?.verdict).toBe("met");
  });

  it("says not measured for every target when no real corpus ran", () => {
    expect(summarize([synthetic]).map((r) => r.verdict)).toEqual(SUITE_TARGETS.map(() => "not measured"));
  });

  it("prints one row a target, a column a corpus, the limit and the verdict", () => {
    const lines = formatSummary([debian, synthetic], summarize([debian, synthetic]));
    expect(lines).toHaveLength(2 + SUITE_TARGETS.length);
    expect(lines[0]).toBe(
      "| target | debian (20,003 passages) | synthetic (30,000 passages) | target | on debian |",
    );
    expect(lines.filter((l) => l.startsWith("| 4. "))).toEqual([
      "| 4. RSS a byte of text, built through the batch route | 2.90 B/B (met) | 2.90 B/B (met) | at most 3.00 B/B | **met** |",
      "| 4. RSS a byte of text, built at a restart | 3.10 B/B (not met) | 3.10 B/B (not met) | at most 3.00 B/B | **not met** |",
    ]);
    expect(lines.find((l) => l.startsWith("| 6. "))).toContain("| under 250.0 ms | **not met** |");
  });
});
