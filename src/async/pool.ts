// Bounded concurrency: at most `limit` tasks at once, the rest waiting their turn in arrival order.

export class Limiter {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
    this.#free = limit;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, so a newcomer cannot take it in between.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Nothing running and nothing waiting. */
  get idle(): boolean {
    return this.#free === this.limit && this.#waiting.length === 0;
  }
}

/**
 * `task` over every item, at most `limit` at once, results in the items' order. The first failure rejects
 * the whole call; items not yet started are then not started.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await task(items[i] as T, i);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
