// A search thread started from the TypeScript source (src/runtime/thread-source.ts) runs its entry bundled:
// one thread, with no module-hooks thread of tsx's beside it (docs/decisions/0065-rss-account.md).

import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PassageIndex } from "../../src/index/passages/passage-index.js";
import { matchQuery } from "../../src/index/query.js";
import { SearchThreads } from "../../src/runtime/search-threads.js";

const threadCount = () => readdirSync("/proc/self/task").length;
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe("a search thread from the source", () => {
  it("is one thread with no module-hooks thread beside it, and answers as the main thread does", async () => {
    const index = new PassageIndex();
    const threads = new SearchThreads({ threads: 1, busyTimeoutMs: 2000, minPassages: 0, inlineMaxTerms: 0 });
    try {
      index.apply([
        {
          id: "a",
          title: "Rota",
          path: [],
          passages: [
            { chunkId: "a#0", ordinal: 0, heading: "", text: "the weekend rota" },
            { chunkId: "a#1", ordinal: 1, heading: "", text: "holiday cover" },
          ],
        },
      ]);
      const query = matchQuery("weekend rota");
      // The bundle is made, and esbuild's service ended, before the thread is counted.
      await threads.find(index, query, 5);
      await threads.restartThreads();
      await settle();
      const before = threadCount();
      const hits = await threads.find(index, query, 5);
      await settle();
      expect(threadCount() - before).toBe(1);
      expect(hits).toEqual(index.find(query, 5));
    } finally {
      await threads.close();
      index.close();
    }
  });
});
