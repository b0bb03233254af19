// When an embedded replica's copy begins: once the wake's bulk reads from its primary have gone quiet. The copy
// is the whole database, pulled by another process, and on a small machine it competes with the restore that
// the wake's first answer waits for: an 87k-passage team's wake from its snapshot, the primary 20 ms away,
// answered first in 3.3 s with the copy pulled beside the restore and in 1.25 s with the copy after it
// (decision 0110). Until the copy takes over, storage calls pay the primary's round trip, which searches
// answered from the loaded index do not make.

/**
 * How long after the last bulk read the copy begins. A restore keeps parts in flight back to back and a build
 * its pages, so a wake's reads leave no gap this long until its team is loaded. Counted from the first read,
 * never from the start: a start's own time (the pull's driver loading, the first request arriving) is not
 * the wake's and must not use up the quiet time before the restore has begun.
 */
export const COPY_AFTER_QUIET_MS = 1000;

/**
 * How long after the start the copy waits for a first bulk read. A container is woken by its first request, and
 * a wake's first read follows it within the start (~0.25 s to ready) and a few round trips; past this, no
 * team is waking (a request that loads nothing, or a URL left to the client's reads) and the copy need not wait.
 */
export const COPY_WITHOUT_READS_MS = 3000;

/** The longest the copy is held after the start, however busy the reads (teams waking one after another). */
export const COPY_HELD_AT_MOST_MS = 30_000;

export interface QuietReadsOptions {
  quietMs?: number;
  withoutReadsMs?: number;
  heldAtMostMs?: number;
}

/** Counts the bulk reads in flight and tells when none has run for a while. */
export class QuietReads {
  #inFlight = 0;
  /** When the last read ended, or null before the first ended. */
  #lastEnded: number | null = null;
  readonly #quietMs: number;
  readonly #unread: number;
  readonly #until: number;
  /** Those waiting for quiet: each looks again when a read ends. */
  readonly #waiting = new Set<() => void>();

  constructor(options: QuietReadsOptions = {}) {
    this.#quietMs = options.quietMs ?? COPY_AFTER_QUIET_MS;
    const now = performance.now();
    this.#unread = now + (options.withoutReadsMs ?? COPY_WITHOUT_READS_MS);
    this.#until = now + (options.heldAtMostMs ?? COPY_HELD_AT_MOST_MS);
  }

  began(): void {
    this.#inFlight++;
  }

  ended(): void {
    this.#inFlight--;
    this.#lastEnded = performance.now();
    if (this.#inFlight === 0) for (const look of [...this.#waiting]) look();
  }

  /**
   * Resolves once reads have begun and none has run for the quiet time since, or when none has begun within the
   * wait for a first; at the latest when the hold ends.
   */
  quiet(): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const look = () => {
        clearTimeout(timer);
        const now = performance.now();
        // While a read runs, only the hold's end lets the copy begin; the read's end looks again.
        let quietAt = Number.POSITIVE_INFINITY;
        if (this.#inFlight === 0)
          quietAt = this.#lastEnded === null ? this.#unread : this.#lastEnded + this.#quietMs;
        const at = Math.min(quietAt, this.#until);
        if (now >= at) {
          this.#waiting.delete(look);
          return resolve();
        }
        timer = setTimeout(look, at - now);
        timer.unref?.();
      };
      this.#waiting.add(look);
      look();
    });
  }
}
