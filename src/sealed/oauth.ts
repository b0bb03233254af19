// What memoria's OAuth rows hold sealed: an approval's client (who the member let in, and where it is sent back)
// and a code's PKCE challenge and redirect URI, each under the team's key and bound to its row; and a
// registered client's record, sealed under the instance's key into the client id itself (nothing is stored for
// it, so an anonymous registration cannot fill storage).

import { z } from "zod";
import { fromBase64, fromUtf8, toBase64Url, utf8 } from "../seal/bytes.js";
import type { Keyring } from "../seal/keyring.js";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

export const grantContentSchema = z.object({
  clientId: z.string(),
  clientName: z.string(),
  /** The host the approval's codes go back to: what the member saw on the consent page. */
  redirectHost: z.string(),
});
export type GrantContent = z.infer<typeof grantContentSchema>;

export const codeContentSchema = z.object({
  clientId: z.string(),
  redirectUri: z.string(),
  /** The S256 challenge the client sent with its request; the token request must bring its verifier. */
  codeChallenge: z.string(),
});
export type CodeContent = z.infer<typeof codeContentSchema>;

const GRANTS_TABLE = "oauth_grants";
const TOKENS_TABLE = "oauth_tokens";

export const sealGrant = (key: TeamKey, grantId: string, content: GrantContent) =>
  sealRow(key, GRANTS_TABLE, grantId, content);
export const openGrant = (key: TeamKey, grantId: string, sealed: Uint8Array): Promise<GrantContent> =>
  openAs(grantContentSchema, key, GRANTS_TABLE, grantId, sealed);

export const sealCode = (key: TeamKey, codeHash: string, content: CodeContent) =>
  sealRow(key, TOKENS_TABLE, codeHash, content);
export const openCode = (key: TeamKey, codeHash: string, sealed: Uint8Array): Promise<CodeContent> =>
  openAs(codeContentSchema, key, TOKENS_TABLE, codeHash, sealed);

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
