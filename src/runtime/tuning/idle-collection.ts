// A full garbage collection once the server is idle after heavy work. V8 collects its old generation when
// the heap nears its limit, and counts the memory of ArrayBuffers (request bodies, sealed rows and snapshot
// parts, deflated blocks) only loosely towards that: after a build of 20,002 passages of Debian's manuals the
// main isolate held 25–37 MiB of such buffers, and its heap the objects that pointed at them, that nothing
// reached any more, and still held them after 300 searches and 15 s idle. One full collection then released
// 24–40 MiB of the process's RSS (docs/decisions/0068-collect-when-idle.md). So the server collects once no
// request has been in flight for IDLE_MS and the heap and its buffers grew by GROWTH_BYTES since the last
// collection; a steady stream of searches, whose garbage the young generation takes, never reaches it.
// Growth of the heap V8 has committed counts too: a search thread's old generation grew from 10.5 to 17–27 MiB
// over 300 long questions while what it held grew by under 5 MiB, and a collection when idle gives most of that
// back (docs/decisions/0075-collect-on-committed-growth.md). The collection compacts every page, and an idle
// moment after work also collects when the old generation's committed pages sit half used, though nothing
// grew: V8's own collections keep such pages (docs/decisions/0081-compact-when-idle.md). Measured again
// beside a server without it (decision 0111): RSS a byte of text 2.37× after a build and 2.23× after a
// restart with it off.

import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Growth of the heap in use and of external memory, or of the heap V8 has committed, since the last full
 * collection that makes the next idle moment collect. A collection of the main isolate took 31–47 ms here
 * (2 cores, measured after builds); 16 MiB is less than a tenth of what a 20,000-passage build leaves, and
 * more than 300 long questions do (the main heap in use grew by 5–8 MiB).
 */
export const GROWTH_BYTES = 16 * 1024 * 1024;

/**
 * How long no request may have been in flight before collecting: the gaps within a burst of requests (a
 * batch import, an agent's searches) are far shorter, and a person's next request a few seconds later finds
 * the collection done. Checked four times in that span.
 */
export const IDLE_MS = 500;

/**
 * Old-generation pages committed and not in use, across an idle moment after work, past which that moment
 * collects though nothing grew enough: what a compacting collection gives back. After 300 long questions
 * over 20,002 passages of Debian's manuals a search thread's old space was 12.2 MiB committed holding 6.7,
 * the main isolate's (after a restart) 24.2 holding 18.9, neither enough growth for a collection; a batch
 * build leaves the main isolate's at 22.2 holding 20.2, under this bound (docs/decisions/0081-compact-when-
 * idle.md).
 */
export const SLACK_BYTES = 4 * 1024 * 1024;

/**
 * V8's full collection, moving the live objects of every page together (exposed at run time: the flag only
 * reaches contexts made after it is set). V8's own full collection moves objects only off pages it finds
 * mostly free and keeps half-used ones: after 300 long questions a search thread's old space stayed 12.5 MiB
 * committed holding 6.7 through it, and compacting every page left 7.2–7.5 MiB, the freed pages given back to
 * the system. It costs more than V8's own: 15 ms on a search thread, 39 ms on the main isolate after a build,
 * both idle. The flag is the process's, so it is set for this one collection only.
 */
function compactingCollection(): () => void {
  // The context that exposes gc is made at the first collection, not at start (~3 ms of every start).
  let gc: (() => void) | null = null;
  return () => {
    if (!gc) {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc") as () => void;
    }
    setFlagsFromString("--compact-on-every-full-gc");
    try {
      gc();
    } finally {
      setFlagsFromString("--no-compact-on-every-full-gc");
    }
  };
}

/** The old generation's committed pages not in use (every space but the young generation's). */
export function oldGenerationSlack(): number {
  let slack = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === "new_space" || space.space_name === "new_large_object_space") continue;
    slack += space.space_size - space.space_used_size;
  }
  return slack;
}

/** What the heap and its buffers hold, and the heap V8 has committed (pages kept after its own collections). */
export interface HeapUsage {
  held: number;
  committed: number;
}

const heapUsage = (): HeapUsage => {
  const usage = process.memoryUsage();
  return { held: usage.heapUsed + usage.external, committed: usage.heapTotal };
};

export class IdleCollection {
  readonly #collect: () => void;
  readonly #usage: () => HeapUsage;
  readonly #timer: ReturnType<typeof setInterval>;
  #inFlight = 0;
  #lastActive = Date.now();
  /** A request ran or busy work went on since the process was last idle. */
  #worked = false;
  /** What the heap and its buffers held, and the committed heap, each at its lowest since the last collection. */
  #baseline: HeapUsage;
  /** Full collections run so far: tests read it. */
  collections = 0;

  constructor(
    options: {
      idleMs?: number;
      growthBytes?: number;
      collect?: () => void;
      /** False: never collects, only tells `idled` (the idle-collection switch off, src/tuning.ts). */
      collects?: boolean;
      /**
       * Work no request waits on (a snapshot being written): counted as activity like a request in flight.
       * A collection in the middle of it finds its buffers still reached, resets the growth to them, and
       * once they are garbage nothing has grown, so they stayed (18.3 MiB after a 20,002-passage build).
       */
      busy?: () => boolean;
      /** Where the heap's figures are read: process.memoryUsage() unless given. */
      usage?: () => HeapUsage;
      /** Old-generation pages committed and not in use (oldGenerationSlack unless given). */
      slack?: () => number;
      /** SLACK_BYTES unless given. */
      slackBytes?: number;
      /** Told of each collection: how long it took and what the heap and its buffers held before and after. */
      collected?: (ms: number, heldBefore: number, heldAfter: number) => void;
      /** Told once each time the process goes idle after requests or busy work, collection or none. */
      idled?: () => void;
    } = {},
  ) {
    const idleMs = options.idleMs ?? IDLE_MS;
    const growthBytes = options.growthBytes ?? GROWTH_BYTES;
    this.#collect = options.collect ?? compactingCollection();
    const slack = options.slack ?? oldGenerationSlack;
    const slackBytes = options.slackBytes ?? SLACK_BYTES;
    this.#usage = options.usage ?? heapUsage;
    this.#baseline = this.#usage();
    const busy = options.busy ?? (() => false);
    const collects = options.collects ?? true;
    this.#timer = setInterval(() => {
      const before = this.#usage();
      // The least held since the last collection: a collection V8 ran by itself lowers it too.
      this.#baseline = {
        held: Math.min(this.#baseline.held, before.held),
        committed: Math.min(this.#baseline.committed, before.committed),
      };
      if (busy()) {
        this.#lastActive = Date.now();
        this.#worked = true;
      }
      if (this.#inFlight > 0 || Date.now() - this.#lastActive < idleMs) return;
      const grown =
        before.held - this.#baseline.held >= growthBytes ||
        before.committed - this.#baseline.committed >= growthBytes;
      // Read once an idle moment, after work: only work leaves pages half used.
      if (collects && (grown || (this.#worked && slack() >= slackBytes))) {
        const started = performance.now();
        this.#collect();
        this.collections++;
        this.#baseline = this.#usage();
        options.collected?.(performance.now() - started, before.held, this.#baseline.held);
      }
      if (this.#worked) {
        this.#worked = false;
        options.idled?.();
      }
    }, idleMs / 4);
    // Never what keeps the process alive.
    this.#timer.unref();
  }

  /** Wraps a fetch handler so its requests count as activity while they run. */
  around<A extends unknown[], R>(handler: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      this.#inFlight++;
      try {
        return await handler(...args);
      } finally {
        this.#inFlight--;
        this.#lastActive = Date.now();
        this.#worked = true;
      }
    };
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
