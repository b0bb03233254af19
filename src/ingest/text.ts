// What counts as a note's text, decided in one place for every way a document arrives (JSON, a raw body, a
// multipart file, the signed webhook, Notion): the routes map a refusal to their status, the documents
// service refuses the rest. A refusal names what is wrong, never a piece of the content.

import { toHex, utf8 } from "../seal/bytes.js";

/** Why a text is not a note's text. */
export type NotTextReason = "nul" | "lone_surrogate";

// A UTF-16 surrogate with no partner. Such a string has no UTF-8 form: sealing would store U+FFFD in its
// place, so the stored note would silently differ from what was sent (and from its contentHash). It comes
// from a JSON `\ud800` escape, never from bytes that decoded as UTF-8.
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Null when `text` can be a note; else why not. A NUL (U+0000) marks binary data: no editor writes one into
 * a note, and every file sniffer (git, grep, file) reads it as "binary".
 */
export function notTextReason(text: string): NotTextReason | null {
  if (text.includes("\u0000")) return "nul";
  if (loneSurrogate.test(text)) return "lone_surrogate";
  return null;
}

export function isNoteText(text: string): boolean {
  return notTextReason(text) === null;
}

/** The reason in words, for an error message. */
export function describeNotText(reason: NotTextReason): string {
  return reason === "nul"
    ? "it holds a NUL byte, so it is binary data, not text"
    : "it holds a lone UTF-16 surrogate (a \\ud800–\\udfff escape with no partner), which is not text";
}

// `fatal` so that bytes that are not UTF-8 are refused instead of replaced by U+FFFD (what Request.text()
// and Response.json() do, silently). A leading byte order mark is dropped, as every UTF-8 reader does.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The UTF-8 text of `bytes`, or null when they are not UTF-8. */
export function decodeUtf8(bytes: ArrayBuffer | Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The SHA-256 hex of the text's UTF-8 bytes: what `contentHash` answers, and what `memoria import` compares
 * a file with. Stored sealed only: a plain hash at rest would confirm a guessed document.
 */
export async function contentHashOf(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(text))));
}
