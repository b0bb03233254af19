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
    const on = await withApp((app) => answers(app, 20), { config: { rateLimit: 0 } });
    const off = await withApp((app) => answers(app, 20), { config: { rateLimit: 0, searchFeedback: false } });
    let reordered = 0;
    for (const [i, hits] of on.entries()) {
      const first = off[i] ?? [];
      expect(hits.length).toBe(first.length);
      expect([...hits].sort()).toEqual([...first].sort());
      if (hits.join() !== first.join()) reordered++;
    }
    expect(reordered).toBeGreaterThan(0);
  }, 60_000);
});
