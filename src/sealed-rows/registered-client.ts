// A client that registered itself (RFC 7591), as its client id carries it: the record is sealed under the
// instance's key for such records (derived from the master key) into the id itself, so nothing is stored for it
// and an anonymous registration cannot fill storage.

import { z } from "zod";
import { fromBase64, fromUtf8, toBase64Url, utf8 } from "../seal/bytes.js";
import type { Keyring } from "../seal/keyring.js";

/** A client that registered itself (RFC 7591), as its client id carries it. */
export const registeredClientSchema = z.object({
  name: z.string(),
  redirectUris: z.array(z.string()),
  /** `none` for a public client; else the SHA-256 of the secret it was given, compared at the token endpoint. */
  auth: z.union([
    z.object({ method: z.literal("none") }),
    z.object({ method: z.enum(["client_secret_basic", "client_secret_post"]), secretHash: z.string() }),
  ]),
  issuedAt: z.number().int(),
});
export type RegisteredClient = z.infer<typeof registeredClientSchema>;

/** Marks a client id memoria issued at registration, apart from a metadata document's https URL. */
export const REGISTERED_CLIENT_PREFIX = "mcl_";
const REGISTERED_CLIENT_LABEL = "oauth-client";

export async function sealRegisteredClient(keyring: Keyring, client: RegisteredClient): Promise<string> {
  const sealed = await keyring.sealInstanceRecord(REGISTERED_CLIENT_LABEL, utf8(JSON.stringify(client)));
  return `${REGISTERED_CLIENT_PREFIX}${toBase64Url(sealed)}`;
}

/** The record a client id carries, or null when it is not one this instance (or its previous key) sealed. */
export async function openRegisteredClient(
  keyring: Keyring,
  clientId: string,
): Promise<RegisteredClient | null> {
  if (!clientId.startsWith(REGISTERED_CLIENT_PREFIX)) return null;
  const sealed = fromBase64(clientId.slice(REGISTERED_CLIENT_PREFIX.length));
  if (!sealed) return null;
  const bytes = await keyring.openInstanceRecord(REGISTERED_CLIENT_LABEL, sealed);
  if (!bytes) return null;
  try {
    const parsed = registeredClientSchema.safeParse(JSON.parse(fromUtf8(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
