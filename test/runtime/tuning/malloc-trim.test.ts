// glibc's malloc_trim after an idle collection (src/runtime/tuning/malloc-trim.ts): on this glibc machine it is bound,
// it gives back the free pages between live blocks that freeing alone leaves in the process, and requests made
// before a trim runs are one trim.

import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { MallocTrim } from "../../../src/runtime/tuning/malloc-trim.js";

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rssBytes(): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
  return Number(kb) * 1024;
}

async function trimmed(trim: MallocTrim, count: number): Promise<void> {
  while (trim.trims < count) await sleep(10);
}

describe("malloc trim", () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  it("is bound on a glibc Linux", async () => {
    const trim = new MallocTrim();
    stops.push(() => trim.stop());
    expect(await trim.available()).toBe(process.platform === "linux");
  });

  it("gives back the free pages between live blocks", async () => {
    const trim = new MallocTrim({ delayMs: 0 });
    stops.push(() => trim.stop());
    if (!(await trim.available())) return;
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // 96 MiB of 16 KiB buffers (below glibc's mmap threshold: they come from malloc's heaps), every other one
    // freed, so the free space sits between live blocks, where free() cannot hand it back.
    let blocks: Buffer[] | null = Array.from({ length: 6144 }, () =>
      Buffer.allocUnsafeSlow(16 * 1024).fill(1),
    );
    const kept = blocks.filter((_, i) => i % 2 === 0);
    blocks = null;
    gc();
    // V8 frees dead buffers' memory on a background thread after the collection.
    await sleep(300);
    const before = rssBytes();
    trim.request();
    await trimmed(trim, 1);
    const after = rssBytes();
    expect(kept.length).toBe(3072);
    expect(before - after).toBeGreaterThan(24 * MiB);
  });

  it("makes one trim of the requests made before it runs", async () => {
    const trim = new MallocTrim({ delayMs: 50 });
    stops.push(() => trim.stop());
    if (!(await trim.available())) return;
    trim.request();
    trim.request();
    trim.request();
    await trimmed(trim, 1);
    await sleep(100);
    expect(trim.trims).toBe(1);
    trim.request();
    await trimmed(trim, 2);
    expect(trim.trims).toBe(2);
  });
});
