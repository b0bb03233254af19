// What memoria's OAuth rows hold sealed: an approval's client (who the member let in, and where it is sent back)
// and a code's PKCE challenge and redirect URI, each under the team's key and bound to its row.

import { z } from "zod";
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
