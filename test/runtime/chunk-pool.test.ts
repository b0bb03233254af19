// The chunk pool on real worker threads, started from the TypeScript source as vitest runs it (the worker
// loads the chunker through tsx; the bundled path is covered by container.test.ts).

import { afterEach, describe, expect, it, vi } from "vitest";
import { packDocumentText } from "../../src/index/passages/passage-document.js";
import type { PackedBlock } from "../../src/index/passages/passage-text.js";
import { chunkDocument } from "../../src/ingest/chunk.js";
import type { ChunkInput } from "../../src/ingest/chunker.js";
import type { DocumentFormat } from "../../src/ingest/formats.js";
import { ChunkPool, INLINE_MAX_BYTES } from "../../src/runtime/chunk-pool.js";
import { readmeDocuments } from "../support/readme-documents.js";

/** Markdown with headings, lists, links, code and an HTML block, `sections` sections long. */
function markdown(sections: number, seed = 0): string {
  return Array.from(
    { length: sections },
    (_, i) =>
      `## Section ${seed}-${i}\n\nThe *ferry* timetable for pier ${i} is [posted](https://example.test/${i}).\n\n` +
      `- crane ${i}\n- tide \`table\` ${seed}\n\n\`\`\`\ncode line ${i}\n\`\`\`\n\n<div>harbour ${i}</div>\n`,
  ).join("\n");
}

/**
 * How long a test waits for a worker to start from the TypeScript source (through tsx): seconds on a busy
 * 2-core machine, where vi.waitFor's default second is not enough.
 */
const WORKER_STARTS = { timeout: 30_000, interval: 20 };

const doc = (content: string, format: DocumentFormat = "markdown", title = "Harbour"): ChunkInput => ({
  title,
  content,
  format,
});

describe("the chunk pool", () => {
  const pools: ChunkPool[] = [];
  const pool = (options: ConstructorParameters<typeof ChunkPool>[0] = {}) => {
    const made = new ChunkPool(options);
    pools.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  it("chunks every format exactly as chunkDocument does", async () => {
    const chunks = pool({ size: 1 });
    const inputs = [
      doc(markdown(300)),
      doc(
        `<h1>Harbour</h1><p>${"The night shift logs every container. ".repeat(400)}</p><h2>Cranes</h2><p>c</p>`,
        "html",
      ),
      doc("Plain first paragraph.\n\nPlain second paragraph.\n".repeat(500), "text"),
    ];
    for (const input of inputs) {
      const passages = await chunks.chunk(input);
      expect(passages.length).toBeGreaterThan(0);
      expect(passages).toEqual(chunkDocument(input));
    }
  }, 60_000);

  it("answers many concurrent calls, each with its own document's passages", async () => {
    const chunks = pool({ size: 2 });
    const inputs = Array.from({ length: 24 }, (_, i) => doc(markdown(20 + i, i), "markdown", `Doc ${i}`));
    const results = await Promise.all(inputs.map((input) => chunks.chunk(input)));
    results.forEach((passages, i) => {
      expect(passages).toEqual(chunkDocument(inputs[i] as ChunkInput));
    });
  }, 60_000);

  it("keeps small documents inline and sends large ones to a worker, with the same passages", async () => {
    const chunks = pool({ size: 1 });
    const small = doc("# Note\n\nA short note about the ferry.");
    const large = doc(markdown(400));
    expect(new TextEncoder().encode(small.content).length).toBeLessThan(INLINE_MAX_BYTES);
    expect(new TextEncoder().encode(large.content).length).toBeGreaterThanOrEqual(INLINE_MAX_BYTES);
    expect(await chunks.chunker(small)).toEqual(chunkDocument(small));
    expect(await chunks.chunker(large)).toEqual(chunkDocument(large));
  }, 60_000);

  it("fails only the call whose document the chunker refuses, and takes the next one", async () => {
    const chunks = pool({ size: 1 });
    const refused = chunks.chunk({ title: "x", content: "x", format: "rtf" as DocumentFormat });
    await expect(refused).rejects.toThrow(/TypeError/);
    const next = doc(markdown(5));
    expect(await chunks.chunk(next)).toEqual(chunkDocument(next));
  }, 60_000);

  it("fails the one call whose worker crashed, replaces the worker, and answers the next call", async () => {
    // A heap far too small for this document: its worker dies of it, as a worker outgrowing memory would.
    const chunks = pool({ size: 1, resourceLimits: { maxOldGenerationSizeMb: 16 } });
    const small = doc("# Note\n\nThe ferry leaves at nine.");
    expect(await chunks.chunk(small)).toEqual(chunkDocument(small));
    const huge = doc(
      Array.from({ length: 200_000 }, (_, i) => `## H${i}\n\n- a *b* [c](d) ${i}\n`).join("\n"),
    );
    const waiting = doc("# Queued\n\nThis one waits behind the crash.");
    const [crashed, queued] = await Promise.allSettled([chunks.chunk(huge), chunks.chunk(waiting)]);
    expect(crashed.status).toBe("rejected");
    expect(crashed.status === "rejected" && String(crashed.reason)).toMatch(/chunk worker crashed/);
    expect(queued).toEqual({ status: "fulfilled", value: chunkDocument(waiting) });
    expect(await chunks.chunk(small)).toEqual(chunkDocument(small));
  }, 60_000);

  it("fails the call of a worker that takes longer than its bound", async () => {
    const chunks = pool({ size: 1, timeoutMs: 1 });
    await expect(chunks.chunk(doc(markdown(2000)))).rejects.toThrow(/took too long/);
  }, 60_000);

  it("fails calls in flight and later calls once closed", async () => {
    const chunks = pool({ size: 1 });
    const inFlight = expect(chunks.chunk(doc(markdown(2000)))).rejects.toThrow(/closed/);
    const queued = expect(chunks.chunk(doc(markdown(10)))).rejects.toThrow(/closed/);
    await chunks.close();
    await inFlight;
    await queued;
    await expect(chunks.chunk(doc(markdown(1)))).rejects.toThrow(/closed/);
  }, 60_000);

  it("ends a worker left idle for idleMs, and starts a new one for the next large document", async () => {
    const chunks = pool({ size: 1, idleMs: 50 });
    const content = markdown(200);
    expect(await chunks.chunk(doc(content))).toEqual(chunkDocument(doc(content)));
    expect(chunks.workers).toBe(1);
    while (chunks.workers > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await chunks.chunk(doc(content, "markdown", "Again"))).toEqual(
      chunkDocument(doc(content, "markdown", "Again")),
    );
    expect(chunks.workers).toBe(1);
  }, 60_000);

  it("keeps a worker that is given a document before its idle time is up", async () => {
    const chunks = pool({ size: 1, idleMs: 60_000 });
    for (let i = 0; i < 3; i++) await chunks.chunk(doc(markdown(50, i)));
    expect(chunks.workers).toBe(1);
  }, 60_000);

  it("packs documents' text on a worker exactly as packDocumentText does, once one has started", async () => {
    const chunks = pool({ size: 1 });
    const documents = readmeDocuments();
    const bytes = (blocks: readonly PackedBlock[]) =>
      blocks.map((b) => ({
        first: b.first,
        count: b.count,
        packed: Buffer.from(b.packed).toString("base64"),
      }));
    // The first call starts a worker and answers at once, for the caller to pack: a small build never waits.
    expect(await chunks.packText(documents)).toBeNull();
    expect(chunks.workers).toBe(1);
    await vi.waitFor(async () => expect(await chunks.packText([])).toEqual([]), WORKER_STARTS);
    const packed = await chunks.packText(documents);
    expect(packed).toHaveLength(documents.length);
    packed?.forEach((blocks, i) => {
      expect(bytes(blocks)).toEqual(bytes(packDocumentText(documents[i]?.passages ?? [])));
    });
    expect(packed?.flat().length).toBeGreaterThan(documents.length);
  }, 60_000);

  it("does not pack while a document is chunked or waits to be, and packs again once none is", async () => {
    const chunks = pool({ size: 1 });
    const documents = readmeDocuments();
    await chunks.chunk(doc(markdown(300)));
    // Being chunked.
    const chunking = chunks.chunk(doc(markdown(300)));
    expect(await chunks.packText(documents)).toBeNull();
    await chunking;
    // Waiting behind a pack already on the worker.
    const packing = chunks.packText(documents);
    const waiting = chunks.chunk(doc(markdown(300)));
    expect(await chunks.packText(documents)).toBeNull();
    await expect(packing).resolves.toHaveLength(documents.length);
    await waiting;
    await expect(chunks.packText(documents)).resolves.toHaveLength(documents.length);
  }, 60_000);

  it("fails calls to pack at once after the worker started for them did not answer, until a worker does", async () => {
    const chunks = pool({ size: 1, timeoutMs: 1 });
    expect(await chunks.packText(readmeDocuments())).toBeNull();
    // The worker is ended for taking longer than 1 ms to load and answer: no second one is started for packing.
    await vi.waitFor(() => expect(chunks.workers).toBe(0), WORKER_STARTS);
    await expect(chunks.packText(readmeDocuments())).rejects.toThrow(/took too long/);
    expect(chunks.workers).toBe(0);
  }, 60_000);

  it("starts no second worker to pack, and answers a pack in flight or waiting at close with null", async () => {
    const chunks = pool({ size: 2 });
    const documents = readmeDocuments();
    expect(await chunks.packText(documents)).toBeNull();
    await vi.waitFor(async () => expect(await chunks.packText([])).toEqual([]), WORKER_STARTS);
    // The loaded worker is busy with the first: the second waits for it rather than start a worker of its own.
    const inFlight = chunks.packText(documents);
    const waiting = chunks.packText(documents);
    expect(chunks.workers).toBe(1);
    await chunks.close();
    expect(await inFlight).toBeNull();
    expect(await waiting).toBeNull();
  }, 60_000);

  it("does not pack once closed", async () => {
    const chunks = pool({ size: 1 });
    await chunks.close();
    expect(await chunks.packText(readmeDocuments())).toBeNull();
  }, 60_000);
});
