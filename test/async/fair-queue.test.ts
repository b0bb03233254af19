import { describe, expect, it } from "vitest";
import { FairQueue, QueueRefusedError } from "../../src/async/fair-queue.js";

/** A promise the test settles, and a task that waits for it: holds a slot for as long as the test likes. */
function gate(): { open(): void; wait: () => Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, wait: () => opened };
}

async function refusal(promise: Promise<unknown>): Promise<QueueRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof QueueRefusedError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe("FairQueue", () => {
  it("counts the tasks running and the tasks waiting for a slot, every key together", async () => {
    const queue = new FairQueue({ slots: 1, maxWaiting: 100, timeoutMs: 60_000 });
    expect([queue.running, queue.queued]).toEqual([0, 0]);
    const held = gate();
    const holding = queue.run("a", held.wait);
    const waiting = [queue.run("a", () => {}), queue.run("b", () => {}), queue.run("b", () => {})];
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect([queue.running, queue.queued]).toEqual([1, 3]);
    held.open();
    await Promise.all([holding, ...waiting]);
    expect([queue.running, queue.queued]).toEqual([0, 0]);
  });

  it("serves the waiting keys in turn, so one key's flood does not go before another key's task", async () => {
    const queue = new FairQueue({ slots: 1, maxWaiting: 100, timeoutMs: 60_000 });
    const held = gate();
    const holding = queue.run("holder", held.wait);
    const order: string[] = [];
    const flood = Array.from({ length: 20 }, (_, i) => queue.run("flood", () => order.push(`flood${i}`)));
    const other = queue.run("other", () => order.push("other"));
    expect(queue.waiting("flood")).toBe(20);
    held.open();
    await Promise.all([holding, other, ...flood]);
    // FIFO would put "other" last; in turn it goes right after the flood's first task.
    expect(order.indexOf("other")).toBe(1);
    expect(order.filter((name) => name.startsWith("flood"))).toEqual(
      Array.from({ length: 20 }, (_, i) => `flood${i}`),
    );
  });

  it("refuses a key's task at once past maxWaiting, and keeps serving that key's waiting ones", async () => {
    const queue = new FairQueue({ slots: 1, maxWaiting: 3, timeoutMs: 60_000 });
    const held = gate();
    const holding = queue.run("holder", held.wait);
    const waiting = [1, 2, 3].map((n) => queue.run("team", () => n));
    const refused = await refusal(queue.run("team", () => 4));
    expect(refused.reason).toBe("full");
    expect(refused.retryAfterSeconds).toBe(60);
    // Another key's line is its own.
    const other = queue.run("other", () => "other");
    held.open();
    await holding;
    expect(await Promise.all(waiting)).toEqual([1, 2, 3]);
    expect(await other).toBe("other");
  });

  it("tells a task when its wait runs out: its arrival plus timeoutMs, however long it waited", async () => {
    const queue = new FairQueue({ slots: 1, maxWaiting: 10, timeoutMs: 60_000 });
    const held = gate();
    const holding = queue.run("holder", held.wait);
    const before = performance.now();
    const told = queue.run("team", (startBy) => startBy);
    const after = performance.now();
    held.open();
    await holding;
    const startBy = await told;
    expect(startBy).toBeGreaterThanOrEqual(before + 60_000);
    expect(startBy).toBeLessThanOrEqual(after + 60_000);
  });

  it("refuses a task that waited timeoutMs for a slot, without ever running it", async () => {
    const queue = new FairQueue({ slots: 1, maxWaiting: 10, timeoutMs: 20 });
    const held = gate();
    const holding = queue.run("holder", held.wait);
    let ran = false;
    const refused = await refusal(
      queue.run("team", () => {
        ran = true;
      }),
    );
    expect(refused.reason).toBe("timed_out");
    // Never under a second: Retry-After counts whole seconds.
    expect(refused.retryAfterSeconds).toBe(1);
    expect(queue.waiting("team")).toBe(0);
    held.open();
    await holding;
    expect(await queue.run("team", () => "served")).toBe("served");
    expect(ran).toBe(false);
  });

  it("frees the slot of a task that throws, synchronously or not, and answers its caller with the error", async () => {
    const queue = new FairQueue({ slots: 1, maxWaiting: 10, timeoutMs: 60_000 });
    await expect(
      queue.run("team", () => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    await expect(queue.run("team", () => Promise.reject(new Error("async")))).rejects.toThrow("async");
    expect(queue.running).toBe(0);
    expect(await queue.run("team", () => 7)).toBe(7);
  });

  it("runs no more than its slots at once", async () => {
    const queue = new FairQueue({ slots: 3, maxWaiting: 100, timeoutMs: 60_000 });
    let now = 0;
    let most = 0;
    const tasks = Array.from({ length: 12 }, (_, i) =>
      queue.run(`key${i % 4}`, async () => {
        now++;
        most = Math.max(most, now);
        await new Promise((resolve) => setTimeout(resolve, 1));
        now--;
      }),
    );
    await Promise.all(tasks);
    expect(most).toBe(3);
  });
});
