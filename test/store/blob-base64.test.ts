// The blob codec of libSQL's WebSocket transport, given Buffer's base64 (src/store/blob-base64.ts): the same
// text and bytes js-base64 reads and writes, on the very object the client encodes and decodes through.

import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Base64 } from "js-base64";
import { describe, expect, it } from "vitest";
import { useBufferForBlobs } from "../../src/store/blob-base64.js";
import { openClient } from "../../src/store/client.js";

const require = createRequire(import.meta.url);
/** js-base64's own functions, taken before anything here opens a client. */
const original = { toUint8Array: Base64.toUint8Array, fromUint8Array: Base64.fromUint8Array };

/** Every byte value, then lengths that end on each of base64's three paddings. */
function samples(): Uint8Array[] {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const out = [new Uint8Array(0), all];
  for (let length = 1; length <= 70; length++)
    out.push(Uint8Array.from({ length }, (_, i) => (i * 151 + length * 7) & 0xff));
  return out;
}

describe("blob base64", () => {
  it("is installed on the Base64 object the libSQL client's Hrana transport imports", async () => {
    expect(Base64.toUint8Array).toBe(original.toUint8Array);
    const client = await openClient({ url: ":memory:" });
    client.close();
    expect(Base64.toUint8Array).not.toBe(original.toUint8Array);
    expect(Base64.fromUint8Array).not.toBe(original.fromUint8Array);
    // The client's own js-base64 is this package, not a copy of its own: one object, patched once.
    const hrana = createRequire(require.resolve("@libsql/client")).resolve("@libsql/hrana-client");
    expect(dirname(createRequire(hrana).resolve("js-base64"))).toBe(dirname(require.resolve("js-base64")));
    const bytes = Uint8Array.from([0xfb, 0xff, 0x00]);
    expect(Base64.fromUint8Array(bytes)).toBe("+/8A");
    expect(Base64.toUint8Array("+/8A")).toEqual(bytes);
  });

  it("writes what js-base64 writes and reads it back, for every length and byte", () => {
    useBufferForBlobs();
    for (const bytes of samples()) {
      const standard = original.fromUint8Array(bytes);
      expect(standard).toBe(btoa(String.fromCharCode(...bytes)));
      expect(Base64.fromUint8Array(bytes)).toBe(standard);
      expect(Base64.fromUint8Array(bytes, true)).toBe(original.fromUint8Array(bytes, true));
      expect(Array.from(Base64.toUint8Array(standard))).toEqual(Array.from(bytes));
    }
  });

  it("reads the URL-safe alphabet, missing padding and line breaks as js-base64 does", () => {
    useBufferForBlobs();
    for (const text of ["-_8A", "AQI", "AQID\nBA==\n", "QUJD RA"])
      expect(Array.from(Base64.toUint8Array(text))).toEqual(Array.from(original.toUint8Array(text)));
  });

  it("encodes a view into a larger buffer as the view's bytes alone", () => {
    useBufferForBlobs();
    const whole = Uint8Array.from([9, 9, 1, 2, 3, 9]);
    expect(Base64.fromUint8Array(whole.subarray(2, 5))).toBe("AQID");
  });
});
