// Reading a body of newline-delimited JSON as it arrives: one line at a time, each bounded, so a body of any
// size is never held whole. A line longer than its bound is refused (413) as soon as its bytes pass it,
// before the rest of it is read. A last line the stream cut short (no newline, and not JSON) is dropped:
// the reader of the lines decides what a stream that stopped early means.

import { DomainError } from "../errors.js";

/** One line of the body, 1-based, as text; blank lines are passed over (their numbers still count). */
export interface RawLine {
  line: number;
  text: string;
}

const NEWLINE = 0x0a;

function lineTooLong(line: number, maxLineBytes: number): DomainError {
  return new DomainError(
    "payload_too_large",
    `Invalid import: line ${line} is longer than ${maxLineBytes} bytes (the largest document's line).`,
  );
}

function decodeLine(parts: readonly Uint8Array[], length: number, line: number): string {
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/\r$/, "");
  } catch {
    throw new DomainError("invalid_request", `Invalid import: line ${line} is not UTF-8.`);
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The lines of `body`, each at most `maxLineBytes` (its newline not counted). */
export async function* ndjsonLines(
  body: ReadableStream<Uint8Array>,
  maxLineBytes: number,
): AsyncGenerator<RawLine> {
  const reader = body.getReader();
  let parts: Uint8Array[] = [];
  let length = 0;
  let line = 1;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let start = 0;
      for (let at = value.indexOf(NEWLINE); at !== -1; at = value.indexOf(NEWLINE, start)) {
        const piece = value.subarray(start, at);
        if (length + piece.byteLength > maxLineBytes) throw lineTooLong(line, maxLineBytes);
        parts.push(piece);
        length += piece.byteLength;
        const text = decodeLine(parts, length, line);
        if (text.trim() !== "") yield { line, text };
        parts = [];
        length = 0;
        line++;
        start = at + 1;
      }
      const rest = value.subarray(start);
      if (length + rest.byteLength > maxLineBytes) throw lineTooLong(line, maxLineBytes);
      if (rest.byteLength > 0) {
        // Copied: the stream may reuse the chunk's buffer once it is handed back.
        parts.push(rest.slice());
        length += rest.byteLength;
      }
    }
    if (length > 0) {
      // Without its newline the last line may have been cut anywhere: it counts only if it is whole JSON.
      let text: string | null = null;
      try {
        text = decodeLine(parts, length, line);
      } catch {
        text = null;
      }
      if (text !== null && text.trim() !== "" && isJson(text)) yield { line, text };
    }
  } finally {
    // A consumer that stops early (a bad line) lets go of the body, so the connection is not left waiting.
    await reader.cancel().catch(() => {});
  }
}
