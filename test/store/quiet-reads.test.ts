// When an embedded replica's copy may begin (src/store/quiet-reads.ts): not before a bulk read, nor while one
// runs, nor until none has run for the quiet time, and at the latest when the hold ends. Times are short and only the order of
// events is asserted.

import { expect, it } from "vitest";
import { QuietReads } from "../../src/store/quiet-reads.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function watched(quiet: QuietReads): { readonly done: boolean; readonly quiet: Promise<void> } {
  const state = { done: false, quiet: quiet.quiet() };
  state.quiet.then(() => {
    state.done = true;
  });
  return state;
}

it("with no read at all, waits for a first one, however short the quiet time", async () => {
  const quiet = new QuietReads({ quietMs: 50, withoutReadsMs: 1000, heldAtMostMs: 60_000 });
  const state = watched(quiet);
  await pause(150);
  expect(state.done).toBe(false);
  await state.quiet;
});

it("is not quiet while a read runs, nor until the quiet time has passed after the last one ended", async () => {
  // Long beside the pauses below, so a busy machine's late timers cannot make it pass early.
  const quiet = new QuietReads({ quietMs: 500, withoutReadsMs: 0, heldAtMostMs: 60_000 });
  quiet.began();
  const state = watched(quiet);
  await pause(700);
  expect(state.done).toBe(false);
  quiet.ended();
  await pause(0);
  expect(state.done).toBe(false);
  quiet.began();
  quiet.ended();
  await state.quiet;
});

it("stops holding when the hold ends, however busy the reads", async () => {
  const quiet = new QuietReads({ quietMs: 60_000, withoutReadsMs: 60_000, heldAtMostMs: 100 });
  quiet.began();
  await quiet.quiet();
  // Still a read in flight, and the quiet time far off: only the hold's end let it through.
  quiet.ended();
});
