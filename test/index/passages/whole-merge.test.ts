// Merging a passage index whole (PassageIndex.wholeMergeStep, needsWholeMerge): on real manuals written in
// batches, as the batch route writes them, the merge ends, leaves the answers exactly as they were and the
// pages no more than they were, and the count of what was written starts again.

import { afterEach, expect, it } from "vitest";
import { heldOutSentences, indexedDocuments, readDebianManuals } from "../../../bench/debian-docs.js";
import { PassageIndex, WHOLE_MERGE_MIN_PASSAGES } from "../../../src/index/passages/passage-index.js";
import { matchQuery } from "../../../src/index/query.js";
import { needs, outside } from "../../support/outside.js";

needs(outside.debianManuals).describe("a whole merge", () => {
  const opened: PassageIndex[] = [];
  afterEach(() => {
    for (const index of opened.splice(0)) index.close();
  });

  it("ends with the same answers, no more pages, and nothing left to merge", () => {
    const corpus = readDebianManuals(4000);
    const documents = indexedDocuments(corpus);
    const index = new PassageIndex();
    opened.push(index);
    for (let i = 0; i < documents.length; i += 20) index.apply(documents.slice(i, i + 20));
    const written = documents.reduce((n, doc) => n + doc.passages.length, 0);
    expect(written).toBeGreaterThan(WHOLE_MERGE_MIN_PASSAGES);
    expect(index.needsWholeMerge()).toBe(true);

    const questions = heldOutSentences(corpus, 30, 10, 20);
    const twoWords = questions.map((q) => q.split(/\s+/).slice(0, 2).join(" "));
    const asked = [...questions, ...twoWords].map((q) => matchQuery(q));
    const before = asked.map((query) => index.find(query, 20));
    const bytesBefore = index.memoryBytes();

    let steps = 0;
    while (index.wholeMergeStep()) steps++;
    // Written in 20-document batches, the index held several segments: the merge had work to do.
    expect(steps).toBeGreaterThan(0);
    expect(index.wholeMergeStep()).toBe(false);
    expect(index.needsWholeMerge()).toBe(false);
    expect(index.memoryBytes()).toBeLessThanOrEqual(bytesBefore);
    expect(asked.map((query) => index.find(query, 20))).toEqual(before);
    expect(before.flat().length).toBeGreaterThan(0);
  });

  it("asks for none after a lone document, and asks once enough is written again", () => {
    const corpus = readDebianManuals(3000);
    const documents = indexedDocuments(corpus);
    const index = new PassageIndex();
    opened.push(index);
    index.apply(documents);
    while (index.wholeMergeStep());
    expect(index.needsWholeMerge()).toBe(false);
    // One more document is far below both bounds.
    const [first] = documents;
    if (!first) throw new Error("no documents read");
    index.apply([{ ...first, id: "again" }]);
    expect(index.needsWholeMerge()).toBe(false);
    // Written again, document by document, until past WHOLE_MERGE_MIN_PASSAGES (3,000 passages: a tenth is
    // less): only then does it ask for a merge.
    let written = first.passages.length;
    for (const [i, doc] of documents.entries()) {
      index.apply([{ ...doc, id: `copy${i}` }]);
      written += doc.passages.length;
      expect(index.needsWholeMerge()).toBe(written >= WHOLE_MERGE_MIN_PASSAGES);
      if (written >= WHOLE_MERGE_MIN_PASSAGES) break;
    }
    expect(index.needsWholeMerge()).toBe(true);
  });
});
