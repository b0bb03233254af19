// Chunks large documents on worker threads, so that parsing a 5 MiB markdown upload (seconds of CPU) never
// holds the request thread that answers every other team's searches. One document per worker at a time; the
// rest wait in arrival order. Node's worker_threads, which Deno provides too (over its Web Workers).
//
// A build from rows sends its pages' text here too, to be packed (deflated) while the request thread inserts
// the pages before it into FTS5: packing was ~20% of a rows build's time on that thread (decision 0108).

import { availableParallelism } from "node:os";
import { type ResourceLimits, Worker } from "node:worker_threads";
import type { IndexedPassage } from "../index/passages/passage-document.js";
import type { PackedBlock } from "../index/passages/passage-text.js";
import type { Passage } from "../ingest/chunk.js";
import { type Chunker, type ChunkInput, inlineChunker } from "../ingest/chunker.js";
import { utf8Length } from "../text/length.js";

/** What a worker is asked: one document to chunk, or the passages of documents to pack (packDocumentText). */
export type ChunkRequest =
  | { id: number; doc: ChunkInput }
  | { id: number; pack: readonly (readonly IndexedPassage[])[] };

export type ChunkReply =
  | { id: number; passages: Passage[] }
  | { id: number; packed: PackedBlock[][] }
  | { id: number; error: string };

/**
 * Documents below this many bytes of content are chunked inline. Measured on this project's 2-core machine
 * (busy; docs/decisions/0016-chunk-pool.md) with the mdast chunker: markdown inline vs through an idle
 * worker, 1 KiB 11.5 vs 11.2 ms, 4 KiB 22 vs 25 ms, 8 KiB 56 vs 45 ms, 16 KiB 145 vs 116 ms; the worker's
 * own round trip is ~0.1 ms (4 KiB of text: 0.24 inline vs 0.13 ms). So from about 8 KiB the worker is
 * faster, and below it inline is as fast and never waits in line behind a large document.
 */
export const INLINE_MAX_BYTES = 8 * 1024;

/**
 * Workers by default: every core but one, the one left for the request thread, and at most 2. Each worker
 * holds a whole document's parse while it chunks (hundreds of MB for 5 MiB of markdown), so more of them
 * multiply the peak memory for the rare case of several huge uploads at once, which can as well wait in line.
 * On a 2-core machine that is 1 worker.
 */
export function defaultPoolSize(): number {
  return Math.min(2, Math.max(1, availableParallelism() - 1));
}

/**
 * How long one document may take in a worker before the worker is ended and the call fails. Chunking is
 * bounded in time by design; a document still going after this long means the chunker is stuck, and would
 * otherwise hold its worker, and every large upload queued behind it, for ever.
 */
export const CHUNK_TIMEOUT_MS = 120_000;

/**
 * How long a worker may sit idle before it is ended; the next large document starts a new one. An idle worker
 * keeps the heap its last documents grew: after a build of 20,024 passages of Debian's manuals through the
 * batch route the live worker was 20.8 MiB of the server's RSS, and 8.5 MiB still 1.5 s after 300 long
 * questions, when the real suite reads its memory figure (3.08 B a byte of text with 10 s here, 2.36 with 2 s;
 * docs/decisions/0083-end-idle-workers.md). Starting one again costs ~57 ms (compiled, its first document
 * included) once per burst; the documents of one batch follow each other within milliseconds and an import's
 * batches within a round trip and a write, so a burst keeps its worker.
 */
export const CHUNK_IDLE_MS = 2_000;

export interface ChunkPoolOptions {
  size?: number;
  timeoutMs?: number;
  /** How long an idle worker lives (default CHUNK_IDLE_MS); tests make it short. */
  idleMs?: number;
  /** Content size below which documents are chunked inline; 0 sends every document to a worker. */
  inlineMaxBytes?: number;
  /** Each worker's heap bounds: a document that outgrows them ends that worker and fails that call only. */
  resourceLimits?: ResourceLimits;
}

type Job = { id: number; reject(error: Error): void } & (
  | { doc: ChunkInput; resolve(passages: Passage[]): void }
  | {
      pack: readonly (readonly IndexedPassage[])[];
      resolve(packed: PackedBlock[][] | null): void;
      /** The job of nothing that starts a worker for packing; no other pack job starts one. */
      starts?: true;
    }
);

interface Thread {
  worker: Worker;
  job: Job | null;
  timer: ReturnType<typeof setTimeout> | null;
  /** Set while the worker is idle: when it fires, the worker is ended. */
  idle: ReturnType<typeof setTimeout> | null;
  /** Whether it has answered once, so its code is loaded. */
  started: boolean;
}

/**
 * The worker's entry, in every way memoria runs: Deno and the bundle (dist/: `npm start`, the image) load
 * chunk-thread itself; Node on the TypeScript source (tsx, vitest) loads it through a small bootstrap that
 * brings in tsx.
 */
function workerEntry(): { url: URL; workerData?: { entry: string } } {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return { url: new URL("./chunk-thread.js", here) };
  const entry = new URL("./chunk-thread.ts", here);
  if ("Deno" in globalThis) return { url: entry };
  return { url: new URL("./chunk-thread-tsx.mjs", here), workerData: { entry: entry.href } };
}

export class ChunkPool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #idleMs: number;
  readonly #inlineMaxBytes: number;
  readonly #resourceLimits: ResourceLimits | undefined;
  readonly #threads = new Set<Thread>();
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  /**
   * Why the worker started for packing did not answer: later calls to pack fail with it at once rather than
   * start a worker for every page of a build. Cleared once any worker answers.
   */
  #startFailure: Error | null = null;

  constructor(options: ChunkPoolOptions = {}) {
    this.#size = options.size ?? defaultPoolSize();
    if (!Number.isInteger(this.#size) || this.#size < 1)
      throw new RangeError("size must be a positive integer");
    this.#timeoutMs = options.timeoutMs ?? CHUNK_TIMEOUT_MS;
    this.#idleMs = options.idleMs ?? CHUNK_IDLE_MS;
    this.#inlineMaxBytes = options.inlineMaxBytes ?? INLINE_MAX_BYTES;
    this.#resourceLimits = options.resourceLimits;
  }

  /** The Chunker the app is given: small documents inline, the rest through a worker. */
  readonly chunker: Chunker = (doc) =>
    utf8Length(doc.content) < this.#inlineMaxBytes ? inlineChunker(doc) : this.chunk(doc);

  /** Chunks `doc` on a worker, whatever its size. */
  chunk(doc: ChunkInput): Promise<Passage[]> {
    if (this.#closed) return Promise.reject(new Error("The chunk pool is closed."));
    return new Promise<Passage[]>((resolve, reject) => {
      const { title, content, format } = doc;
      this.#queue.push({ id: this.#nextId++, doc: { title, content, format }, resolve, reject });
      this.#dispatch();
    });
  }

  /**
   * Each document's text blocks as the index stores them (packDocumentText), packed on a worker; null when no
   * worker can take them at once, for the caller to pack them itself. No worker can while the pool is closed,
   * while a document is being chunked or waits to be (an upload can hold the worker for seconds), or before a
   * worker has started: the first call starts one and answers null, so a small team's build never waits ~55 ms
   * for a worker to load. No other call starts a worker: a call waits for the loaded one, and answers null if
   * none is left or the pool closes meanwhile. Only the fields packing reads are sent. A worker that fails
   * rejects the call.
   */
  packText(documents: readonly { passages: readonly IndexedPassage[] }[]): Promise<PackedBlock[][] | null> {
    if (this.#closed || this.#chunking()) return Promise.resolve(null);
    if (!this.#loaded()) {
      if (this.#startFailure) return Promise.reject(this.#startFailure);
      this.#start();
      return Promise.resolve(null);
    }
    const pack = documents.map((doc) =>
      doc.passages.map(({ chunkId, ordinal, heading, text }) => ({ chunkId, ordinal, heading, text })),
    );
    return new Promise<PackedBlock[][] | null>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, pack, resolve, reject });
      this.#dispatch();
    });
  }

  /** Workers running now, busy or idle (idle ones end after idleMs). */
  get workers(): number {
    return this.#threads.size;
  }

  /** Ends every worker; calls in flight or waiting fail, and later calls fail at once. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error("The chunk pool is closed.");
    // A build packing at a stop packs the rest itself, as for any "not now": not a failure to warn about.
    const end = (job: Job | null) => (job && "pack" in job ? job.resolve(null) : job?.reject(closed));
    for (const job of this.#queue.splice(0)) end(job);
    const threads = [...this.#threads];
    this.#threads.clear();
    await Promise.all(
      threads.map((thread) => {
        if (thread.idle) clearTimeout(thread.idle);
        end(this.#settle(thread));
        return thread.worker.terminate();
      }),
    );
  }

  /** Starts a worker, unless one is starting: a job of nothing, whose answer says it has loaded. */
  #start(): void {
    if (this.#threads.size > 0 || this.#queue.length > 0) return;
    const failed = (error: Error) => {
      this.#startFailure = error;
    };
    const job: Job = { id: this.#nextId++, pack: [], resolve: () => {}, reject: failed, starts: true };
    this.#queue.push(job);
    try {
      this.#dispatch();
    } catch (error) {
      // The worker could not even be made: the job must not stay queued, or no later start would be tried.
      this.#queue.splice(this.#queue.indexOf(job), 1);
      failed(error instanceof Error ? error : new Error("A chunk worker could not be started."));
    }
  }

  /** Whether a worker has loaded (answered once), for a page to pack to wait for. */
  #loaded(): boolean {
    for (const thread of this.#threads) if (thread.started) return true;
    return false;
  }

  /** Whether a document is being chunked or waits to be. */
  #chunking(): boolean {
    for (const thread of this.#threads) if (thread.job && "doc" in thread.job) return true;
    return this.#queue.some((job) => "doc" in job);
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0] as Job;
      // A page to pack waits for a worker that has loaded rather than start one and wait for it to load.
      const thread = this.#idleThread("doc" in head || head.starts === true);
      if (!thread) {
        // No loaded worker left to wait for (the one there was crashed or was ended): "not now".
        if ("pack" in head && !head.starts && !this.#loaded()) {
          this.#queue.shift();
          head.resolve(null);
          continue;
        }
        return;
      }
      const job = this.#queue.shift() as Job;
      const request: ChunkRequest =
        "doc" in job ? { id: job.id, doc: job.doc } : { id: job.id, pack: job.pack };
      try {
        thread.worker.postMessage(request);
      } catch (error) {
        // The document could not be sent (not cloneable): that call fails, the worker is untouched.
        job.reject(new Error("The document could not be sent to a chunk worker.", { cause: error }));
        continue;
      }
      thread.job = job;
      if (thread.idle) clearTimeout(thread.idle);
      thread.idle = null;
      thread.worker.ref();
      thread.timer = setTimeout(() => this.#fail(thread, "took too long and was stopped"), this.#timeoutMs);
    }
  }

  #idleThread(mayStart: boolean): Thread | null {
    for (const thread of this.#threads) if (!thread.job) return thread;
    if (!mayStart || this.#threads.size >= this.#size) return null;
    return this.#spawn();
  }

  #spawn(): Thread {
    const { url, workerData } = workerEntry();
    const worker = new Worker(url, {
      // Not the parent's flags (a worker inherits them by default): none is meant for the worker, and some
      // break it (`--input-type` refuses a file entry; tsx's own flags would load tsx twice).
      execArgv: [],
      ...(workerData ? { workerData } : {}),
      ...(this.#resourceLimits ? { resourceLimits: this.#resourceLimits } : {}),
    });
    const thread: Thread = { worker, job: null, timer: null, idle: null, started: false };
    this.#threads.add(thread);
    worker.on("message", (reply: ChunkReply) => {
      thread.started = true;
      this.#startFailure = null;
      const job = thread.job;
      if (!job || job.id !== reply.id) return;
      this.#settle(thread);
      if ("error" in reply)
        job.reject(
          new Error(`${"doc" in job ? "Chunking" : "Packing"} failed in a chunk worker (${reply.error}).`),
        );
      else if ("doc" in job && "passages" in reply) job.resolve(reply.passages);
      else if ("pack" in job && "packed" in reply) job.resolve(reply.packed);
      else job.reject(new Error("A chunk worker answered another kind of call."));
      this.#dispatch();
    });
    // A reply that cannot be read: that call fails; the worker itself is fine and takes the next document.
    worker.on("messageerror", () => {
      this.#settle(thread)?.reject(new Error("A chunk worker's answer could not be read."));
      this.#dispatch();
    });
    worker.on("error", (error: Error & { code?: string }) =>
      this.#fail(thread, `crashed (${error.code ?? error.name})`),
    );
    worker.on("exit", (code) => this.#fail(thread, `exited with code ${code}`));
    // Idle threads never keep the process alive; a busy one does, until its answer is in.
    worker.unref();
    return thread;
  }

  /** Clears `thread`'s job and returns it, leaving the worker idle. */
  #settle(thread: Thread): Job | null {
    const job = thread.job;
    thread.job = null;
    if (thread.timer) clearTimeout(thread.timer);
    thread.timer = null;
    if (!this.#closed) {
      thread.worker.unref();
      if (thread.idle) clearTimeout(thread.idle);
      thread.idle = setTimeout(() => this.#retire(thread), this.#idleMs);
      thread.idle.unref();
    }
    return job;
  }

  /** Ends a worker that stayed idle for idleMs; one dispatched a job meanwhile is left alone. */
  #retire(thread: Thread): void {
    if (thread.job || !this.#threads.delete(thread)) return;
    thread.idle = null;
    void thread.worker.terminate();
  }

  /** The worker is lost (crashed, exited, stuck): its call fails, and a new worker takes its place on demand. */
  #fail(thread: Thread, what: string): void {
    if (!this.#threads.delete(thread)) return;
    this.#settle(thread)?.reject(new Error(`A chunk worker ${what}.`));
    // Gone for good: no idle end to wait for.
    if (thread.idle) clearTimeout(thread.idle);
    thread.idle = null;
    void thread.worker.terminate();
    this.#dispatch();
  }
}
