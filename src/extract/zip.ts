// Reads single entries of a ZIP archive (a DOCX file is one) from memory, each inflated with a bound on its
// size. The bound is on what inflating actually produces, not on the sizes the archive declares, which a
// zip bomb forges: Node's zlib stops at `maxOutputLength` and throws, so an entry that would inflate to
// 1 GiB costs at most the bound. Nothing is written anywhere (the file may be a team's document).

import { inflateRawSync } from "node:zlib";

/** Why the bytes are not an archive this reader can open. */
export type ZipProblem = "not_zip" | "truncated" | "unsupported" | "too_large" | "damaged";

export class ZipError extends Error {
  override readonly name = "ZipError";
  constructor(
    readonly problem: ZipProblem,
    message: string,
  ) {
    super(message);
  }
}

interface Entry {
  method: number;
  flags: number;
  compressedSize: number;
  localHeaderOffset: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** The end record is 22 bytes, followed by a comment of at most 65535. */
const MAX_END_SEARCH = 22 + 0xffff;
const STORED = 0;
const DEFLATED = 8;

/** Whether the bytes start as a ZIP archive does (a local file header). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && readU32(bytes, 0) === LOCAL_HEADER;
}

export class ZipReader {
  readonly #bytes: Uint8Array;
  readonly #entries = new Map<string, Entry>();

  constructor(bytes: Uint8Array) {
    if (!looksLikeZip(bytes)) throw new ZipError("not_zip", "is not a ZIP archive");
    this.#bytes = bytes;
    const end = findEnd(bytes);
    if (end < 0) throw new ZipError("truncated", "is truncated (the archive has no central directory)");
    const count = readU16(bytes, end + 10);
    let at = readU32(bytes, end + 16);
    const decoder = new TextDecoder();
    for (let i = 0; i < count; i++) {
      if (at + 46 > bytes.length || readU32(bytes, at) !== CENTRAL_HEADER) {
        throw new ZipError("damaged", "is damaged (its central directory is cut or malformed)");
      }
      const nameLength = readU16(bytes, at + 28);
      const extraLength = readU16(bytes, at + 30);
      const commentLength = readU16(bytes, at + 32);
      const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
      this.#entries.set(name, {
        flags: readU16(bytes, at + 8),
        method: readU16(bytes, at + 10),
        compressedSize: readU32(bytes, at + 20),
        localHeaderOffset: readU32(bytes, at + 42),
      });
      at += 46 + nameLength + extraLength + commentLength;
    }
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** The entry's bytes, or null when the archive has no such entry; throws past `maxBytes` inflated. */
  read(name: string, maxBytes: number): Uint8Array | null {
    const entry = this.#entries.get(name);
    if (!entry) return null;
    // Bit 0: encrypted. A DOCX is never encrypted this way (Word encrypts into an OLE file, not a ZIP).
    if (entry.flags & 1) throw new ZipError("unsupported", "has an encrypted part");
    const bytes = this.#bytes;
    const at = entry.localHeaderOffset;
    if (at + 30 > bytes.length || readU32(bytes, at) !== LOCAL_HEADER) {
      throw new ZipError("damaged", "is damaged (a part's header is missing)");
    }
    const start = at + 30 + readU16(bytes, at + 26) + readU16(bytes, at + 28);
    const end = start + entry.compressedSize;
    if (end > bytes.length) throw new ZipError("truncated", "is truncated (a part is cut short)");
    const data = bytes.subarray(start, end);
    if (entry.method === STORED) {
      if (data.length > maxBytes) throw tooLarge(name, maxBytes);
      return data;
    }
    if (entry.method !== DEFLATED)
      throw new ZipError("unsupported", "uses a compression method other than deflate");
    try {
      return inflateRawSync(data, { maxOutputLength: maxBytes });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(name, maxBytes);
      throw new ZipError("damaged", "is damaged (a part does not inflate)");
    }
  }
}

function tooLarge(name: string, maxBytes: number): ZipError {
  // The part's name is the archive's structure (word/document.xml), never the team's text.
  return new ZipError("too_large", `has a part (${name}) that inflates past ${maxBytes} bytes`);
}

function findEnd(bytes: Uint8Array): number {
  const lowest = Math.max(0, bytes.length - MAX_END_SEARCH);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (readU32(bytes, at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  return -1;
}

function readU16(bytes: Uint8Array, at: number): number {
  return (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
}

function readU32(bytes: Uint8Array, at: number): number {
  return (readU16(bytes, at) | (readU16(bytes, at + 2) << 16)) >>> 0;
}
