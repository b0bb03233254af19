// Reading a bearer token and checking it against the admin and cron tokens: pure, so the app's middlewares
// (src/http/auth.ts) and the Cloudflare Worker in front of it take the same decisions. Every comparison is
// constant-time; every mismatch is the same 401.

import { DomainError } from "../errors.js";
import { tokensEqual } from "../seal/secret.js";

export function bearerToken(header: string | null | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/** Throws admin_disabled when there is no admin token, unauthorized when `given` is not it. */
export async function requireAdminToken(given: string | null, adminToken: string | null): Promise<void> {
  if (adminToken === null) throw new DomainError("admin_disabled");
  if (!given || !(await tokensEqual(given, adminToken))) throw new DomainError("unauthorized");
}

/**
 * The reindex ping's credentials: throws unauthorized unless `given` is the cron token or the admin token.
 * Both are compared, in constant time, whichever matches.
 */
export async function requireCronOrAdminToken(
  given: string | null,
  cronToken: string | null,
  adminToken: string | null,
): Promise<void> {
  if (!given) throw new DomainError("unauthorized");
  const [cron, admin] = await Promise.all([
    cronToken !== null && tokensEqual(given, cronToken),
    adminToken !== null && tokensEqual(given, adminToken),
  ]);
  if (!cron && !admin) throw new DomainError("unauthorized");
}
