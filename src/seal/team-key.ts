// A team's data key and what is derived from it. The raw 32 bytes are never used directly: HKDF derives one
// key for sealing rows and another for the blind index, so the two uses can never be confused.

import { type CryptoKey, fromUtf8, randomBytes, utf8 } from "./bytes.js";
import { openBytes, sealBytes } from "./seal.js";

export const TEAM_KEY_BYTES = 32;

export interface TeamKey {
  readonly teamId: string;
  readonly aead: CryptoKey;
  readonly blind: CryptoKey;
}

export function generateTeamKeyMaterial(): Uint8Array<ArrayBuffer> {
  return randomBytes(TEAM_KEY_BYTES);
}

export async function deriveTeamKey(teamId: string, raw: Uint8Array<ArrayBuffer>): Promise<TeamKey> {
  const base = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const params = (info: string) => ({
    name: "HKDF",
    hash: "SHA-256",
    salt: utf8(`memoria/${teamId}`),
    info: utf8(info),
  });
  const aead = await crypto.subtle.deriveKey(
    params("memoria row seal v1"),
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  const blind = await crypto.subtle.deriveKey(
    params("memoria blind index v1"),
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
  return { teamId, aead, blind };
}

/**
 * The additional data every row seal is bound to. A ciphertext copied to another team, another table or
 * another row id fails to open instead of opening as someone else's data.
 */
function rowAad(teamId: string, table: string, rowId: string): Uint8Array<ArrayBuffer> {
  return utf8(`memoria/row/${teamId}/${table}/${rowId}`);
}

export function sealRow(key: TeamKey, table: string, rowId: string, value: unknown): Promise<Uint8Array> {
  return sealBytes(key.aead, utf8(JSON.stringify(value)), rowAad(key.teamId, table, rowId));
}

/** Opens a sealed row to its JSON value; the caller validates the shape. Throws UnreadableError. */
export async function openRow(
  key: TeamKey,
  table: string,
  rowId: string,
  sealed: Uint8Array,
): Promise<unknown> {
  const bytes = await openBytes(key.aead, sealed, rowAad(key.teamId, table, rowId), `${table} row ${rowId}`);
  return JSON.parse(fromUtf8(bytes));
}

/**
 * Seals bytes as they are, bound like a row: for values too large or too binary for JSON (an index
 * snapshot's parts, src/sealed-rows/snapshots.ts).
 */
export function sealRowBytes(
  key: TeamKey,
  table: string,
  rowId: string,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  return sealBytes(key.aead, bytes, rowAad(key.teamId, table, rowId));
}

/** Opens what sealRowBytes sealed; throws UnreadableError (DomainError "unreadable"). */
export function openRowBytes(
  key: TeamKey,
  table: string,
  rowId: string,
  sealed: Uint8Array,
): Promise<Uint8Array<ArrayBuffer>> {
  return openBytes(key.aead, sealed, rowAad(key.teamId, table, rowId), `${table} row`);
}

/**
 * A keyed hash of a source's own id (a Notion page id, a file path), so a sealed row can be found by it
 * without the id ever being stored. Keyed per team: equal ids in two teams hash differently.
 */
export async function blindIndex(key: TeamKey, value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key.blind, utf8(value)));
}
