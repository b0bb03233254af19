// When an embedded replica's copy begins: once the wake's bulk reads from its primary have gone quiet. The copy
// is the whole database, pulled by another process, and on a small machine it competes with the restore that
// the wake's first answer waits for. An 87k-passage team's wake from its snapshot, the primary 20 ms away,
// answered first in 4.5 s with the copy pulled beside the restore and in 1.5 s with the copy held until after
// it (decision 0110). The replica's reads go to its primary a little longer, which searches answered from memory
// do not notice.

/**
 * How long no bulk read may have run before the copy begins. A restore keeps parts in flight back to back and a
 * build its pages, so a wake's reads leave no gap this long until its team is loaded; and a wake's first request
 * comes within this of the start, a container being woken by it.
 */
export const COPY_AFTER_QUIET_MS = 1000;

/**
 * The longest the copy is held, however busy the reads (teams waking one after another): until the copy takes
 * over, every storage call pays the primary's round trip.
 */
export const COPY_HELD_AT_MOST_MS = 30_000;

export interface QuietReadsOptions {
  quietMs?: number;
  heldAtMostMs?: number;
}

/** Counts the bulk reads in flight and tells when none has run for a while. */
export class QuietReads {
  #inFlight = 0;
  #lastEnded: number;
  readonly #quietMs: number;
  readonly #until: number;

  constructor(options: QuietReadsOptions = {}) {
    this.#quietMs = options.quietMs ?? COPY_AFTER_QUIET_MS;
    this.#lastEnded = performance.now();
    this.#until = this.#lastEnded + (options.heldAtMostMs ?? COPY_HELD_AT_MOST_MS);
  }

  began(): void {
    this.#inFlight++;
  }

  ended(): void {
    this.#inFlight--;
    this.#lastEnded = performance.now();
  }

  /** Resolves once no read has run for the quiet time (counted from this object's making), or at the latest when the hold ends. */
  quiet(): Promise<void> {
    return new Promise<void>((resolve) => {
      const check = () => {
        const now = performance.now();
        const quietAt = this.#inFlight === 0 ? this.#lastEnded + this.#quietMs : now + this.#quietMs;
        const at = Math.min(quietAt, this.#until);
        if (now >= at) return resolve();
        setTimeout(check, at - now).unref?.();
      };
      check();
    });
  }
}
