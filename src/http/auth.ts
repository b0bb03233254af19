// Bearer authentication: the admin token for teams, a team key for team data, the cron token for reindex.
// Every comparison is constant-time; every failure is the same 401.

import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { tokensEqual } from "../seal/secret.js";
import type { TeamDirectory } from "../teams/directory.js";
import type { AppEnv } from "./env.js";

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

export function adminAuth(adminToken: string | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (adminToken === null) throw new DomainError("admin_disabled");
    const given = bearerToken(c.req.header("authorization"));
    if (!given || !(await tokensEqual(given, adminToken))) throw new DomainError("unauthorized");
    await next();
  };
}

export function teamAuth(directory: TeamDirectory): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = bearerToken(c.req.header("authorization"));
    const team = given ? await directory.authenticate(given) : null;
    if (!team) throw new DomainError("unauthorized");
    c.set("team", team);
    await next();
  };
}

/** The reindex ping's credentials: the cron token, or the admin token; both compared, in constant time. */
export function cronAuth(cronToken: string | null, adminToken: string | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = bearerToken(c.req.header("authorization"));
    if (!given) throw new DomainError("unauthorized");
    const [cron, admin] = await Promise.all([
      cronToken !== null && tokensEqual(given, cronToken),
      adminToken !== null && tokensEqual(given, adminToken),
    ]);
    if (!cron && !admin) throw new DomainError("unauthorized");
    await next();
  };
}
