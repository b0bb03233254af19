// The keys of one page session, all derived from the session's secret, which only the person's cookie holds:
// storage keeps the secret's hash (to find the row) and who signed in (a team key, or a member's id) sealed
// under a key derived from the secret, so a copy of the database opens no session and signs nobody in. The
// CSRF token is derived too, so it needs no row of its own and dies with the session.

import { type CryptoKey, constantTimeEqual, randomBytes, toBase64Url, toHex, utf8 } from "./bytes.js";
import { openBytes, sealBytes } from "./seal.js";
import { hashSecret } from "./secret.js";

/** 256 bits: the cookie is a bearer credential like a team key, guessed no more easily. */
const SESSION_SECRET_BYTES = 32;

export interface PageSessionKeys {
  /** SHA-256 of the secret, hex: the row's id. */
  idHash: string;
  seal: CryptoKey;
  csrf: CryptoKey;
}

export function generateSessionSecret(): string {
  return toBase64Url(randomBytes(SESSION_SECRET_BYTES));
}

export async function pageSessionKeys(secret: string): Promise<PageSessionKeys> {
  const base = await crypto.subtle.importKey("raw", utf8(secret), "HKDF", false, ["deriveKey"]);
  const params = (info: string) => ({
    name: "HKDF",
    hash: "SHA-256",
    salt: utf8("memoria/page-session"),
    info: utf8(info),
  });
  const [idHash, seal, csrf] = await Promise.all([
    hashSecret(secret),
    crypto.subtle.deriveKey(params("seal v1"), base, { name: "AES-GCM", length: 256 }, false, [
      "encrypt",
      "decrypt",
    ]),
    crypto.subtle.deriveKey(params("csrf v1"), base, { name: "HMAC", hash: "SHA-256", length: 256 }, false, [
      "sign",
    ]),
  ]);
  return { idHash, seal, csrf };
}

function sessionAad(teamId: string, idHash: string): Uint8Array<ArrayBuffer> {
  return utf8(`memoria/page-session/${teamId}/${idHash}`);
}

/** Seals who the session signs in (the team key it signs in with, or its member); bound to its team and row. */
export function sealSessionKey(keys: PageSessionKeys, teamId: string, who: string): Promise<Uint8Array> {
  return sealBytes(keys.seal, utf8(who), sessionAad(teamId, keys.idHash));
}

export async function openSessionKey(
  keys: PageSessionKeys,
  teamId: string,
  sealed: Uint8Array,
): Promise<string> {
  const bytes = await openBytes(keys.seal, sealed, sessionAad(teamId, keys.idHash), "page session");
  return new TextDecoder().decode(bytes);
}

/** The session's CSRF token: an HMAC of a fixed label, so every form of one session carries the same one. */
export async function csrfToken(keys: PageSessionKeys): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", keys.csrf, utf8("memoria page form"))));
}

export async function csrfTokenMatches(keys: PageSessionKeys, given: string): Promise<boolean> {
  return constantTimeEqual(utf8(await csrfToken(keys)), utf8(given));
}
