// The full collection once the server is idle after heavy work (src/runtime/idle-collection.ts): it runs when
// the heap and its buffers grew and no request is in flight, and not while one is, nor without growth.

import { afterEach, describe, expect, it } from "vitest";
import { IdleCollection } from "../../src/runtime/idle-collection.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

describe("idle collection", () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  function collection(growthBytes: number) {
    let collected = 0;
    const idle = new IdleCollection({ idleMs: 20, growthBytes, collect: () => collected++ });
    stops.push(() => idle.stop());
    return { idle, collected: () => collected };
  }

  it("collects once idle after the heap's buffers grew, then waits for new growth", async () => {
    const { idle, collected } = collection(16 * MiB);
    const held = Buffer.alloc(64 * MiB, 1);
    for (let i = 0; i < 100 && collected() === 0; i++) await sleep(20);
    expect(collected()).toBe(1);
    // The baseline moved to what is held now: no growth since, no second collection.
    await sleep(200);
    expect(idle.collections).toBe(1);
    expect(held.length).toBe(64 * MiB);
  });

  it("does not collect while a request is in flight", async () => {
    const { idle, collected } = collection(16 * MiB);
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

  it("does not collect without growth", async () => {
    const { collected } = collection(256 * MiB);
    await sleep(200);
    expect(collected()).toBe(0);
  });

  it("the default collection is V8's own: it frees a buffer nothing reaches", async () => {
    const idle = new IdleCollection({ idleMs: 20, growthBytes: 16 * MiB });
    stops.push(() => idle.stop());
    let garbage: Buffer | null = Buffer.alloc(64 * MiB, 1);
    const before = process.memoryUsage().arrayBuffers;
    expect(garbage.length).toBe(64 * MiB);
    garbage = null;
    for (let i = 0; i < 100 && idle.collections === 0; i++) await sleep(20);
    expect(idle.collections).toBe(1);
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(before - 32 * MiB);
  });
});
