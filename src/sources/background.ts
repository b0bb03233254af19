// Work the answer does not wait for: a webhook is acknowledged at once and its fetching happens here. Every
// task is tracked, so tests and a shutdown can wait for what is in flight (`idle()`), and is also handed to
// the runtime's `waitUntil` where there is one (a Worker), which would otherwise stop it with the response.
// A task's failure is logged by name only; a task retries on its own terms before it fails.

import type { Logger } from "../logger.js";

/** What Workers (and Hono's ExecutionContext) offer to keep a task alive past the response. */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void;
}

export class Background {
  readonly #pending = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /**
   * Starts `task` on the next microtask, alongside the answer rather than after it: the handler that
   * scheduled it returns without waiting, but the task's first steps (up to its first real I/O) run before
   * the response is written. Nothing here defers it past the write — no runtime offers a hook for that, and
   * a timer would only make it likelier — so the answer's speed comes from not awaiting, not from ordering.
   */
  run(name: string, task: () => Promise<void>, runtime?: WaitUntil | null): void {
    const done: Promise<void> = Promise.resolve()
      .then(task)
      .catch((error: unknown) => {
        this.logger.error("background task failed", {
          task: name,
          error: error instanceof Error ? error.name : "unknown",
        });
      })
      .finally(() => this.#pending.delete(done));
    this.#pending.add(done);
    runtime?.waitUntil(done);
  }

  /** How many tasks are in flight. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Resolves once every task, including tasks started while waiting, has finished. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
