// Bearer authentication: the admin token for teams, a team key for team data, the cron token for reindex.
// The token checks themselves are src/http/bearer.ts, shared with the Cloudflare Worker.

import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import type { TeamKey } from "../seal/team-key.js";
import { bearerToken, requireAdminToken, requireCronOrAdminToken } from "./bearer.js";
import type { AppEnv } from "./env.js";

/** What team authentication needs of the team directory: a presented key to its team, or null. */
export interface ApiKeyAuthenticator {
  authenticate(apiKey: string, secretHash?: string): Promise<TeamKey | null>;
}

export function adminAuth(adminToken: string | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await requireAdminToken(bearerToken(c.req.header("authorization")), adminToken);
    await next();
  };
}

export function teamAuth(directory: ApiKeyAuthenticator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = bearerToken(c.req.header("authorization"));
    if (!given) throw new DomainError("unauthorized");
    // Hashed once here; the key lookup and the rate limit behind it both use this hash.
    const secretHash = hashSecretNow(given);
    const team = await directory.authenticate(given, secretHash);
    if (!team) throw new DomainError("unauthorized");
    c.set("team", team);
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
