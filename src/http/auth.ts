// Bearer authentication: the admin token for teams, a team key for team data, the cron token for reindex.
// The token checks themselves are src/http/bearer.ts, shared with the Cloudflare Worker.

import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import type { AuthenticatedKey } from "../services/teams.js";
import { bearerToken, requireAdminToken, requireCronOrAdminToken } from "./bearer.js";
import type { AppEnv } from "./env.js";

/** What team authentication needs of the team directory: a presented key to its team and scope, or null. */
export interface ApiKeyAuthenticator {
  authenticateKey(apiKey: string, secretHash?: string): Promise<AuthenticatedKey | null>;
}

export function adminAuth(adminToken: string | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await requireAdminToken(bearerToken(c.req.header("authorization")), adminToken);
    await next();
  };
}

/**
 * A team key: the request's team and the key's scope (`key`), which routeScope (http/scopes.ts) then checks
 * against what the route needs, once the key's request is counted under its rate limit.
 */
export function teamAuth(directory: ApiKeyAuthenticator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = bearerToken(c.req.header("authorization"));
    if (!given) throw new DomainError("unauthorized");
    // Hashed once here; the key lookup and the rate limit behind it both use this hash.
    const secretHash = hashSecretNow(given);
    const key = await directory.authenticateKey(given, secretHash);
    if (!key) throw new DomainError("unauthorized");
    c.set("team", key.team);
    c.set("key", { keyId: key.keyId, scope: key.scope, owner: key.owner });
    c.set("credentialHash", secretHash);
    await next();
  };
}

/** The reindex ping's credentials: the cron token, or the admin token. */
export function cronAuth(cronToken: string | null, adminToken: string | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await requireCronOrAdminToken(bearerToken(c.req.header("authorization")), cronToken, adminToken);
    await next();
  };
}

/** GET /metrics: MEMORIA_METRICS_TOKEN when set, or the admin token; either is compared in constant time. */
export function metricsAuth(
  metricsToken: string | null,
  adminToken: string | null,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (metricsToken === null && adminToken === null)
      throw new DomainError(
        "admin_disabled",
        "Metrics are disabled: set MEMORIA_METRICS_TOKEN or MEMORIA_ADMIN_TOKEN.",
      );
    // The check takes any two tokens; here they are the metrics token and the admin token.
    await requireCronOrAdminToken(bearerToken(c.req.header("authorization")), metricsToken, adminToken);
    await next();
  };
}
