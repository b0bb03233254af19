// Bearer secrets: API keys and tokens. A stored API key is only its SHA-256: the secret has 256 bits of
// entropy, so a slow password hash would buy nothing and cost every request.

import { constantTimeEqual, randomBytes, toBase64, toBase64Url, toHex, utf8 } from "./bytes.js";

/** 32 random bytes, base64url: 256 bits, and safe in a header, a URL or a shell. */
export function generateSecret(): string {
  return toBase64Url(randomBytes(32));
}

/** Standard Webhooks' own secret form: `whsec_` and the base64 of 32 random key bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${toBase64(randomBytes(32))}`;
}

export async function hashSecret(secret: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(secret))));
}

/** Compares two tokens without leaking, through timing, how much of a guess was right. */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  // Hashing first gives both sides the same length, so not even the length leaks.
  const [a, b] = await Promise.all([hashSecret(given), hashSecret(expected)]);
  return constantTimeEqual(utf8(a), utf8(b));
}

/** The lower-case hex HMAC-SHA256 of `data` keyed by the UTF-8 bytes of `key` (a shared signing secret). */
export async function hmacSha256Hex(key: string, data: Uint8Array<ArrayBuffer>): Promise<string> {
  const hmacKey = await crypto.subtle.importKey("raw", utf8(key), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", hmacKey, data)));
}
