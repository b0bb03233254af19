// Pages read ahead of their use (src/live/pages-in-order.ts), against a sorted array standing in for a table's
// key order: every row handed out once and in order, whatever order reads answer in and whatever is written
// into a range after the starts were read; never a page past the limit; never more than `ahead` ranges asked
// beyond the one handed out; a failed read is the caller's failure, not an unhandled rejection.

import { describe, expect, it } from "vitest";
import { pagesInOrder } from "../../src/live/pages-in-order.js";
import type { KeyRange } from "../../src/store/page.js";

/** A table of numeric keys, read by range as the store's range reads do, each read after `delay(range)` ms. */
function table(keys: number[], delay: (range: KeyRange<number>) => number = () => 0) {
  const rows = [...keys].sort((a, b) => a - b);
  const reads: KeyRange<number>[] = [];
  let outstanding = 0;
  let mostOutstanding = 0;
  const read = async (range: KeyRange<number>, limit: number) => {
    reads.push(range);
    outstanding++;
    mostOutstanding = Math.max(mostOutstanding, outstanding);
    await new Promise((done) => setTimeout(done, delay(range)));
    outstanding--;
    return rows
      .filter((key) => (range.fromIncluded ? key >= range.from : key > range.from))
      .filter((key) => range.before === null || key < range.before)
      .slice(0, limit);
  };
  /** Every `size`th key, as the store's page starts are. */
  const starts = (size: number) => rows.filter((_, i) => i % size === 0);
  return {
    rows,
    read,
    reads,
    starts,
    insert: (key: number) => {
      const at = rows.findIndex((k) => k > key);
      rows.splice(at === -1 ? rows.length : at, 0, key);
    },
    mostOutstanding: () => mostOutstanding,
  };
}

async function collect<T>(pages: AsyncGenerator<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

const keyOf = (row: number) => row;
const keys = (n: number) => Array.from({ length: n }, (_, i) => i * 10);

describe("pagesInOrder", () => {
  it("hands out every row once, in order, when later pages answer first", async () => {
    const t = table(keys(40), (range) => 40 - range.from / 10);
    const pages = await collect(pagesInOrder(t.starts(5), { read: t.read, keyOf, ahead: 3, limit: 10 }));
    expect(pages.flat()).toEqual(keys(40));
    expect(pages.map((page) => page.length)).toEqual(Array(8).fill(5));
  });

  it("goes on past a range grown by writes, in pages no larger than the limit, before the next range", async () => {
    const t = table(keys(40));
    const starts = t.starts(5);
    // Written after the starts were read: 23 keys inside the second range (10..49 → 50 excluded), 3 in the last.
    for (let i = 0; i < 23; i++) t.insert(51 + i * 0.1);
    for (const extra of [391, 392, 393]) t.insert(extra);
    for (const ahead of [0, 2, 4]) {
      const pages = await collect(pagesInOrder(starts, { read: t.read, keyOf, ahead, limit: 10 }));
      expect(pages.flat()).toEqual(t.rows);
      expect(Math.max(...pages.map((page) => page.length))).toBeLessThanOrEqual(10);
    }
  });

  it("holds at most `ahead` ranges asked beyond the one handed out", async () => {
    for (const ahead of [0, 1, 2, 4]) {
      const t = table(keys(24), (range) => (range.from % 30) / 10);
      let handedOut = 0;
      for await (const _ of pagesInOrder(t.starts(2), { read: t.read, keyOf, ahead, limit: 4 })) {
        handedOut++;
        expect(t.reads.length).toBe(Math.min(handedOut + ahead, 12));
      }
      expect(t.mostOutstanding()).toBeLessThanOrEqual(ahead + 1);
    }
  });

  it("asks nothing when there are no pages, and hands out no empty page of a range emptied since", async () => {
    const empty = table([]);
    expect(await collect(pagesInOrder([], { read: empty.read, keyOf, ahead: 4, limit: 4 }))).toEqual([]);
    expect(empty.reads).toEqual([]);
    const t = table(keys(6));
    const starts = t.starts(2);
    t.rows.splice(2, 2);
    expect(await collect(pagesInOrder(starts, { read: t.read, keyOf, ahead: 1, limit: 4 }))).toEqual([
      [0, 10],
      [40, 50],
    ]);
  });

  it("throws a failed read at the caller when its page's turn comes, and leaves no rejection unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const read = async (range: KeyRange<number>) => {
        if (range.from >= 2) throw new Error(`page ${range.from} failed`);
        return [range.from];
      };
      const seen: number[][] = [];
      await expect(
        (async () => {
          for await (const page of pagesInOrder([0, 1, 2, 3, 4], { read, keyOf, ahead: 3, limit: 4 }))
            seen.push(page);
        })(),
      ).rejects.toThrow("page 2 failed");
      expect(seen).toEqual([[0], [1]]);
      await new Promise((done) => setTimeout(done, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
