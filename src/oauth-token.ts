// The forms of what memoria's authorization server hands MCP clients: an authorization code, an access token
// and a refresh token, each `<prefix><teamId>_<secret>`. Like an API key (api-key.ts), each names its team,
// so a router (the Cloudflare Worker) sends a bearer to the team's instance before anything checks it, and the
// authorization server finds the team's key to open the sealed rows behind it. Pure, for the Worker bundle.

import { teamIdPattern } from "./ids.js";

export const oauthTokenKinds = ["code", "access", "refresh"] as const;
export type OAuthTokenKind = (typeof oauthTokenKinds)[number];

/**
 * Distinct prefixes, none `mem_`: a token is never mistaken for an API key or for another kind of token, and a
 * secret scanner can tell them apart in a leaked log.
 */
export const OAUTH_TOKEN_PREFIX: Readonly<Record<OAuthTokenKind, string>> = {
  code: "moc_",
  access: "moa_",
  refresh: "mor_",
};

export function formatOAuthToken(kind: OAuthTokenKind, teamId: string, secret: string): string {
  return `${OAUTH_TOKEN_PREFIX[kind]}${teamId}_${secret}`;
}

/** The team a token of `kind` names (a well-formed team id and a non-empty secret), or null; the shape only. */
export function teamIdOfOAuthToken(kind: OAuthTokenKind, token: string): string | null {
  const prefix = OAUTH_TOKEN_PREFIX[kind];
  if (!token.startsWith(prefix)) return null;
  const rest = token.slice(prefix.length);
  const end = rest.indexOf("_");
  if (end <= 0 || end === rest.length - 1) return null;
  const teamId = rest.slice(0, end);
  return teamIdPattern.test(teamId) ? teamId : null;
}
