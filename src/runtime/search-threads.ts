// Searches on every core (MEMORIA_SEARCH_THREADS): a pool of worker threads, each holding its own read
// connection to the passage databases it has searched (one named in-memory database per team, opened by name:
// src/index/passages/passage-database.ts), so the threads search one copy of a team's index side by side while the
// main thread writes to it. A small team is searched on the main thread, where a search costs less than a
// thread's round trip, and so is a two-word question while no other search runs or waits. A thread that dies
// is replaced; only its own searches fail, as 503s. Each thread is handed its next search while it answers
// one, so it never waits for the main thread between two.
// docs/decisions/0044-search-threads.md, 0062-a-search-queued-ahead.md, 0088-short-questions-inline.md.

import { Worker } from "node:worker_threads";
import { QueueRefusedError, retryAfterSeconds } from "../async/fair-queue.js";
import { DomainError } from "../errors.js";
import type { PassageHit, PassageIndex } from "../index/passages/passage-index.js";
import type { MatchQuery } from "../index/query.js";
import type { FeedbackParameters } from "../index/ranking/feedback.js";
import { ALL_TUNING_ON, type Tuning } from "../tuning.js";
import { threadScript } from "./thread-source.js";

export type SearchThreadRequest =
  | {
      kind: "find";
      id: number;
      name: string;
      feedback: FeedbackParameters | null;
      query: MatchQuery;
      limit: number;
      /**
       * For a search handed over behind another: performance.timeOrigin + performance.now() by which it must
       * start, else it is answered late. Null for one sent to an idle thread, which starts it as soon as it
       * can (a thread just spawned may take a while to load; that wait is not the queue's).
       */
      startBy: number | null;
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
  /** It reached the thread after its startBy: it waited too long, and did not run. */
  | { id: number; late: true }
  | { id: number; connections: number }
  | { id: number; error: string };

/** What a search thread is started with. */
export interface SearchThreadData {
  busyTimeoutMs: number;
  /** The thread's own mechanisms of memory and speed: its idle collection and page caches. */
  tuning: Tuning;
  /**
   * One BigInt64 the thread sets to the id of each search as it starts it (ids rise on every thread), so the
   * main thread can tell a search still waiting behind another from one running without asking the thread.
   */
  started: SharedArrayBuffer;
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
 * A question of at most this many words, asked while no thread has a search, is answered on the main thread:
 * with nothing else searching there is no other search for it to hold up, and the round trip through a thread
 * (two wake-ups of a thread on a busy core, the question and the hits cloned) was a fifth of its time over HTTP.
 * Measured (memoria's server, 20,024 passages of Debian's manuals, 300 long questions, then the real suite's
 * 200 two-word ones asked once and then again, alternated twice with this at 0): p50 3.64 and 3.37 → 3.14 and
 * 3.13 ms the first time, 3.31 and 3.21 → 2.72 and 2.81 ms the second (docs/decisions/0088-short-questions-
 * inline.md). Two words: what people type, below feedback's MIN_FEEDBACK_TERMS, ~1–3 ms of search; a long
 * question's ~20 ms would hold the main thread's other requests that long for a hop worth 2% of it.
 *
 * Only while the search is also alone in the search queue (SearchService): a search answered here holds the
 * main thread, so the threads' searches finishing meanwhile find no next one handed to them, and the next
 * search would see every thread idle and run here too. Without that condition, two-word questions from 4 and 8
 * connections were served 534/504 and 549/533 a second, against 646/642 and 681/658 all on threads.
 * Measured again beside a server without it (decision 0111): a wake's first answer, a short question, took
 * 1.10× and its RSS 1.19× with it off, a thread started for the one question.
 */
export const INLINE_MAX_TERMS = 2;

/**
 * …and only on a team of at most this many passages. A two-word question was measured at 20,024 passages
 * (~1–3 ms, ~7–8 the first asking of one whose words are common); its cost grows with the lists its words
 * match, so on a far larger team one could hold the main thread's other requests for tens of milliseconds.
 * Past 2.5× the measured size it goes to a thread, which keeps the main thread free whatever it costs.
 */
export const INLINE_MAX_PASSAGES = 50_000;

/**
 * How long a thread asked to stop may take before it is terminated. A thread is never terminated at once:
 * terminating one that holds a native engine's objects can abort the whole process: libSQL's did when the
 * index ran on it (its finalizers assert there is no pending exception, and termination is one; a panic in
 * neon's external.rs), and the engine since has not been shown safe against it. Asked to stop, it closes
 * its connections and its event loop empties; the longest search it may be in the middle of takes well
 * under this.
 */
export const STOP_GRACE_MS = 5000;

/**
 * Searches a thread is handed at once: the one it answers and the next, already in its message queue when
 * the first is done. With one, a thread idled from sending an answer until the main thread, busy with the
 * other connections' HTTP, had read it and handed over the next search (docs/decisions/0062-a-search-queued-
 * ahead.md: measured). More than two adds nothing a thread can use and holds another team's search up by
 * one more search a thread.
 */
export const SEARCHES_A_THREAD = 2;

export interface SearchThreadsOptions {
  /** Threads at most (MEMORIA_SEARCH_THREADS). */
  threads: number;
  /**
   * MEMORIA_QUEUE_TIMEOUT_MS: how long a search waits for a write's commit before it is answered 503, and what
   * a 503 for a search that waited too long on its thread says to wait before asking again.
   */
  busyTimeoutMs: number;
  /** Teams under this many passages are searched on the main thread (MIN_THREADED_PASSAGES). */
  minPassages?: number;
  /** Questions of this many words or fewer run on the main thread while no other search runs or waits (INLINE_MAX_TERMS); 0 never. */
  inlineMaxTerms?: number;
  /** …on a team of at most this many passages (INLINE_MAX_PASSAGES). */
  inlineMaxPassages?: number;
  /**
   * MEMORIA_TUNING_OFF: short questions inline, and the threads' own idle collection and page caches. An
   * `inlineMaxTerms` given here (the tests', the bench's) wins over the short-questions-inline switch.
   */
  tuning?: Tuning;
}

interface Job {
  resolve(reply: SearchThreadReply): void;
  reject(error: Error): void;
  /** For a search handed to a thread busy with another: when it must have started. */
  late?: ReturnType<typeof setTimeout>;
}

interface Thread {
  worker: Worker;
  jobs: Map<number, Job>;
  /** The id of the search the thread started last (SearchThreadData.started). */
  started: BigInt64Array;
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
 * The thread's entry: the bundle (dist/) and Deno load search-thread themselves; Node on the TypeScript source
 * runs it bundled (thread-source.ts), without tsx's module hooks and the thread they run on.
 */
async function threadStart(): Promise<ThreadStart> {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return { url: new URL("./search-thread.js", here) };
  const entry = new URL("./search-thread.ts", here);
  if ("Deno" in globalThis) return { url: entry };
  return { script: await threadScript(entry) };
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

  /** Searches handed to the threads at once (the search queue's slots): SEARCHES_A_THREAD a thread. */
  get slots(): number {
    return this.#options.threads * SEARCHES_A_THREAD;
  }

  constructor(options: SearchThreadsOptions) {
    if (!(options.threads >= 1)) throw new RangeError("a search pool needs at least one thread");
    const tuning = options.tuning ?? ALL_TUNING_ON;
    this.#options = {
      minPassages: MIN_THREADED_PASSAGES,
      inlineMaxTerms: tuning["short-questions-inline"] ? INLINE_MAX_TERMS : 0,
      inlineMaxPassages: INLINE_MAX_PASSAGES,
      ...options,
      tuning,
    };
  }

  /**
   * The hits of `query` on `index`, from a thread, or on this thread for a small team or a short question
   * on a team of at most INLINE_MAX_PASSAGES while every thread is idle and the search is `alone` in the
   * search queue (INLINE_MAX_TERMS); null when the index
   * closed before a thread could read it (the caller asks for the index again). A search handed to a thread
   * busy with another that has not started by `startBy` (performance.now(); by default the queue's timeout
   * from now) is refused then as one that waited too long (QueueRefusedError "timed_out").
   */
  async find(
    index: PassageIndex,
    query: MatchQuery,
    limit: number,
    startBy: number = performance.now() + this.#options.busyTimeoutMs,
    alone = true,
  ): Promise<PassageHit[] | null> {
    if (!index.isOpen()) return null;
    const passages = index.counts().chunks;
    if (passages < this.#options.minPassages) return index.find(query, limit);
    if (this.#closed) throw new DomainError("unavailable", "The server is shutting down; try again shortly.");
    if (
      alone &&
      query.terms.length <= this.#options.inlineMaxTerms &&
      passages <= this.#options.inlineMaxPassages &&
      this.#threads.every((t) => t.jobs.size === 0)
    )
      return index.find(query, limit);
    const name = index.databaseName;
    if (!this.#known.has(name)) {
      this.#known.add(name);
      index.whenClosed(() => this.#forget(name));
    }
    // Once known, the start is used at once, so a search is handed to a thread in the call that asks for it.
    const start = this.#started ?? (await this.#threadStart());
    if (this.#closed) throw new DomainError("unavailable", "The server is shutting down; try again shortly.");
    const thread = this.#pick(start);
    const behind = thread.jobs.size > 0;
    const reply = await this.#askThread(
      thread,
      (id) => ({
        kind: "find",
        id,
        name,
        feedback: index.feedback,
        query: { expression: query.expression, terms: [...query.terms] },
        limit,
        startBy: behind ? performance.timeOrigin + startBy : null,
      }),
      behind ? startBy : undefined,
    );
    if ("hits" in reply) return reply.hits;
    if ("closed" in reply) return null;
    if ("late" in reply) throw this.#late();
    if ("busy" in reply)
      throw new DomainError("unavailable", "The team's index was busy with a write for too long; try again.");
    throw new Error(`A search failed in a search thread (${"error" in reply ? reply.error : "no answer"}).`);
  }

  /** Connections the threads hold open, every thread together: none once every index they read has closed. */
  async openConnections(): Promise<number> {
    return (await this.#reports()).reduce((total, report) => total + report.connections, 0);
  }

  /** What each thread says of itself (its "connections" reply), in the order they started. */
  async #reports(): Promise<{ connections: number }[]> {
    const reports: { connections: number }[] = [];
    for (const thread of [...this.#threads]) {
      const reply = await this.#askThread(thread, (id) => ({ kind: "connections", id }));
      if ("connections" in reply) reports.push(reply);
    }
    return reports;
  }

  /**
   * Ends every thread at once (or only the `only`-th, in the order they started), as a crash would: their
   * searches in flight are answered 503, and the next search starts a fresh thread. A thread's connections
   * end with it. Also how the tests stand for a crash.
   */
  async restartThreads(only?: number): Promise<void> {
    const lost = only === undefined ? [...this.#threads] : this.#threads.slice(only, only + 1);
    await Promise.all(lost.map((thread) => this.#lose(thread, "was restarted")));
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

  #late(): QueueRefusedError {
    return new QueueRefusedError("timed_out", retryAfterSeconds(this.#options.busyTimeoutMs));
  }

  /**
   * Sends `request` to `thread`. With `startBy` (performance.now()), the request is refused at that time
   * unless the thread has started it by then: behind a search held up by a write, it could otherwise wait
   * the write's busy timeout on top of its wait in the queue.
   */
  #askThread(
    thread: Thread,
    request: (id: number) => SearchThreadRequest,
    startBy?: number,
  ): Promise<SearchThreadReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const job: Job = { resolve, reject };
      if (startBy !== undefined) {
        job.late = setTimeout(
          () => {
            if (Atomics.load(thread.started, 0) >= BigInt(id) || thread.jobs.get(id) !== job) return;
            this.#settled(thread, id);
            reject(this.#late());
          },
          Math.max(0, startBy - performance.now()),
        );
      }
      thread.jobs.set(id, job);
      thread.worker.ref();
      try {
        thread.worker.postMessage(request(id));
      } catch (error) {
        this.#settled(thread, id);
        reject(new Error("The search could not be sent to a search thread.", { cause: error }));
      }
    });
  }

  /** Forgets job `id` of `thread`, answered or given up. */
  #settled(thread: Thread, id: number): Job | undefined {
    const job = thread.jobs.get(id);
    if (!job) return undefined;
    clearTimeout(job.late);
    thread.jobs.delete(id);
    if (thread.jobs.size === 0) thread.worker.unref();
    return job;
  }

  /** The least busy thread, or a new one while fewer than `threads` run and each has a search. */
  #pick(start: ThreadStart): Thread {
    let best: Thread | undefined;
    for (const thread of this.#threads) if (!best || thread.jobs.size < best.jobs.size) best = thread;
    if (best && (best.jobs.size === 0 || this.#threads.length >= this.#options.threads)) return best;
    return this.#spawn(start);
  }

  #spawn(start: ThreadStart): Thread {
    const started = new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT);
    const { busyTimeoutMs, tuning } = this.#options;
    const workerData: SearchThreadData = { busyTimeoutMs, tuning, started };
    // No resourceLimits for the young generation: the start command's --max-semi-space-size bounds every
    // isolate of the process, a Worker's limit yields to it, and the A/B found no gain in one of its own
    // (docs/decisions/0111-tuning-kept-where-it-pays.md).
    const worker =
      "url" in start
        ? new Worker(start.url, { execArgv: [], workerData })
        : new Worker(start.script, { eval: true, execArgv: [], workerData });
    const thread: Thread = { worker, jobs: new Map(), started: new BigInt64Array(started) };
    this.#threads.push(thread);
    worker.on("message", (reply: SearchThreadReply) => {
      this.#settled(thread, reply.id)?.resolve(reply);
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
    for (const job of thread.jobs.values()) {
      clearTimeout(job.late);
      job.reject(lost);
    }
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
