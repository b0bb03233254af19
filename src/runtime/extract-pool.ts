// Extracts the text of PDF and DOCX uploads on a worker thread, so that reading a hostile or huge file (PDF.js
// parsing hundreds of pages, a DOCX part inflating) never holds the request thread that answers every other
// team, and so that the worker's heap bound, not the server's, is what such a file runs into. One file at a
// time; the rest wait in arrival order, up to a bound. A worker that runs out of memory or time is ended
// and replaced; only its own call fails.

import { type ResourceLimits, Worker } from "node:worker_threads";
import { DomainError } from "../errors.js";
import type { Extracted, ExtractInput, Extractor } from "../extract/extracted.js";
import { ExtractionError, type ExtractionProblem } from "../extract/extraction-error.js";

export interface ExtractRequest {
  id: number;
  file: ExtractInput;
}

export type ExtractReply =
  | { id: number; extracted: Extracted }
  | { id: number; problem: ExtractionProblem; message: string }
  | { id: number; error: string };

/**
 * How long one file may take. PDF.js read a printed 628-page manual in 22.5 s here (35.8 ms a page, on a busy
 * 2-core machine; docs/decisions/0034-pdf-docx.md), and a text PDF at the 25 MiB upload limit can hold
 * ~2,000 such pages, ~70 s; twice that leaves room for a busier machine. A file that takes longer (built to
 * make the parser spin) is given up on, and the next file gets a new worker.
 */
export const EXTRACT_TIMEOUT_MS = 120_000;

/**
 * The worker's heap. Reading the 628-page manual grew the process by 88 MB (0034); a DOCX part is at most
 * 64 MiB of XML (src/extract/docx.ts). Past this bound a heap that grows ends the worker
 * (ERR_WORKER_OUT_OF_MEMORY) and that file is refused, instead of the process growing until the system ends
 * it. One allocation larger than what is left of it aborts the process instead, which is why the readers
 * bound their inputs far below it (docs/decisions/0035-extraction-bounds.md).
 */
export const EXTRACT_RESOURCE_LIMITS: ResourceLimits = {
  maxOldGenerationSizeMb: 768,
  maxYoungGenerationSizeMb: 48,
};

/**
 * Files waiting for the worker. Each waits with its bytes in memory (up to MEMORIA_MAX_UPLOAD_BYTES), so the
 * queue is bounded: past it an upload is answered 503 at once rather than adding its file to the pile.
 */
export const MAX_WAITING_FILES = 8;

/**
 * How long the worker may sit idle before it is ended; the next file starts a new one. The worker keeps what
 * its last file grew: after reading gnutls-doc's 2.4 MB manual (2.8 s) it held 76 MiB of the process's RSS
 * for as long as it lived (149.7 MiB idle, 73.6 once ended). A new worker costs its start once per burst of
 * files, and the files of one import follow each other far closer than this (docs/decisions/0083-end-idle-workers.md).
 */
export const EXTRACT_IDLE_MS = 2_000;

export interface ExtractPoolOptions {
  timeoutMs?: number;
  /** How long an idle worker lives (default EXTRACT_IDLE_MS); tests make it short. */
  idleMs?: number;
  resourceLimits?: ResourceLimits;
  maxWaiting?: number;
}

interface Job {
  id: number;
  file: ExtractInput;
  resolve(extracted: Extracted): void;
  reject(error: Error): void;
}

/** The worker's entry: as for the chunk pool, bundled, Deno or through tsx (see chunk-pool.ts workerEntry). */
function workerEntry(): { url: URL; workerData?: { entry: string } } {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return { url: new URL("./extract-thread.js", here) };
  const entry = new URL("./extract-thread.ts", here);
  if ("Deno" in globalThis) return { url: entry };
  return { url: new URL("./chunk-thread-tsx.mjs", here), workerData: { entry: entry.href } };
}

export class ExtractPool {
  readonly #timeoutMs: number;
  readonly #idleMs: number;
  readonly #resourceLimits: ResourceLimits;
  readonly #maxWaiting: number;
  readonly #queue: Job[] = [];
  #worker: Worker | null = null;
  #job: Job | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Set while the worker is idle: when it fires, the worker is ended. */
  #idle: ReturnType<typeof setTimeout> | null = null;
  #nextId = 1;
  #closed = false;

  constructor(options: ExtractPoolOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? EXTRACT_TIMEOUT_MS;
    this.#idleMs = options.idleMs ?? EXTRACT_IDLE_MS;
    this.#resourceLimits = options.resourceLimits ?? EXTRACT_RESOURCE_LIMITS;
    this.#maxWaiting = options.maxWaiting ?? MAX_WAITING_FILES;
  }

  /** Workers running now, busy or idle: 0 or 1 (an idle one ends after idleMs). */
  get workers(): number {
    return this.#worker ? 1 : 0;
  }

  /** The Extractor the app is given. */
  readonly extractor: Extractor = (file) => this.extract(file);

  extract(file: ExtractInput): Promise<Extracted> {
    if (this.#closed) return Promise.reject(new Error("The extract pool is closed."));
    if (this.#queue.length >= this.#maxWaiting) {
      return Promise.reject(
        new DomainError("unavailable", "Too many files are waiting to be read; send this one again shortly."),
      );
    }
    return new Promise<Extracted>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, file, resolve, reject });
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopIdle();
    const closed = new Error("The extract pool is closed.");
    for (const job of this.#queue.splice(0)) job.reject(closed);
    this.#settle()?.reject(closed);
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  #dispatch(): void {
    if (this.#job || this.#closed) return;
    const job = this.#queue.shift();
    if (!job) {
      this.#startIdle();
      return;
    }
    this.#stopIdle();
    const worker = this.#worker ?? this.#spawn();
    // The bytes are copied once into a buffer of their own and that buffer moved, not copied again.
    const bytes = job.file.bytes.slice();
    try {
      worker.postMessage({ id: job.id, file: { format: job.file.format, bytes } } satisfies ExtractRequest, [
        bytes.buffer,
      ]);
    } catch (error) {
      job.reject(new Error("The file could not be sent to the extract worker.", { cause: error }));
      this.#dispatch();
      return;
    }
    this.#job = job;
    worker.ref();
    this.#timer = setTimeout(
      () =>
        this.#lose(
          worker,
          new ExtractionError(
            "too_large",
            `The file took longer than ${this.#timeoutMs / 1000} s to read and was given up on.`,
          ),
        ),
      this.#timeoutMs,
    );
  }

  #spawn(): Worker {
    const { url, workerData } = workerEntry();
    const worker = new Worker(url, {
      execArgv: [],
      ...(workerData ? { workerData } : {}),
      resourceLimits: this.#resourceLimits,
    });
    this.#worker = worker;
    worker.on("message", (reply: ExtractReply) => {
      const job = this.#job;
      if (!job || job.id !== reply.id) return;
      this.#settle();
      if ("extracted" in reply) job.resolve(reply.extracted);
      else if ("problem" in reply) job.reject(new ExtractionError(reply.problem, reply.message));
      else job.reject(new Error(`Extraction failed in the extract worker (${reply.error}).`));
      this.#dispatch();
    });
    worker.on("error", (error: Error & { code?: string }) =>
      this.#lose(
        worker,
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new ExtractionError(
              "too_large",
              `Reading the file needed more than ${this.#resourceLimits.maxOldGenerationSizeMb} MB of memory.`,
            )
          : new Error(`The extract worker crashed (${error.code ?? error.name}).`),
      ),
    );
    worker.on("exit", (code) =>
      this.#lose(worker, new Error(`The extract worker exited with code ${code}.`)),
    );
    worker.unref();
    return worker;
  }

  #settle(): Job | null {
    const job = this.#job;
    this.#job = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (!this.#closed) this.#worker?.unref();
    return job;
  }

  /** Ends the worker once it has been idle for idleMs, unless a file reaches it first. */
  #startIdle(): void {
    if (!this.#worker || this.#idle) return;
    this.#idle = setTimeout(() => {
      this.#idle = null;
      const worker = this.#worker;
      if (this.#job || !worker) return;
      this.#worker = null;
      void worker.terminate();
    }, this.#idleMs);
    this.#idle.unref();
  }

  #stopIdle(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
  }

  /** The worker is gone or given up on: its call fails with `why`, and the next file gets a new worker. */
  #lose(worker: Worker, why: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#settle()?.reject(why);
    void worker.terminate();
    this.#dispatch();
  }
}
