// Work a thread does ahead of need (the snippet cutter's warm-up, src/index/snippets/snippet-warm-up.ts), a few steps at a
// time with the event loop let through between them, so a search that arrives meanwhile waits for one slice,
// never for the whole of it.

import { TokenEdges } from "../../index/snippets/ascii-snippet.js";
import { WARM_UP_CUTS, warmUpCut } from "../../index/snippets/snippet-warm-up.js";

/**
 * Steps a slice runs. A warm-up cut takes ~0.2 ms while the code is still interpreted and ~0.03 ms once
 * compiled, so a slice holds a search up by ~2 ms at worst, and the 200 cuts take 20 turns of the loop.
 */
export const WARM_UP_STEPS_PER_SLICE = 10;

export interface WarmUp {
  /** Resolves when every step has run or the warm-up was stopped. */
  readonly done: Promise<void>;
  /** Steps run so far. */
  readonly ran: number;
  /** Runs no further step. */
  stop(): void;
}

/**
 * How long the main thread waits after its start before it warms its cutter. A process that wakes answers its
 * readiness check and its first requests within this; slices run among them held each one up: in instrumented
 * starts the time from listening to the first answer of /readyz fell from ~45 to ~26 ms with no warm-up, and a
 * CPU profile put ~20 ms of that window in warm-up slices (docs/decisions/0106).
 */
export const MAIN_THREAD_WARM_UP_DELAY_MS = 1000;

/**
 * Runs `step(0)` … `step(steps - 1)`, `perSlice` at a time, each slice in a timer of its own (unref'd: the warm-up
 * never keeps a process or a thread alive), the first `delayMs` after the call. A step that throws ends the
 * warm-up: it only ever saves time.
 */
export function warmInSlices(
  steps: number,
  step: (i: number) => void,
  perSlice: number = WARM_UP_STEPS_PER_SLICE,
  delayMs = 0,
): WarmUp {
  let ran = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const end = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    timer = null;
    finish();
  };
  const slice = () => {
    timer = null;
    if (stopped) return;
    try {
      for (let k = 0; k < perSlice && ran < steps; k++) step(ran++);
    } catch {
      end();
      return;
    }
    if (ran >= steps) end();
    else schedule();
  };
  const schedule = (afterMs = 0) => {
    timer = setTimeout(slice, afterMs);
    // Deno's timers are numbers; Node's and Deno's Node layer's have unref().
    (timer as { unref?: () => void }).unref?.();
  };
  if (steps > 0) schedule(delayMs);
  else end();
  return {
    done,
    get ran() {
      return ran;
    },
    stop: end,
  };
}

/**
 * The snippet cutter's warm-up on the calling thread: WARM_UP_CUTS cuts, in slices, from `delayMs` on; none,
 * and done at once, with the snippet-warm-up switch off (src/tuning.ts).
 */
export function warmSnippetCutter(delayMs = 0, on = true): WarmUp {
  const edges = new TokenEdges();
  const cuts = on ? WARM_UP_CUTS : 0;
  return warmInSlices(cuts, (i) => void warmUpCut(i, edges), WARM_UP_STEPS_PER_SLICE, delayMs);
}
