// The full collection once the server is idle after heavy work (src/runtime/tuning/idle-collection.ts): it runs when
// the heap and its buffers grew and no request is in flight, and not while one is, nor without growth; or,
// after work, when the old generation's committed pages sit half used, which its compaction gives back.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { IdleCollection, oldGenerationSlack } from "../../../src/runtime/tuning/idle-collection.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

/** V8's own full collection, as the test's own tool (the idle collection's compacts). */
function v8Collection(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/**
 * V8's full collection, and time for its sweeper to release what it found, before a collection's baseline is
 * taken: garbage an earlier test left (its 64 MiB buffer) would otherwise sit in the baseline, and V8 freeing it
 * later cancels the growth the test makes (seen once in a full run: "does not collect while a request is in
 * flight" saw no growth, and no collection; a collection without the wait made it fail every time, the buffer's
 * memory leaving the count only after the baseline was read).
 */
async function withoutEarlierGarbage(): Promise<void> {
  const gc = v8Collection();
  gc();
  await sleep(100);
  gc();
  await sleep(100);
}

describe("idle collection", () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  async function collection(growthBytes: number) {
    await withoutEarlierGarbage();
    let collected = 0;
    const idle = new IdleCollection({ idleMs: 20, growthBytes, collect: () => collected++ });
    stops.push(() => idle.stop());
    return { idle, collected: () => collected };
  }

  it("collects once idle after the heap's buffers grew, then waits for new growth", async () => {
    const { idle, collected } = await collection(16 * MiB);
    const held = Buffer.alloc(64 * MiB, 1);
    for (let i = 0; i < 100 && collected() === 0; i++) await sleep(20);
    expect(collected()).toBe(1);
    // The baseline moved to what is held now: no growth since, no second collection.
    await sleep(200);
    expect(idle.collections).toBe(1);
    expect(held.length).toBe(64 * MiB);
  });

  it("never collects with its switch off, and still tells each idle moment after work", async () => {
    await withoutEarlierGarbage();
    let collected = 0;
    let idled = 0;
    const idle = new IdleCollection({
      idleMs: 20,
      growthBytes: 16 * MiB,
      collect: () => collected++,
      collects: false,
      idled: () => idled++,
    });
    stops.push(() => idle.stop());
    const held = Buffer.alloc(64 * MiB, 1);
    await idle.around(async () => held.length)();
    for (let i = 0; i < 100 && idled === 0; i++) await sleep(20);
    expect(idled).toBe(1);
    await sleep(100);
    expect(collected).toBe(0);
    expect(idle.collections).toBe(0);
  });

  it("does not collect while a request is in flight", async () => {
    const { idle, collected } = await collection(16 * MiB);
    let finish: () => void = () => {};
    const handler = idle.around(
      () =>
        new Promise<string>((resolve) => {
          finish = () => resolve("answered");
        }),
    );
    const answer = handler();
    const held = Buffer.alloc(64 * MiB, 1);
    await sleep(200);
    expect(collected()).toBe(0);
    finish();
    expect(await answer).toBe("answered");
    for (let i = 0; i < 100 && collected() === 0; i++) await sleep(20);
    expect(collected()).toBe(1);
    expect(held.length).toBe(64 * MiB);
  });

  it("collects after the committed heap grew though what it holds did not", async () => {
    const usage = { held: 100 * MiB, committed: 120 * MiB };
    let collected = 0;
    const idle = new IdleCollection({
      idleMs: 20,
      growthBytes: 8 * MiB,
      collect: () => {
        collected++;
        usage.committed = 125 * MiB;
      },
      usage: () => ({ ...usage }),
    });
    stops.push(() => idle.stop());
    await sleep(100);
    expect(collected).toBe(0);
    // A search thread's old generation after a burst: committed pages, little more held.
    usage.committed = 140 * MiB;
    usage.held = 104 * MiB;
    for (let i = 0; i < 100 && collected === 0; i++) await sleep(20);
    expect(collected).toBe(1);
    await sleep(200);
    expect(collected).toBe(1);
  });

  it("waits for background work, so it collects once what that work left is garbage", async () => {
    const usage = { held: 100 * MiB, committed: 120 * MiB };
    let busy = true;
    const heldWhenCollected: number[] = [];
    const idle = new IdleCollection({
      idleMs: 20,
      growthBytes: 16 * MiB,
      busy: () => busy,
      collect: () => {
        heldWhenCollected.push(usage.held);
        usage.held = 101 * MiB;
      },
      usage: () => ({ ...usage }),
    });
    stops.push(() => idle.stop());
    // A snapshot write with no request in flight: its sealed parts grow what the heap holds.
    usage.held = 130 * MiB;
    await sleep(200);
    expect(idle.collections).toBe(0);
    // Stored: the parts are garbage, still counted until collected.
    busy = false;
    for (let i = 0; i < 100 && idle.collections === 0; i++) await sleep(20);
    expect(heldWhenCollected).toEqual([130 * MiB]);
    await sleep(200);
    expect(idle.collections).toBe(1);
  });

  it("tells once each time it goes idle after requests, with no growth to collect", async () => {
    const usage = { held: 100 * MiB, committed: 120 * MiB };
    let idled = 0;
    const idle = new IdleCollection({
      idleMs: 20,
      growthBytes: 16 * MiB,
      collect: () => {},
      usage: () => ({ ...usage }),
      idled: () => idled++,
    });
    stops.push(() => idle.stop());
    // Idle from the start, but nothing ran: not told.
    await sleep(100);
    expect(idled).toBe(0);
    const handler = idle.around(async () => "answered");
    expect(await handler()).toBe("answered");
    expect(await handler()).toBe("answered");
    for (let i = 0; i < 100 && idled === 0; i++) await sleep(20);
    expect(idled).toBe(1);
    await sleep(150);
    expect(idled).toBe(1);
    expect(idle.collections).toBe(0);
    await handler();
    for (let i = 0; i < 100 && idled === 1; i++) await sleep(20);
    expect(idled).toBe(2);
  });

  it("collects once idle after work when the old generation's pages sit unused, though nothing grew", async () => {
    const usage = { held: 100 * MiB, committed: 120 * MiB };
    let slack = 6 * MiB;
    const idle = new IdleCollection({
      idleMs: 20,
      growthBytes: 16 * MiB,
      slackBytes: 4 * MiB,
      slack: () => slack,
      collect: () => {
        slack = MiB / 2;
      },
      usage: () => ({ ...usage }),
    });
    stops.push(() => idle.stop());
    // Idle from the start with no work done: the slack is not read, nothing is collected.
    await sleep(150);
    expect(idle.collections).toBe(0);
    const handler = idle.around(async () => "answered");
    expect(await handler()).toBe("answered");
    for (let i = 0; i < 100 && idle.collections === 0; i++) await sleep(20);
    expect(idle.collections).toBe(1);
    // Work again, but what it left unused is under the bound: no second collection.
    slack = 3 * MiB;
    await handler();
    await sleep(200);
    expect(idle.collections).toBe(1);
  });

  it("the default collection compacts: an old generation's half-empty pages go back", async () => {
    await withoutEarlierGarbage();
    const gc = v8Collection();
    // Objects promoted to the old generation, then every other one dropped: each page half used, too little
    // free for V8's own collections to pick it for compaction (two in a row leave it as it is).
    let all: { n: number; text: string }[] = [];
    for (let i = 0; i < 400_000; i++) all.push({ n: i, text: `passage ${i}` });
    gc();
    gc();
    const kept = all.filter((_, i) => i % 2 === 0);
    all = [];
    gc();
    gc();
    const before = oldGenerationSlack();
    expect(before).toBeGreaterThan(8 * MiB);
    const idle = new IdleCollection({ idleMs: 20, growthBytes: 256 * MiB });
    stops.push(() => idle.stop());
    await idle.around(async () => "answered")();
    for (let i = 0; i < 100 && idle.collections === 0; i++) await sleep(20);
    expect(idle.collections).toBe(1);
    expect(oldGenerationSlack()).toBeLessThan(before / 4);
    expect(kept.length).toBe(200_000);
  });

  it("does not collect without growth", async () => {
    const { collected } = await collection(256 * MiB);
    await sleep(200);
    expect(collected()).toBe(0);
  });

  it("the default collection frees a buffer nothing reaches", async () => {
    await withoutEarlierGarbage();
    const idle = new IdleCollection({ idleMs: 20, growthBytes: 16 * MiB });
    stops.push(() => idle.stop());
    let garbage: Buffer | null = Buffer.alloc(64 * MiB, 1);
    const before = process.memoryUsage().arrayBuffers;
    expect(garbage.length).toBe(64 * MiB);
    garbage = null;
    for (let i = 0; i < 100 && idle.collections === 0; i++) await sleep(20);
    expect(idle.collections).toBe(1);
    // V8 releases a dead buffer's memory on a background thread after the collection, and the count drops only
    // then. On a busy machine that comes after the collection has returned: a CI run with the whole suite beside
    // it saw the count unchanged, and a collection of a dropped 64 MiB buffer with four CPU-bound processes
    // beside it left the count unchanged on return 69 times in 200 (0 in 200 on a quiet machine). So the test
    // waits for it, within the same bound as the collection.
    for (let i = 0; i < 100 && process.memoryUsage().arrayBuffers >= before - 32 * MiB; i++) await sleep(20);
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(before - 32 * MiB);
  });
});
