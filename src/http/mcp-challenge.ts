// What /mcp's 401 names, so an MCP client that knows only the URL starts signing in (the MCP authorization
// specification; RFC 9728 §5.1): where its protected resource metadata is, and the scopes to ask for. Pure, so
// the Cloudflare Worker's own 401 says the same.

import type { Context } from "hono";
import { oauthScopes } from "../oauth-scope.js";
import { publicUrl } from "./public-url.js";

export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource/mcp";

/** This instance's /mcp URL as clients reach it: the resource every token is bound to. */
export function mcpResource(c: Context): string {
  return publicUrl(c, "/mcp");
}

/** The authorization server's issuer: this instance's origin as clients reach it, no path. */
export function oauthIssuer(c: Context): string {
  return new URL(publicUrl(c, "/")).origin;
}

/** `presented`: a bearer was sent and did not hold, which RFC 6750 §3.1 names `invalid_token`. */
export function mcpChallenge(c: Context, presented = false): string {
  const error = presented ? 'error="invalid_token", ' : "";
  return `Bearer ${error}resource_metadata="${publicUrl(c, PROTECTED_RESOURCE_PATH)}", scope="${oauthScopes.join(" ")}"`;
}
