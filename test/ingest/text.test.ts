// What counts as a note's text, and strict UTF-8 decoding: the one check every ingest path shares.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentHashOf, decodeUtf8, isNoteText, notTextReason } from "../../src/ingest/text.js";

describe("notTextReason", () => {
  it.each([
    ["", null],
    ["plain words", null],
    ["emoji 🦊 and CJK 東京, tabs\tand\r\nnewlines", null],
    ["a well-formed pair \ud83e\udd8a", null],
    ["U+FFFD � is a character like any other", null],
    ["nul \u0000 inside", "nul"],
    ["\u0000", "nul"],
    ["lone high \ud800 here", "lone_surrogate"],
    ["lone low \udc00 here", "lone_surrogate"],
    ["high at the end \ud83d", "lone_surrogate"],
    ["low first \udd8a\ud83e", "lone_surrogate"],
  ])("%j → %s", (text, reason) => {
    expect(notTextReason(text)).toBe(reason);
    expect(isNoteText(text)).toBe(reason === null);
  });
});

describe("decodeUtf8", () => {
  const bytes = (...b: number[]) => new Uint8Array(b);

  it("decodes UTF-8 and drops a leading byte order mark", () => {
    expect(decodeUtf8(new TextEncoder().encode("café 🦊"))).toBe("café 🦊");
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61))).toBe("a");
    expect(decodeUtf8(bytes())).toBe("");
  });

  it.each([
    ["a Latin-1 é", bytes(0x63, 0x61, 0x66, 0xe9)],
    ["a lone continuation byte", bytes(0x80)],
    ["an overlong slash", bytes(0xc0, 0xaf)],
    ["a truncated sequence", bytes(0xe2, 0x82)],
    ["an encoded surrogate", bytes(0xed, 0xa0, 0x80)],
    ["a code point above U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80)],
  ])("refuses %s instead of replacing it with U+FFFD", (_label, b) => {
    expect(decodeUtf8(b)).toBeNull();
  });

  it("keeps working after a refusal (no state carried between calls)", () => {
    expect(decodeUtf8(bytes(0xe2, 0x82))).toBeNull();
    expect(decodeUtf8(bytes(0xac))).toBeNull();
    expect(decodeUtf8(bytes(0x61))).toBe("a");
  });
});

describe("contentHashOf", () => {
  it("is the SHA-256 hex of the UTF-8 bytes", async () => {
    for (const text of ["", "a\nb", "é", "e\u0301", "🦊"]) {
      expect(await contentHashOf(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
  });
});
