// The master key (from MEMORIA_MASTER_KEY) only ever wraps and unwraps per-team data keys. Rows are never
// sealed with it directly, which is what makes rotating it cheap: re-wrap one small key per team, touch no
// row.

import { isDomainError } from "../errors.js";
import { type CryptoKey, fromBase64, randomBytes, toBase64Url, utf8 } from "./bytes.js";
import { openBytes, sealBytes } from "./seal.js";

export const MASTER_KEY_BYTES = 32;

/** A new random master key, as text to keep in a file or the environment (base64url). */
export function generateMasterKeyText(): string {
  return toBase64Url(randomBytes(MASTER_KEY_BYTES));
}

/** A master key as written in the environment or its file (base64 or base64url); null unless 32 bytes. */
export function decodeMasterKey(text: string): Uint8Array<ArrayBuffer> | null {
  const bytes = fromBase64(text);
  return bytes && bytes.length === MASTER_KEY_BYTES ? bytes : null;
}

export interface MasterKeys {
  current: CryptoKey;
  /** The key being rotated away from: team keys it wrapped still open, and are re-wrapped with `current`. */
  previous: CryptoKey | null;
  /**
   * The instance's keys for finding a row by a value that must stay unreadable (a person's sign-in address),
   * one from each master key: such a value is looked up before its team is known, so no team key can hash it.
   */
  lookup: { current: CryptoKey; previous: CryptoKey | null };
  /**
   * The instance's keys for the records of OAuth clients that registered themselves (sealed-rows/registered-client.ts):
   * such a record is made before anyone signs in, so it belongs to no team, and it travels sealed inside the
   * client id rather than in storage.
   */
  clients: { current: CryptoKey; previous: CryptoKey | null };
}

export async function importMasterKeys(
  current: Uint8Array<ArrayBuffer>,
  previous?: Uint8Array<ArrayBuffer> | null,
): Promise<MasterKeys> {
  const load = (raw: Uint8Array<ArrayBuffer>) => {
    if (raw.length !== MASTER_KEY_BYTES) throw new Error(`A master key must be ${MASTER_KEY_BYTES} bytes.`);
    return crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
  };
  return {
    current: await load(current),
    previous: previous ? await load(previous) : null,
    lookup: {
      current: await deriveLookupKey(current),
      previous: previous ? await deriveLookupKey(previous) : null,
    },
    clients: {
      current: await deriveClientsKey(current),
      previous: previous ? await deriveClientsKey(previous) : null,
    },
  };
}

/**
 * An HMAC key derived from a master key (HKDF, its own label): a database copy without the master key cannot
 * test a guessed address against a stored hash, and a master key rotated away stops matching once every row
 * found under it was hashed anew (sealed-rows/members.ts's callers rehash as they find).
 */
async function deriveLookupKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: utf8("memoria/lookup"), info: utf8("lookup v1") },
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
}

/** An AES-GCM key derived from a master key under its own label, for registered clients' records alone. */
async function deriveClientsKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: utf8("memoria/oauth-clients"), info: utf8("oauth clients v1") },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

// Binding the wrapped key to its team means a wrapped key copied onto another team's row will not open.
function wrapAad(teamId: string): Uint8Array<ArrayBuffer> {
  return utf8(`memoria/team-key/${teamId}`);
}

export function wrapTeamKey(
  master: MasterKeys,
  teamId: string,
  raw: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  return sealBytes(master.current, raw, wrapAad(teamId));
}

/**
 * Unwraps a team's data key. `rewrapped` is set when only the previous master key opened it: the caller
 * stores it so the rotation completes team by team as teams are used.
 */
export async function unwrapTeamKey(
  master: MasterKeys,
  teamId: string,
  wrapped: Uint8Array,
): Promise<{ raw: Uint8Array<ArrayBuffer>; rewrapped: Uint8Array<ArrayBuffer> | null }> {
  try {
    return { raw: await openBytes(master.current, wrapped, wrapAad(teamId), "team key"), rewrapped: null };
  } catch (error) {
    if (!master.previous || !isDomainError(error, "unreadable")) throw error;
  }
  const raw = await openBytes(master.previous, wrapped, wrapAad(teamId), "team key");
  return { raw, rewrapped: await wrapTeamKey(master, teamId, raw) };
}
