// A load's held-back merging (MergeScheduler.settle) on real manuals written in batches, as a build writes
// them: merged whole into one segment, or, with the whole-merge switch off (src/tuning.ts), only as far as
// FTS5's own levels, which leave segments a whole merge would still join. The answers are the same either way.

import { afterEach, expect, it } from "vitest";
import { heldOutSentences, indexedDocuments, readDebianManuals } from "../../bench/debian-docs.js";
import { EntryIndex } from "../../src/index/entry-index.js";
import { PassageIndex } from "../../src/index/passages/passage-index.js";
import { matchQuery } from "../../src/index/query.js";
import { MergeScheduler } from "../../src/live/merges.js";
import { TeamRegistry } from "../../src/live/registry.js";
import { UnreadableRows } from "../../src/live/unreadable.js";
import { silentLogger } from "../../src/logger.js";
import { needs, outside } from "../support/outside.js";

needs(outside.debianManuals).describe("a load's merging", () => {
  const opened: PassageIndex[] = [];
  const closing: (() => void)[] = [];
  afterEach(() => {
    for (const index of opened.splice(0)) index.close();
    for (const close of closing.splice(0)) close();
  });

  const corpus = () => readDebianManuals(4000);

  /** An index loaded as a build loads one, its merging held back, then settled by a scheduler. */
  async function settledLoad(whole: boolean) {
    const documents = indexedDocuments(corpus());
    const index = new PassageIndex();
    opened.push(index);
    index.holdMerges(true);
    for (let i = 0; i < documents.length; i += 20) index.apply(documents.slice(i, i + 20));
    index.holdMerges(false);
    const team = new TeamRegistry().open("team");
    const entries = new EntryIndex();
    closing.push(() => entries.close());
    team.install(index, entries, 0, { documents: new UnreadableRows(), entries: new UnreadableRows() });
    const merges = new MergeScheduler(silentLogger, 50, whole);
    merges.settle(team, index);
    await merges.settled(team);
    return index;
  }

  it("ends in one segment when merged whole, and at FTS5's levels with the whole-merge switch off", async () => {
    const merged = await settledLoad(true);
    const levels = await settledLoad(false);
    expect(merged.wholeMergeStep()).toBe(false);
    // Nothing left at FTS5's own levels, yet segments a whole merge joins.
    expect(levels.levelMergeStep()).toBe(false);
    expect(levels.wholeMergeStep()).toBe(true);
    const questions = heldOutSentences(corpus(), 20, 10, 20).map((q) => matchQuery(q));
    expect(questions.map((q) => levels.find(q, 20))).toEqual(questions.map((q) => merged.find(q, 20)));
  });
});
