// The extract pool on a real worker thread, started from the TypeScript source as vitest runs it: it reads
// files as the inline extractor does, and a file that outgrows the worker's heap or its time fails alone,
// with a reason, while the next file gets a fresh worker; past its queue bound a file is refused at once;
// an idle worker ends, and the next file starts another.
// (The heap bound ends a worker whose heap grows; one allocation larger than the whole bound aborts the
// process instead, which is why the readers bound their inputs first: docs/decisions/0035-extraction-bounds.md.)

import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { isDomainError } from "../../src/errors.js";
import { inlineExtractor } from "../../src/extract/extract.js";
import { ExtractionError } from "../../src/extract/extraction-error.js";
import { ExtractPool } from "../../src/runtime/extract-pool.js";
import { GIT_MV_HTML, pandocDocx, printPdf, SEMVER_README, scratchDir } from "../support/files.js";
import { needs, outside } from "../support/outside.js";

needs(outside.pandoc).describe("the extract pool", () => {
  const scratch = scratchDir();
  let readme: Uint8Array;
  const pools: ExtractPool[] = [];
  const pool = (options: ConstructorParameters<typeof ExtractPool>[0] = {}) => {
    const made = new ExtractPool(options);
    pools.push(made);
    return made;
  };
  beforeAll(async () => {
    readme = await pandocDocx(SEMVER_README, join(scratch.dir, "semver.docx"));
  }, 120_000);
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });
  afterAll(() => scratch.remove());

  it("reads a file in the worker exactly as the inline extractor does, and leaves the caller's bytes whole", async () => {
    const extracted = await pool().extract({ format: "docx", bytes: readme });
    expect(extracted).toEqual(await inlineExtractor({ format: "docx", bytes: readme }));
    expect(readme.byteLength).toBeGreaterThan(0);
  });

  it("passes a refusal's reason back as the same ExtractionError", async () => {
    const error = await pool()
      .extract({ format: "pdf", bytes: readme })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractionError);
    expect((error as ExtractionError).problem).toBe("not_format");
  });

  needs(outside.chromium, outside.gitManuals).it(
    "refuses a file that outgrows the worker's heap as too_large, and reads the next on a new worker",
    async () => {
      const pdf = await printPdf(GIT_MV_HTML, join(scratch.dir, "git-mv.pdf"));
      // PDF.js grows its heap as it parses: past 12 MB the worker is ended, gracefully (not the process).
      const extracts = pool({ resourceLimits: { maxOldGenerationSizeMb: 12, maxYoungGenerationSizeMb: 4 } });
      const error = await extracts.extract({ format: "pdf", bytes: pdf }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtractionError);
      expect((error as ExtractionError).problem).toBe("too_large");
      expect((error as Error).message).toMatch(/more than 12 MB of memory/);
      expect((await extracts.extract({ format: "docx", bytes: readme })).title).toMatch(/^semver/);
    },
    120_000,
  );

  it("gives up on a file past its time as too_large, and reads the next on a new worker", async () => {
    const extracts = pool({ timeoutMs: 1 });
    const error = await extracts.extract({ format: "docx", bytes: readme }).catch((e: unknown) => e);
    expect((error as ExtractionError).problem).toBe("too_large");
    expect((error as Error).message).toMatch(/took longer than/);
  });

  it("refuses a file at once (unavailable) when its queue is full, and still reads the ones it took", async () => {
    const extracts = pool({ maxWaiting: 1 });
    const calls = [1, 2, 3].map(() =>
      extracts.extract({ format: "docx", bytes: readme }).then(
        () => "read",
        (e: unknown) => (isDomainError(e, "unavailable") ? "unavailable" : "other"),
      ),
    );
    // The first is in the worker, the second waits, the third finds the queue full.
    expect(await Promise.all(calls)).toEqual(["read", "read", "unavailable"]);
  });

  it("ends its worker left idle for idleMs, and reads the next file on a new one", async () => {
    const extracts = pool({ idleMs: 50 });
    const first = await extracts.extract({ format: "docx", bytes: readme });
    expect(extracts.workers).toBe(1);
    for (let i = 0; i < 500 && extracts.workers > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(extracts.workers).toBe(0);
    expect(await extracts.extract({ format: "docx", bytes: readme })).toEqual(first);
    expect(extracts.workers).toBe(1);
  });

  it("keeps its worker while files keep coming, and ends none while one is being read", async () => {
    // Every read takes far longer than 1 ms: a worker ended by an idle clock that ran while a file was read or
    // waiting would leave that file's call unanswered.
    const extracts = pool({ idleMs: 1 });
    const reads = [1, 2, 3].map(() => extracts.extract({ format: "docx", bytes: readme }));
    const titles = (await Promise.all(reads)).map((extracted) => extracted.title);
    expect(titles).toEqual([titles[0], titles[0], titles[0]]);
    expect(titles[0]).toMatch(/^semver/);
  });
});
