// What a passkey row's sealed blob holds: the credential's public key (COSE, base64url), its signature counter
// and the transports the browser named. None is secret, but each must not be altered: a public key swapped in
// would sign its holder in as the member, so the seal binds them to their row.

import { z } from "zod";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import { openAs } from "./open-as.js";

export const passkeyContentSchema = z.object({
  /** Whose it is, sealed with the key: a row moved to another member at rest does not sign that member in. */
  memberId: z.string(),
  publicKey: z.string(),
  counter: z.number().int().nonnegative(),
  transports: z.array(z.string()),
});
export type PasskeyContent = z.infer<typeof passkeyContentSchema>;

/** The table name bound into each passkey's seal. */
const PASSKEYS_TABLE = "passkeys";

export const sealPasskey = (key: TeamKey, idHash: string, content: PasskeyContent) =>
  sealRow(key, PASSKEYS_TABLE, idHash, content);

export const openPasskey = (key: TeamKey, idHash: string, sealed: Uint8Array): Promise<PasskeyContent> =>
  openAs(passkeyContentSchema, key, PASSKEYS_TABLE, idHash, sealed);
