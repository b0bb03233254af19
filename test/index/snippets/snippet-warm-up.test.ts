// The snippet cutter's warm-up (src/index/snippets/snippet-warm-up.ts) must run the code real searches run: every cut
// of it in JS (a refusal would fall back to nothing and warm nothing), and each cut as FTS5's own snippet()
// cuts the same passage for the same question, so it exercises the cutter's real path to its end.

import { describe, expect, it } from "vitest";
import { orExpression } from "../../../src/index/query.js";
import { TokenEdges } from "../../../src/index/snippets/ascii-snippet.js";
import {
  WARM_UP_BODY,
  WARM_UP_CUTS,
  WARM_UP_QUESTIONS,
  warmUpCut,
} from "../../../src/index/snippets/snippet-warm-up.js";
import { referenceSnippets } from "../../support/snippet-reference.js";

describe("the snippet cutter's warm-up", () => {
  it("cuts every one of its bodies in JS", () => {
    const edges = new TokenEdges();
    const cuts = Array.from({ length: WARM_UP_CUTS }, (_, i) => warmUpCut(i, edges));
    expect(cuts.filter((cut) => cut === null)).toEqual([]);
    // Every question is asked, so every first letter's tokens are stemmed at least once.
    expect(new Set(cuts).size).toBe(WARM_UP_QUESTIONS.length);
  });

  it("cuts each question's snippet as FTS5's snippet() does", () => {
    const edges = new TokenEdges();
    for (const [i, question] of WARM_UP_QUESTIONS.entries()) {
      const terms = [...question];
      const [reference] = referenceSnippets(
        [{ heading: "", body: WARM_UP_BODY, title: "", path: "" }],
        orExpression(terms, terms),
      );
      expect(reference, question.join(" ")).not.toBe("");
      expect(warmUpCut(i, edges), question.join(" ")).toBe(reference);
    }
  });

  it("is text of ASCII only, long enough to be cut to a window", () => {
    expect(/^[\x20-\x7e]+$/.test(WARM_UP_BODY)).toBe(true);
    expect(WARM_UP_BODY.split(/\s+/).length).toBeGreaterThan(200);
  });
});
