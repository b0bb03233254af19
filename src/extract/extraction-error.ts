// Why a file gave no text. The message says what is wrong with the file and never quotes its text, since it
// is shown to the client and may be logged (src/errors.ts).

/**
 * - not_format: the bytes are not the declared format (415).
 * - encrypted, no_text, truncated, damaged: a file of that format that cannot be read (422).
 * - too_large: it outgrew a bound while being read (inflating, memory, time) (422).
 */
export type ExtractionProblem =
  | "not_format"
  | "encrypted"
  | "no_text"
  | "truncated"
  | "damaged"
  | "too_large";

export const extractionProblems: readonly ExtractionProblem[] = [
  "not_format",
  "encrypted",
  "no_text",
  "truncated",
  "damaged",
  "too_large",
];

export class ExtractionError extends Error {
  override readonly name = "ExtractionError";
  constructor(
    readonly problem: ExtractionProblem,
    message: string,
  ) {
    super(message);
  }
}
