// The mechanisms inside the process whose only purpose is speed or memory, each with a switch. Every one is on
// unless MEMORIA_TUNING_OFF names it: the switch exists so the bench can run the server with one mechanism off beside
// the server with all on (`npm run bench -- --suites tuning`), and a mechanism stays only while that A/B shows a
// gain a user would notice. Answers never depend on a switch; only time and memory do.
//
// A leaf every layer may read (it imports zod alone); each mechanism's code lives in its own layer and takes
// its switch as an explicit parameter. The idle collection, malloc_trim and the page caches' release run on
// the Node entry only (src/runtime/node.ts, and the search threads for the first and the last): on Deno those
// three switches change nothing.

import { z } from "zod";

/** Each mechanism, with the record that gives its reason and where it lives. */
export const tuningMechanisms = [
  /** A full, compacting collection when idle after heavy work (0068, 0075, 0081; runtime/tuning/idle-collection.ts). */
  "idle-collection",
  /** glibc's malloc_trim when idle (0073, 0080; runtime/tuning/malloc-trim.ts). */
  "malloc-trim",
  /** The index connections' page caches given back when idle (0082; index/passages/passage-database.ts). */
  "page-cache-release",
  /** Short questions answered on the main thread while the threads are idle (0088; runtime/search-threads.ts). */
  "short-questions-inline",
  /** A passage index merged into one segment after a load and when writes pause (0084; live/merges.ts). */
  "whole-merge",
] as const;

export type TuningMechanism = (typeof tuningMechanisms)[number];

/** Which mechanisms are on. */
export type Tuning = Readonly<Record<TuningMechanism, boolean>>;

export const ALL_TUNING_ON: Tuning = tuningWithout([]);

/** MEMORIA_TUNING_OFF: names separated by commas, each a mechanism; empty or unset turns none off. */
export const tuningOffSchema = z
  .string()
  .transform((text) =>
    text
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  )
  .pipe(
    z.array(
      z.enum(tuningMechanisms, {
        message: `must name mechanisms among ${tuningMechanisms.join(", ")}, separated by commas`,
      }),
    ),
  )
  .transform((off): Tuning => tuningWithout(off));

export function tuningWithout(off: readonly TuningMechanism[]): Tuning {
  return Object.freeze(
    Object.fromEntries(tuningMechanisms.map((name) => [name, !off.includes(name)])) as Record<
      TuningMechanism,
      boolean
    >,
  );
}
