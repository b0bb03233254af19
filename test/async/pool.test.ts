import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter, mapLimit } from "../../src/async/pool.js";

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("Limiter", () => {
  it("runs at most `limit` tasks at once, hands slots over in arrival order, and is idle after", async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        limiter.run(async () => {
          started.push(i);
          running++;
          most = Math.max(most, running);
          await tick();
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(limiter.idle).toBe(true);
  });

  it("frees the slot of a task that fails", async () => {
    const limiter = new Limiter(1);
    await expect(
      limiter.run(async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    await expect(limiter.run(async () => 7)).resolves.toBe(7);
    expect(limiter.idle).toBe(true);
  });

  it("refuses a limit below one", () => {
    expect(() => new Limiter(0)).toThrow(RangeError);
  });
});

describe("mapLimit", () => {
  it("answers in the items' order whatever order they finish in, never over the limit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(3), { maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        async (ticks, limit) => {
          let running = 0;
          let most = 0;
          const results = await mapLimit(ticks, limit, async (t, i) => {
            running++;
            most = Math.max(most, running);
            for (let n = 0; n < t; n++) await tick();
            running--;
            return i * 10 + t;
          });
          expect(results).toEqual(ticks.map((t, i) => i * 10 + t));
          expect(most).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("rejects with the first failure and starts nothing after it", async () => {
    const started: number[] = [];
    await expect(
      mapLimit([0, 1, 2, 3, 4], 1, async (i) => {
        started.push(i);
        if (i === 1) throw new Error("second failed");
        return i;
      }),
    ).rejects.toThrow("second failed");
    expect(started).toEqual([0, 1]);
  });
});
