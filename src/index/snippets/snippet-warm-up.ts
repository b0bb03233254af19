// The JS snippet cutter (ascii-snippet.ts) run over a passage of its own before any search needs it, so that
// V8 has compiled it by the time a thread's first two-word questions arrive.
//
// Only questions answered without feedback go through the cutter (the rows feedback rescores need not match
// the typed words, so their snippets come from the table): two-word ones, which people type. A thread that
// has answered only long questions, an agent's, meets its first short ones with the cutter never run, and V8
// runs it interpreted: a 1.8 KB body took ~200 µs to cut at first, ~100 µs after ~50 cuts, ~28 µs after ~150
// (the optimizing compiler's code), and a two-word search cuts ~20 bodies. Measured over loopback HTTP
// (20,024 passages of Debian's manuals, 300 long questions, then the real suite's 200 short ones asked once):
// the first four short questions took 5.2–13.8 ms of the server's own time against ~2 ms for those after them,
// and they were the p99 (docs/decisions/0087-snippet-cutter-warm-up.md).

import { asciiPhrases, asciiSnippet, type TokenEdges } from "./ascii-snippet.js";
import { renderSnippet } from "./snippet.js";

/** Cuts the warm-up makes: past the ~150 after which V8 ran the cutter optimized (the curve above). */
export const WARM_UP_CUTS = 200;

/**
 * Text of memoria's own, all ASCII, in sentences ending at ". " and ": " (where snippets may start), with
 * words of many endings so that porter's steps all run, repeated to the length of a manual's passage.
 */
export const WARM_UP_BODY = `${[
  "Relational databases keep their generalizations in conditional tables: the operators configured each one.",
  "Running the installer happily nationalized the formalities, and the connected controllers reported their",
  "sensitivity, readiness and electrical adjustments. Then the operating systems' allowances were analyzed",
  "carefully by the maintainers, who agreed: feed, plastered, motoring, sing, conflated, troubled, sized,",
  "hopping, tanned, falling, hissing, fizzed, failing, filing, happy and sky are the words of the test.",
  "Searching a team's memory returns passages; indexing them twice is unnecessary. Hopefulness, goodness,",
  "decisiveness and the callousness of reviewers were measured at 20,000 passages in 2026: its figures hold.",
].join(" ")} `.repeat(3);

/** Word pairs of WARM_UP_BODY, as two-word questions: each first letter's tokens get stemmed in turn. */
export const WARM_UP_QUESTIONS: readonly (readonly [string, string])[] = [
  ["controllers", "installer"],
  ["databases", "operators"],
  ["running", "searching"],
  ["happy", "figures"],
  ["generalizations", "reviewers"],
  ["maintainers", "passages"],
  ["electrical", "troubled"],
  ["hopefulness", "words"],
];

/** The `i`-th warm-up cut, rendered as a hit's snippet; null only if the cutter refused its own text. */
export function warmUpCut(i: number, edges: TokenEdges): string | null {
  const question = WARM_UP_QUESTIONS[i % WARM_UP_QUESTIONS.length] ?? WARM_UP_QUESTIONS[0];
  const phrases = question ? asciiPhrases(question) : null;
  if (!phrases) return null;
  // A search's stems are shared between its bodies; a new map each cut makes each one stem its tokens.
  const raw = asciiSnippet(WARM_UP_BODY, phrases, new Map(), edges);
  return raw === null ? null : renderSnippet(raw);
}
