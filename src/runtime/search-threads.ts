// Searches on every core (MEMORIA_SEARCH_THREADS): a pool of worker threads, each holding its own read
// connection to the passage databases it has searched (one named in-memory database per team, opened by name:
// src/index/passage-database.ts), so the threads search one copy of a team's index side by side while the
// main thread writes to it. A small team is searched on the main thread, where a search costs less than a
// thread's round trip. A thread that dies is replaced; only its own searches fail, as 503s.
// docs/decisions/0044-search-threads.md.

import { Worker } from "node:worker_threads";
import { DomainError } from "../errors.js";
import type { FeedbackParameters } from "../index/feedback.js";
import type { PassageHit, PassageIndex } from "../index/passage-index.js";
import type { MatchQuery } from "../index/query.js";
import { workerScript } from "./worker-source.js";

export type SearchThreadRequest =
  | {
      kind: "find";
      id: number;
      name: string;
      feedback: FeedbackParameters | null;
      query: MatchQuery;
      limit: number;
    }
  | { kind: "close"; name: string }
  /** Close every connection and end: the thread's event loop empties and it exits on its own. */
  | { kind: "stop" }
  | { kind: "connections"; id: number };

export type SearchThreadReply =
  | { id: number; hits: PassageHit[] }
  /** The database had no tables: its index closed, and every connection to it with it. */
  | { id: number; closed: true }
  /** A write held the database past the reader's busy timeout. */
  | { id: number; busy: true }
  | { id: number; connections: number }
  | { id: number; error: string };

/** What a search thread is started with. */
export interface SearchThreadData {
  busyTimeoutMs: number;
}

/**
 * Below this many passages a team is searched on the main thread. Measured on this machine (2 cores, busy;
 * docs/decisions/0046-small-teams-in-thread.md): a thread's round trip (structured clone of the question and
 * the hits, two message hops) costs ~0.1–0.2 ms, while a short question over 2,000 passages takes ~0.3 ms in
 * the thread it runs on; below that size the round trip is most of the search's cost, above it the main
 * thread's time is what the other teams wait for.
 */
export const MIN_THREADED_PASSAGES = 2000;

/**
 * How long a thread asked to stop may take before it is terminated. A thread is never terminated at once:
 * terminating one that holds libsql's objects can abort the whole process (libsql's native finalizers assert
 * there is no pending exception, and termination is one; seen here as a panic in neon's external.rs). Asked to
 * stop, it closes its connections and its event loop empties; the longest search it may be in the middle of
 * takes well under this.
 */
export const STOP_GRACE_MS = 5000;

/**
 * Each search thread's young generation, in MiB (V8's two semispaces and the new-large-object space: 6 gives
 * 2 MiB semispaces). A search allocates quickly and keeps little, and V8 grows a busy isolate's semispaces to
 * their 16 MiB bound: after 300 long questions a thread's new space was 32 MiB of a 46 MiB heap holding 10–17
 * MiB in use, on every thread. Measured: docs/decisions/0067-search-thread-start-and-heap.md.
 */
export const SEARCH_THREAD_YOUNG_GENERATION_MB = 6;

export interface SearchThreadsOptions {
  /** Threads at most (MEMORIA_SEARCH_THREADS). */
  threads: number;
  /** How long a search waits for a write's commit before it is answered 503 (MEMORIA_QUEUE_TIMEOUT_MS). */
  busyTimeoutMs: number;
  /** Teams under this many passages are searched on the main thread (MIN_THREADED_PASSAGES). */
  minPassages?: number;
  /** Each thread's young generation (SEARCH_THREAD_YOUNG_GENERATION_MB); the bench compares others. */
  youngGenerationMb?: number;
}

interface Job {
  resolve(reply: SearchThreadReply): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  jobs: Map<number, Job>;
}

/** Asks a thread to stop and waits for it to exit; terminates it only past STOP_GRACE_MS. */
async function stopped(worker: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  try {
    worker.postMessage({ kind: "stop" } satisfies SearchThreadRequest);
  } catch {
    // It is exiting already.
  }
  worker.ref();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), STOP_GRACE_MS);
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (outcome === "late") await worker.terminate();
}

/** How a thread starts: from its entry's file, or from a script (its TypeScript entry, bundled). */
type ThreadStart = { url: URL } | { script: string };

/**
 * The thread's entry: compiled (dist/) and Deno load search-worker themselves; Node on the TypeScript source
 * runs it bundled (worker-source.ts), without tsx's module hooks and the thread they run on.
 */
async function threadStart(): Promise<ThreadStart> {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return { url: new URL("./search-worker.js", here) };
  const entry = new URL("./search-worker.ts", here);
  if ("Deno" in globalThis) return { url: entry };
  return { script: await workerScript(entry) };
}

export class SearchThreads {
  readonly #options: Required<SearchThreadsOptions>;
  readonly #threads: Thread[] = [];
  /** Databases some thread may hold a connection to, with the index they belong to's close registered. */
  readonly #known = new Set<string>();
  /** How threads start, found on the first threaded search (a bundle when running from source). */
  #start: Promise<ThreadStart> | null = null;
  #started: ThreadStart | null = null;
  #nextId = 1;
  #closed = false;

  /** Searches that may run at once: one a thread (the search queue's slots). */
  get slots(): number {
    return this.#options.threads;
  }

  constructor(options: SearchThreadsOptions) {
    if (!(options.threads >= 1)) throw new RangeError("a search pool needs at least one thread");
    this.#options = {
      minPassages: MIN_THREADED_PASSAGES,
      youngGenerationMb: SEARCH_THREAD_YOUNG_GENERATION_MB,
      ...options,
    };
  }

  /**
   * The hits of `query` on `index`, from a thread, or on this thread for a small team; null when the index
   * closed before a thread could read it (the caller asks for the index again).
   */
  async find(index: PassageIndex, query: MatchQuery, limit: number): Promise<PassageHit[] | null> {
    if (!index.isOpen()) return null;
    if (index.counts().chunks < this.#options.minPassages) return index.find(query, limit);
    if (this.#closed) throw new DomainError("unavailable", "The server is shutting down; try again shortly.");
    const name = index.databaseName;
    if (!this.#known.has(name)) {
      this.#known.add(name);
      index.whenClosed(() => this.#forget(name));
    }
    // Once known, the start is used at once, so a search is handed to a thread in the call that asks for it.
    const start = this.#started ?? (await this.#threadStart());
    if (this.#closed) throw new DomainError("unavailable", "The server is shutting down; try again shortly.");
    const reply = await this.#ask(start, (id) => ({
      kind: "find",
      id,
      name,
      feedback: index.feedback,
      query: { expression: query.expression, terms: [...query.terms] },
      limit,
    }));
    if ("hits" in reply) return reply.hits;
    if ("closed" in reply) return null;
    if ("busy" in reply)
      throw new DomainError("unavailable", "The team's index was busy with a write for too long; try again.");
    throw new Error(`A search failed in a search thread (${"error" in reply ? reply.error : "no answer"}).`);
  }

  /** Connections the threads hold open, every thread together: none once every index they read has closed. */
  async openConnections(): Promise<number> {
    let total = 0;
    for (const thread of [...this.#threads]) {
      const reply = await this.#askThread(thread, (id) => ({ kind: "connections", id }));
      if ("connections" in reply) total += reply.connections;
    }
    return total;
  }

  /**
   * Ends every thread at once, as a crash would: their searches in flight are answered 503, and the next
   * search starts a fresh thread. A thread's connections end with it. Also how the tests stand for a crash.
   */
  async restartThreads(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => this.#lose(thread, "was restarted")));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.restartThreads();
  }

  #threadStart(): Promise<ThreadStart> {
    if (!this.#start) {
      const start = threadStart();
      start.then(
        (known) => {
          this.#started = known;
        },
        // A start that failed (a bundle that could not be made) is tried again by the next search.
        () => {
          if (this.#start === start) this.#start = null;
        },
      );
      this.#start = start;
    }
    return this.#start;
  }

  #ask(start: ThreadStart, request: (id: number) => SearchThreadRequest): Promise<SearchThreadReply> {
    return this.#askThread(this.#pick(start), request);
  }

  #askThread(thread: Thread, request: (id: number) => SearchThreadRequest): Promise<SearchThreadReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      thread.jobs.set(id, { resolve, reject });
      thread.worker.ref();
      try {
        thread.worker.postMessage(request(id));
      } catch (error) {
        thread.jobs.delete(id);
        reject(new Error("The search could not be sent to a search thread.", { cause: error }));
      }
    });
  }

  /** The least busy thread, or a new one while fewer than `threads` run and each has a search. */
  #pick(start: ThreadStart): Thread {
    let best: Thread | undefined;
    for (const thread of this.#threads) if (!best || thread.jobs.size < best.jobs.size) best = thread;
    if (best && (best.jobs.size === 0 || this.#threads.length >= this.#options.threads)) return best;
    return this.#spawn(start);
  }

  #spawn(start: ThreadStart): Thread {
    const workerData: SearchThreadData = { busyTimeoutMs: this.#options.busyTimeoutMs };
    const resourceLimits = { maxYoungGenerationSizeMb: this.#options.youngGenerationMb };
    const worker =
      "url" in start
        ? new Worker(start.url, { execArgv: [], workerData, resourceLimits })
        : new Worker(start.script, { eval: true, execArgv: [], workerData, resourceLimits });
    const thread: Thread = { worker, jobs: new Map() };
    this.#threads.push(thread);
    worker.on("message", (reply: SearchThreadReply) => {
      const job = thread.jobs.get(reply.id);
      if (!job) return;
      thread.jobs.delete(reply.id);
      job.resolve(reply);
      if (thread.jobs.size === 0) worker.unref();
    });
    worker.on("error", (error: Error & { code?: string }) => {
      void this.#lose(thread, `crashed (${error.code ?? error.name})`);
    });
    worker.on("exit", (code) => {
      void this.#lose(thread, `exited with code ${code}`);
    });
    // An idle thread does not keep the process alive; one with a search in flight does.
    worker.unref();
    return thread;
  }

  /** The thread is gone: its searches are answered 503, and the next search gets a new thread. */
  async #lose(thread: Thread, why: string): Promise<void> {
    const at = this.#threads.indexOf(thread);
    if (at < 0) return;
    this.#threads.splice(at, 1);
    const lost = new DomainError("unavailable", `A search thread ${why} while answering; try again.`);
    for (const job of thread.jobs.values()) job.reject(lost);
    thread.jobs.clear();
    await stopped(thread.worker);
  }

  /** An index closed: every thread closes its connection to the database, which memdb then frees. */
  #forget(name: string): void {
    this.#known.delete(name);
    for (const thread of this.#threads) {
      try {
        thread.worker.postMessage({ kind: "close", name } satisfies SearchThreadRequest);
      } catch {
        // A thread that cannot take a message is ending, and its connections end with it.
      }
    }
  }
}
