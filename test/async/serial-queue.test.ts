import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyedSerialQueue, SerialQueue } from "../../src/async/serial-queue.js";

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("SerialQueue", () => {
  it("never overlaps two tasks and runs them in the order queued", async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    let running = 0;
    const task = (name: string, ticks: number) => async () => {
      running++;
      expect(running).toBe(1);
      log.push(`start ${name}`);
      for (let i = 0; i < ticks; i++) await tick();
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all([
      queue.run(task("a", 3)),
      queue.run(task("b", 0)),
      queue.run(task("c", 1)),
    ]);
    expect(results).toEqual(["a", "b", "c"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("answers a failure to its own caller only, and goes on with the next task", async () => {
    const queue = new SerialQueue();
    const failing = queue.run(async () => {
      throw new Error("boom");
    });
    const after = queue.run(async () => "after");
    await expect(failing).rejects.toThrow("boom");
    await expect(after).resolves.toBe("after");
  });
});

describe("KeyedSerialQueue", () => {
  it("serialises tasks of one key, lets other keys run alongside, and forgets idle keys", async () => {
    const queue = new KeyedSerialQueue();
    const running = new Map<string, number>();
    let most = 0;
    const task = (key: string) =>
      queue.run(key, async () => {
        running.set(key, (running.get(key) ?? 0) + 1);
        expect(running.get(key)).toBe(1);
        most = Math.max(
          most,
          [...running.values()].reduce((a, b) => a + b, 0),
        );
        await tick();
        running.set(key, (running.get(key) ?? 1) - 1);
      });
    await Promise.all([task("x"), task("y"), task("x"), task("y")]);
    expect(most).toBe(2);
    expect(queue.size).toBe(0);
  });

  it("keeps per-key order for any interleaving of keys and failures", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom("a", "b", "c"), fail: fc.boolean(), ticks: fc.nat(2) }), {
          maxLength: 20,
        }),
        async (tasks) => {
          const queue = new KeyedSerialQueue();
          const order: number[] = [];
          await Promise.allSettled(
            tasks.map((t, i) =>
              queue.run(t.key, async () => {
                for (let n = 0; n < t.ticks; n++) await tick();
                order.push(i);
                if (t.fail) throw new Error("task failed");
              }),
            ),
          );
          for (const key of ["a", "b", "c"]) {
            const expected = tasks.flatMap((t, i) => (t.key === key ? [i] : []));
            expect(order.filter((i) => tasks[i]?.key === key)).toEqual(expected);
          }
          expect(queue.size).toBe(0);
        },
      ),
      { numRuns: 50 },
    );
  });
});

// A queue's tail must not keep the last task's value alive: a snapshot write hands back its sealed parts
// through its team's queue, and a team with no task after it held them until the process ended.
describe("a settled task's value", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  // Runs one task that returns a large value, and lets it go. In a frame of its own: an async function's
  // frame can keep a value it awaited alive until its next await, which would hide what is measured here.
  const ranOnce = async (
    run: (task: () => Promise<object>) => Promise<object>,
  ): Promise<WeakRef<object>[]> => {
    const refs: WeakRef<object>[] = [];
    await run(async () => {
      const value = { parts: new Uint8Array(1024 * 1024) };
      refs.push(new WeakRef(value));
      return value;
    });
    return refs;
  };
  const collected = async (refs: WeakRef<object>[]): Promise<boolean> => {
    for (let i = 0; i < 5 && refs[0]?.deref() !== undefined; i++) {
      await tick();
      gc();
    }
    return refs.length === 1 && refs[0]?.deref() === undefined;
  };

  it("is not held by a SerialQueue once its caller lets it go", async () => {
    const queue = new SerialQueue();
    const refs = await ranOnce((task) => queue.run(task));
    const done = await collected(refs);
    expect(done).toBe(true);
  });
});
