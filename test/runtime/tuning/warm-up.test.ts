// Work done ahead of need in slices (src/runtime/tuning/warm-up.ts): every step runs once, in order; the event loop
// gets through between slices, so a task that arrives meanwhile runs before the warm-up ends; stop() ends
// it early; a step that throws ends it without an unhandled error; a delay holds its first slice back.

import { describe, expect, it } from "vitest";
import { WARM_UP_CUTS } from "../../../src/index/snippets/snippet-warm-up.js";
import { warmInSlices, warmSnippetCutter } from "../../../src/runtime/tuning/warm-up.js";

describe("warmInSlices", () => {
  it("runs every step once, in order", async () => {
    const seen: number[] = [];
    const warmUp = warmInSlices(25, (i) => seen.push(i), 10);
    await warmUp.done;
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(warmUp.ran).toBe(25);
  });

  it("lets other work run between its slices", async () => {
    const order: string[] = [];
    const warmUp = warmInSlices(30, (i) => order.push(`step ${i}`), 10);
    // Queued after the first slice's timer: it must run before the last slice, not after all of them.
    setTimeout(() => order.push("other"), 0);
    await warmUp.done;
    const other = order.indexOf("other");
    expect(other).toBeGreaterThan(0);
    expect(other).toBeLessThan(order.length - 1);
    // Slices are whole: the other task lands between two steps a slice apart.
    expect(order.slice(0, other).length % 10).toBe(0);
  });

  it("runs nothing more once stopped", async () => {
    let ran = 0;
    const warmUp = warmInSlices(1000, () => ran++, 10);
    await new Promise((resolve) => setTimeout(resolve, 0));
    warmUp.stop();
    const stoppedAt = ran;
    await warmUp.done;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toBe(stoppedAt);
    expect(ran).toBeLessThan(1000);
  });

  it("ends at a step that throws", async () => {
    let ran = 0;
    const warmUp = warmInSlices(
      100,
      (i) => {
        ran++;
        if (i === 14) throw new Error("step failed");
      },
      10,
    );
    await warmUp.done;
    expect(ran).toBe(15);
  });

  it("runs no step before its delay, and every step after it", async () => {
    const order: string[] = [];
    const warmUp = warmInSlices(20, (i) => order.push(`step ${i}`), 10, 50);
    // Timers queued after the warm-up's but due before its delay run first.
    setTimeout(() => order.push("before the delay"), 0);
    setTimeout(() => order.push("still before"), 20);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(warmUp.ran).toBe(0);
    await warmUp.done;
    expect(order.slice(0, 2)).toEqual(["before the delay", "still before"]);
    expect(warmUp.ran).toBe(20);
  });

  it("stopped during its delay, runs nothing", async () => {
    let ran = 0;
    const warmUp = warmInSlices(10, () => ran++, 10, 50);
    warmUp.stop();
    await warmUp.done;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(ran).toBe(0);
  });

  it("ends at once with nothing to do", async () => {
    const warmUp = warmInSlices(0, () => {
      throw new Error("no step should run");
    });
    await warmUp.done;
    expect(warmUp.ran).toBe(0);
  });
});

describe("warmSnippetCutter", () => {
  it("makes every warm-up cut on this thread", async () => {
    const warmUp = warmSnippetCutter();
    await warmUp.done;
    expect(warmUp.ran).toBe(WARM_UP_CUTS);
  });
});
