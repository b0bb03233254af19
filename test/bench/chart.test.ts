import { describe, expect, it } from "vitest";
import { type ChartRow, peersChart } from "../../bench/chart.js";

const row = (shape: string, engine: string, factor: number): ChartRow => ({
  shape,
  engine,
  buildMs: 1_500 * factor,
  p50: 0.5 * factor,
  p99: 12 * factor,
  longP50: 30 * factor,
  longP99: 140 * factor,
});

describe("peersChart", () => {
  const rows = [
    row("sections", "memoria", 1),
    row("sections", "a<b", 2),
    row("scifact", "memoria", 3),
    row("scifact", "a<b", 4),
  ];
  const svg = peersChart(rows, "memoria & peers");

  it("is one SVG document with every label escaped", () => {
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain("memoria &amp; peers");
    expect(svg).toContain("a&lt;b");
    expect(svg).not.toContain("a<b");
  });

  it("draws one labelled bar per engine, shape and figure, scaled within its panel", () => {
    const bars = [...svg.matchAll(/<rect [^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]);
    // 2 shapes × 5 figures × 2 engines.
    expect(bars).toHaveLength(20);
    expect(bars).toContain("memoria, sections: 1.50");
    expect(bars).toContain("a&lt;b, scifact: 560");
    for (const label of ["sections", "scifact", "10–20 words p99 (ms)", "build → first answer (s)"]) {
      expect(svg).toContain(label);
    }
    // The larger value in a panel gets the taller bar.
    const heights = [...svg.matchAll(/height="([\d.]+)" fill="[^"]+"><title>([^<]*)</g)];
    const height = (title: string) => Number(heights.find((m) => m[2] === title)?.[1]);
    expect(height("a&lt;b, sections: 3.00")).toBeGreaterThan(height("memoria, sections: 1.50"));
  });
});
