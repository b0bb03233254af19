// Work for many keys (teams) sharing a few slots: each key waits in its own line, and a free slot serves the
// lines in turn, one task a line, so one key's flood holds another key's task up by at most one task per key
// ahead of it in the round. A line is bounded twice: past `maxWaiting` tasks a new one is refused at once, and
// a task that waited `timeoutMs` without a slot is refused then. A refusal is a QueueRefusedError naming how
// long to wait before trying again.
//
// A task is told when its wait runs out (`startBy`): a slot may hand it on to a place where it waits again
// (a search thread's next search, src/runtime/search-threads.ts), and that wait is bounded by the same time.
//
// Tasks are started from a macrotask, never straight from run(): requests that arrive in the same turn of the
// event loop are all in their lines before the first one is served, so the round sees them all.

export type Refusal = "full" | "timed_out";

export class QueueRefusedError extends Error {
  override readonly name = "QueueRefusedError";

  constructor(
    readonly reason: Refusal,
    /** Whole seconds a caller should wait before asking again. */
    readonly retryAfterSeconds: number,
  ) {
    super(reason === "full" ? "Too many tasks are waiting." : "The task waited too long.");
  }
}

export interface FairQueueOptions {
  /** Tasks that may run at once, across every key. */
  slots: number;
  /** Tasks one key may have waiting; one more is refused. */
  maxWaiting: number;
  /** Milliseconds a task may wait for a slot before it is refused. */
  timeoutMs: number;
  /**
   * Runs `callback` after pending I/O has been read: setImmediate where there is one (Node, Deno), so the
   * arrivals of the same turn queue up first; a zero timeout elsewhere.
   */
  defer?: (callback: () => void) => void;
}

interface Waiting {
  start(): void;
  /** performance.now() by which the task must have started: its arrival plus timeoutMs. */
  startBy: number;
  timer: ReturnType<typeof setTimeout>;
}

/** Whole seconds to wait before asking again, after a wait of `timeoutMs` ran out. */
export function retryAfterSeconds(timeoutMs: number): number {
  // A line that waited out its timeout will have turned over by then: a retry sooner would mostly queue
  // behind the same flood. Never under a second, the header's unit.
  return Math.max(1, Math.ceil(timeoutMs / 1000));
}

function deferToMacrotask(callback: () => void): void {
  const immediate = (globalThis as { setImmediate?: (cb: () => void) => unknown }).setImmediate;
  if (immediate) immediate(callback);
  else setTimeout(callback, 0);
}

export class FairQueue {
  readonly #options: Required<FairQueueOptions>;
  /** Each key's waiting tasks, oldest first; a key is here only while it has some. Map order is the round. */
  readonly #lines = new Map<string, Waiting[]>();
  #running = 0;
  #dispatchPending = false;

  constructor(options: FairQueueOptions) {
    if (!(options.slots >= 1)) throw new RangeError("a fair queue needs at least one slot");
    this.#options = { defer: deferToMacrotask, ...options };
  }

  /** Tasks waiting under `key`. */
  waiting(key: string): number {
    return this.#lines.get(key)?.length ?? 0;
  }

  /** Tasks running now, every key together. */
  get running(): number {
    return this.#running;
  }

  /** Tasks waiting for a slot, every key together. */
  get queued(): number {
    let n = 0;
    for (const line of this.#lines.values()) n += line.length;
    return n;
  }

  /**
   * Runs `task` in its turn, or refuses it (QueueRefusedError) when `key`'s line is full or it waited too long.
   * The task is given the performance.now() by which it must have started, for a wait it goes on to.
   */
  run<T>(key: string, task: (startBy: number) => T | Promise<T>): Promise<T> {
    const line = this.#lines.get(key) ?? [];
    if (line.length >= this.#options.maxWaiting) {
      return Promise.reject(new QueueRefusedError("full", this.#retryAfterSeconds()));
    }
    return new Promise<T>((resolve, reject) => {
      const waiting: Waiting = {
        start: () => {
          clearTimeout(waiting.timer);
          this.#running++;
          // A task that throws synchronously is a rejection like any other, and frees its slot all the same.
          new Promise<T>((done) => done(task(waiting.startBy))).then(resolve, reject).finally(() => {
            this.#running--;
            this.#schedule();
          });
        },
        timer: setTimeout(() => {
          this.#leave(key, waiting);
          reject(new QueueRefusedError("timed_out", this.#retryAfterSeconds()));
        }, this.#options.timeoutMs),
        startBy: performance.now() + this.#options.timeoutMs,
      };
      line.push(waiting);
      this.#lines.set(key, line);
      this.#schedule();
    });
  }

  #retryAfterSeconds(): number {
    return retryAfterSeconds(this.#options.timeoutMs);
  }

  #leave(key: string, waiting: Waiting): void {
    const line = this.#lines.get(key);
    if (!line) return;
    const at = line.indexOf(waiting);
    if (at >= 0) line.splice(at, 1);
    if (line.length === 0) this.#lines.delete(key);
  }

  #schedule(): void {
    if (this.#dispatchPending || this.#lines.size === 0 || this.#running >= this.#options.slots) return;
    this.#dispatchPending = true;
    this.#options.defer(() => {
      this.#dispatchPending = false;
      this.#dispatch();
    });
  }

  /** Fills the free slots, one task from each line in turn; a served line goes to the back of the round. */
  #dispatch(): void {
    while (this.#running < this.#options.slots) {
      const next = this.#lines.entries().next();
      if (next.done) return;
      const [key, line] = next.value;
      const waiting = line.shift();
      this.#lines.delete(key);
      if (line.length > 0) this.#lines.set(key, line);
      waiting?.start();
    }
  }
}
