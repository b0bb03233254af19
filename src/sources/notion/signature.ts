// Notion signs every webhook delivery: `X-Notion-Signature: sha256=<hex>`, the HMAC-SHA256 of the raw body
// keyed by the subscription's verification token. The bytes as received are what is signed, so the check
// runs on them, never on decoded and re-encoded text. The HMAC itself is computed in src/seal.

import { hmacSha256Hex, tokensEqual } from "../../seal/secret.js";

export const SIGNATURE_HEADER = "x-notion-signature";

/** The signature Notion would send for this body. */
export async function notionSignature(
  rawBody: Uint8Array<ArrayBuffer>,
  verificationToken: string,
): Promise<string> {
  return `sha256=${await hmacSha256Hex(verificationToken, rawBody)}`;
}

/** Whether `given` is the body's signature under the token, compared in constant time. */
export async function signatureValid(
  rawBody: Uint8Array<ArrayBuffer>,
  given: string | null | undefined,
  verificationToken: string,
): Promise<boolean> {
  if (!given) return false;
  const expected = await notionSignature(rawBody, verificationToken);
  // Hex is case-insensitive; the comparison is not, so both sides are lower case.
  return tokensEqual(given.trim().toLowerCase(), expected);
}
