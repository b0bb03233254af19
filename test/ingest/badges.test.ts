// Badge rows (src/ingest/badges.ts): the cheap answers for prose give what the full reading gives.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isBadgeRow, isBadgeRowOfLines, withoutBadges } from "../../src/ingest/badges.js";

/** The full reading, with no shortcut: badges removed, then tags, comments and references; no word left. */
function badgeRowByFullReading(source: string): boolean {
  if (source.length > 8192) return false;
  const rest = withoutBadges(source);
  if (rest === source) return false;
  const own = rest
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]*>/g, "")
    .replace(/&(?:#[xX]?[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g, "");
  return !/[\p{L}\p{N}]/u.test(own);
}

const badge = "[![npm version](https://img.shields.io/npm/v/x.svg)](https://npmjs.com/x)";

describe("badge rows", () => {
  it("reads a row of badges over several lines, with tags and entities between them, as a badge row", () => {
    const lines = [`<p align="center">`, `  ${badge}&nbsp;`, `  <a href="y"><img src="z.png"></a>`, "</p>"];
    expect(isBadgeRowOfLines(lines)).toBe(true);
    expect(isBadgeRow(lines.join("\n"))).toBe(true);
  });

  it("reads badges with a word before or after them as prose", () => {
    expect(isBadgeRowOfLines(["Install", badge])).toBe(false);
    expect(isBadgeRowOfLines([badge, "then run it"])).toBe(false);
    expect(isBadgeRow(`${badge} café`)).toBe(false);
    expect(isBadgeRow(`Ω ${badge}`)).toBe(false);
  });

  it("answers as the full reading does, for one text and for lines joined", () => {
    const piece = fc.constantFrom(
      badge,
      "![logo](logo.png)",
      "<img src=x>",
      "&nbsp;",
      "<!-- c -->",
      " ",
      "",
      "word",
      "é",
      "|",
      "—",
      "[x]",
      "\t",
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.array(piece, { maxLength: 4 }).map((parts) => parts.join("")),
          { minLength: 1, maxLength: 4 },
        ),
        (lines) => {
          const full = badgeRowByFullReading(lines.join("\n"));
          expect(isBadgeRow(lines.join("\n"))).toBe(full);
          expect(isBadgeRowOfLines(lines)).toBe(full);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
