// Authenticated encryption of one value. AES-256-GCM through WebCrypto, so the same code runs on Node, Deno
// and Workers. Format: [version byte][96-bit random IV][ciphertext + 128-bit tag].

import { DomainError } from "../errors.js";
import { type CryptoKey, randomBytes } from "./bytes.js";

/** Bumped when the format changes; a reader can then tell old rows from new ones without guessing. */
export const SEAL_VERSION = 1;
// 96 bits is the IV length GCM is specified for; a random IV per seal keeps (key, IV) pairs unique with
// overwhelming probability for far more seals than one team key will ever make.
const IV_BYTES = 12;

export async function sealBytes(
  key: CryptoKey,
  plaintext: Uint8Array<ArrayBuffer>,
  aad: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const iv = randomBytes(IV_BYTES);
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, key, plaintext),
  );
  const out = new Uint8Array(1 + IV_BYTES + ciphertext.length);
  out[0] = SEAL_VERSION;
  out.set(iv, 1);
  out.set(ciphertext, 1 + IV_BYTES);
  return out;
}

/** Opens a sealed value or throws UnreadableError; `what` names the row for the error, never its content. */
export async function openBytes(
  key: CryptoKey,
  sealed: Uint8Array,
  aad: Uint8Array<ArrayBuffer>,
  what: string,
): Promise<Uint8Array<ArrayBuffer>> {
  if (sealed.length < 1 + IV_BYTES + 16 || sealed[0] !== SEAL_VERSION) {
    throw new DomainError("unreadable", `Stored ${what} is not in a known sealed format.`);
  }
  try {
    // Views, not copies: a build opens ~90 MB of sealed chunks at 90k passages.
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const body = sealed.subarray(1 + IV_BYTES);
    return new Uint8Array(
      await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad }, key, body),
    );
  } catch {
    throw new DomainError(
      "unreadable",
      `Stored ${what} failed to open: wrong key, or the row was altered or moved.`,
    );
  }
}
