// Search as memoria ships: pseudo-relevance feedback on (docs/decisions/0027-feedback-rescoring.md), over the
// HTTP route, against the same team with MEMORIA_SEARCH_FEEDBACK=off. Feedback rescores the first pass's
// candidates, so it may reorder them but never answers a passage the first pass did not find.

import { describe, expect, it } from "vitest";
import { makeTeam, search, type TestApp } from "../support/app.js";
import { topicCorpus } from "../support/topics.js";
import { withApp } from "./contract.js";

const documents = topicCorpus(11, 1100).map((d) => ({
  title: d.title,
  content: d.passages.map((p) => p.text).join("\n\n"),
  format: "text",
  externalId: d.id,
}));
const questions = [
  "the flow of t3w1 and t3w4",
  "t5w0 model",
  "t17w2 t17w9 t17w11 result of the model",
  "t8w3",
];

/** The corpus through the batch route, then each question's hits, each named by its title and ordinal. */
async function answers(app: TestApp, limit: number) {
  const { apiKey } = await makeTeam(app);
  for (let i = 0; i < documents.length; i += 500) {
    const res = await app.request("/v1/documents/batch", {
      method: "POST",
      token: apiKey,
      json: { documents: documents.slice(i, i + 500) },
    });
    expect(res.status).toBe(200);
  }
  const out: string[][] = [];
  for (const q of questions) {
    const body = await search(app, apiKey, q, limit);
    expect(body.corpus.chunks).toBe(documents.length);
    // Document ids are the server's own; a passage is named by its title and ordinal, the same in both apps.
    out.push(body.hits.map((h) => `${h.title}#${h.ordinal}`));
  }
  return out;
}

describe("GET /v1/search with feedback, as it ships", () => {
  it("reorders the first pass's passages, and only those", async () => {
    const on = await withApp(async (app) => [await answers(app, 20), await answers(app, 5)], {
      config: { rateLimit: 0 },
    });
    const off = await withApp(async (app) => [await answers(app, 20), await answers(app, 5)], {
      config: { rateLimit: 0, searchFeedback: false },
    });
    const [on20 = [], on5 = []] = on;
    const [off20 = [], off5 = []] = off;
    let reordered = 0;
    let promoted = 0;
    for (const [i, hits] of on20.entries()) {
      const first = off20[i] ?? [];
      expect(hits.length).toBe(first.length);
      expect([...hits].sort()).toEqual([...first].sort());
      if (hits.join() !== first.join()) reordered++;
      // Five hits asked for, twenty rescored: each from the first pass's twenty, and the same five as a
      // twenty-hit search's first five.
      const top = on5[i] ?? [];
      for (const hit of top) expect(first).toContain(hit);
      expect(top).toEqual(hits.slice(0, 5));
      if (top.some((hit) => !(off5[i] ?? []).includes(hit))) promoted++;
    }
    expect(reordered).toBeGreaterThan(0);
    // Feedback lifted a passage into the first five that the first pass ranked below them.
    expect(promoted).toBeGreaterThan(0);
  }, 60_000);
});
