// Tasks that must not overlap, run one after another in the order they were queued. A task that fails
// answers its own caller with the failure and does not stop the tasks queued after it.
//
// The tail a queue keeps is the last task's settling, never its value: `result.catch(...)` would resolve to
// the value and keep it alive until the next task ran. A team's snapshot write returns its sealed parts
// (18.3 MiB of ArrayBuffers at 20k Debian passages), and a team with no write after it kept them for good.

/** Settles when `result` does, holding neither its value nor its error. */
const settling = (result: Promise<unknown>): Promise<void> =>
  result.then(
    () => undefined,
    () => undefined,
  );

export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task queued before it has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = settling(result);
    return result;
  }
}

/**
 * One serial queue per key, made on first use and forgotten once its last task settles, so a map of keys
 * seen once (documents, pages) does not grow for the life of the process.
 */
export class KeyedSerialQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` once every task queued before it under the same key has settled. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const result = before.then(task, task);
    const tail = settling(result);
    this.#tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
