// Work done after the answer: a webhook is acknowledged at once and its fetching happens here. Every task is
// tracked, so tests and a shutdown can wait for what is in flight (`idle()`), and is also handed to the
// runtime's `waitUntil` where there is one (a Worker), which would otherwise stop it with the response.
// A task's failure is logged by name only; a task retries on its own terms before it fails.

import type { Logger } from "../logger.js";

/** What Workers (and Hono's ExecutionContext) offer to keep a task alive past the response. */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void;
}

export class Background {
  readonly #pending = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /** Starts `task` after the current turn, so the answer that scheduled it goes out first. */
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
