// Who may speak to /mcp: a team key (any scope; each tool checks its own), or an OAuth access token memoria's
// authorization server issued for this /mcp URL, acting with its approval's scope capped by its member's role
// now. A 401 here names the protected resource metadata and the scopes, so an MCP client that knows only the
// URL starts signing in (the MCP authorization specification; RFC 9728 §5.1).

import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { OAUTH_TOKEN_PREFIX } from "../oauth-token.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import type { OAuthService } from "../services/oauth.js";
import { type ApiKeyAuthenticator, teamAuth } from "./auth.js";
import { bearerToken } from "./bearer.js";
import type { AppEnv } from "./env.js";
import { mcpChallenge, mcpResource } from "./mcp-challenge.js";

export function mcpAuth(
  directory: ApiKeyAuthenticator,
  oauth: Pick<OAuthService, "authenticateAccess">,
): MiddlewareHandler<AppEnv> {
  const byKey = teamAuth(directory);
  return async (c, next) => {
    const given = bearerToken(c.req.header("authorization"));
    c.set("bearerChallenge", mcpChallenge(c, c.req.header("authorization") !== undefined));
    if (!given?.startsWith(OAUTH_TOKEN_PREFIX.access)) return byKey(c, next);
    const access = await oauth.authenticateAccess(given, mcpResource(c));
    if (!access) throw new DomainError("unauthorized", "The access token is not valid; sign in again.");
    c.set("team", access.team);
    // The member's approval stands where a key would: it has the scope, and the member owns what it does.
    c.set("key", { keyId: access.grantId, scope: access.scope, owner: access.memberId });
    c.set("oauthGrant", access.grantId);
    // Counted per approval: a refresh hands out a new token, not a new allowance.
    c.set("credentialHash", hashSecretNow(`oauth\u0000${access.grantId}`));
    await next();
  };
}
