// What a search returns of its hits and how it ranks a question of rare words (passage-searcher.ts), on Git's
// manuals as Debian installs them (.ci/run installs git-doc).

import { expect, it } from "vitest";
import { type PassageHit, TRAIL_SEPARATOR } from "../../../src/index/passages/passage-document.js";
import { PassageIndex } from "../../../src/index/passages/passage-index.js";
import { matchQuery, orExpression, queryTerms } from "../../../src/index/query.js";
import { canonicalOrder } from "../../../src/index/ranking/pruned-ranking.js";
import { chunkDocument } from "../../../src/ingest/chunk.js";
import { gitManualTexts, needs, outside } from "../../support/outside.js";
import { referenceSnippets } from "../../support/snippet-reference.js";

interface Source {
  /** Where passage_rows places it, read apart from its text: the hit's own chunk id must agree. */
  place: string;
  title: string;
  path: string[];
  heading: string;
  body: string;
}

/** Git's manuals, two documents a manual so hits of one block and of one document come together. */
function gitManuals(): { index: PassageIndex; sources: Map<string, Source>; rows: Map<string, number> } {
  const index = new PassageIndex();
  const sources = new Map<string, Source>();
  const rows = new Map<string, number>();
  index.apply(
    gitManualTexts(120).map(({ name, content }, d) => {
      const path = ["git", name.slice(0, 3)];
      const passages = chunkDocument({ title: name, content, format: "text" }).map((p, i) => {
        const chunkId = `${name}-${i}`;
        sources.set(chunkId, {
          place: `d${d}:${p.ordinal}`,
          title: name,
          path,
          heading: p.heading,
          body: p.text,
        });
        for (const word of new Set(queryTerms(`${name} ${p.heading} ${p.text}`.toLowerCase()))) {
          rows.set(word, (rows.get(word) ?? 0) + 1);
        }
        return { chunkId, ordinal: p.ordinal, heading: p.heading, text: p.text };
      });
      return { id: `d${d}`, title: name, path, passages };
    }),
  );
  return { index, sources, rows };
}

/** Two-word questions of words in 2–40 passages, ASCII letters only, picked evenly through the vocabulary. */
function rareQuestions(rows: ReadonlyMap<string, number>, count: number): string[] {
  const rare = [...rows]
    .filter(([word, n]) => n >= 2 && n <= 40 && /^[a-z]{4,}$/.test(word))
    .map(([word]) => word)
    .sort();
  const step = Math.max(1, Math.floor(rare.length / (2 * count)));
  const questions: string[] = [];
  for (let i = 0; i + step < rare.length && questions.length < count; i += 2 * step) {
    questions.push(`${rare[i]} ${rare[i + step]}`);
  }
  return questions;
}

needs(outside.gitManuals).describe("a passage searcher", () => {
  const { index, sources, rows } = gitManuals();
  const questions = rareQuestions(rows, 40);

  it("shows every hit's own heading, title, path and a snippet of its own body, several hits a block", () => {
    expect(questions.length).toBe(40);
    let sharedBlocks = 0;
    for (const q of questions) {
      const match = matchQuery(q);
      const hits = index.find(match, 20);
      expect(hits.length, q).toBeGreaterThan(0);
      const shown = hits.map((hit) => sources.get(hit.chunkId));
      const expectedSnippets = referenceSnippets(
        shown.map((s) => ({
          heading: s?.heading ?? "",
          body: s?.body ?? "",
          title: s?.title ?? "",
          path: s?.path.join(TRAIL_SEPARATOR) ?? "",
        })),
        match.expression,
      );
      for (const [i, hit] of hits.entries()) {
        const source = shown[i];
        expect(source?.place, hit.chunkId).toBe(`${hit.documentId}:${hit.ordinal}`);
        expect(hit.heading).toBe(source?.heading);
        expect(hit.title).toBe(source?.title);
        expect(hit.path).toEqual(source?.path);
        expect(hit.snippet, `${q}: ${hit.chunkId}`).toBe(expectedSnippets[i]);
      }
      const documents = new Set(hits.map((hit) => hit.documentId));
      if (documents.size < hits.length) sharedBlocks++;
    }
    // The questions must exercise hits of one document (and so of one block) in one search.
    expect(sharedBlocks).toBeGreaterThan(0);
  });

  it("ranks a question of rare words as the full expression in the canonical order, score for score", () => {
    const view = (hits: PassageHit[]) => hits.map((h) => [h.chunkId, h.score, h.snippet]);
    for (const q of questions) {
      const match = matchQuery(q);
      const ordered = canonicalOrder(
        match.terms,
        new Map(match.terms.map((t) => [t, index.search(`"${t}"`, 100_000).length])),
      );
      expect(view(index.find(match, 20)), q).toEqual(
        view(index.search(orExpression(ordered, ordered), 20, match.expression)),
      );
    }
  });
});
