// Character references (&amp; &eacute; &#233; &#xE9;) decoded to the characters a reader sees, so "caf&eacute;"
// is indexed as the word "café". The named table is the one micromark itself uses (HTML's full list).

import { decodeNamedCharacterReference } from "decode-named-character-reference";

// A reference to nothing, a surrogate or past U+10FFFF is shown by browsers as U+FFFD; so is it here.
const replacement = "\uFFFD";

function fromCodePoint(code: number): string {
  if (!Number.isFinite(code) || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    return replacement;
  }
  return String.fromCodePoint(code);
}

/** The character(s) of one reference body (without `&` and `;`), or null when it is no reference. */
export function decodeReference(body: string): string | null {
  if (body.charCodeAt(0) === 35 /* # */) {
    const hex = body.charCodeAt(1) === 120 || body.charCodeAt(1) === 88; /* x X */
    const digits = body.slice(hex ? 2 : 1);
    if (digits === "" || !(hex ? /^[0-9a-f]{1,6}$/i : /^[0-9]{1,7}$/).test(digits)) return null;
    return fromCodePoint(Number.parseInt(digits, hex ? 16 : 10));
  }
  const named = decodeNamedCharacterReference(body);
  return named === false ? null : named;
}

// Names run to 31 characters at most in HTML's table (&CounterClockwiseContourIntegral;).
const reference = /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});/g;

/** Decodes every well-formed reference in `text`; anything else is left as written. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(reference, (whole, body: string) => decodeReference(body) ?? whole);
}
