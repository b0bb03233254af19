// Which container instance a request belongs to, or that the Worker answers it itself (a malformed key, an
// unknown path) without waking one. Keys and the Authorization header are read by the app's own functions,
// the path by hono's getPath as the app's router reads it.

import { parse as parseCookies } from "hono/utils/cookie";
import { getPath } from "hono/utils/url";
import { teamIdOfApiKey } from "../../api-key.js";
import { bearerToken } from "../../http/bearer.js";
import { teamIdPattern } from "../../ids.js";
import { teamIdOfOAuthToken } from "../../oauth-token.js";

/** The one instance that serves admin, health and the API description: it holds no team's index. */
export const ADMIN_INSTANCE = "admin";

export type Route =
  /**
   * A team's own instance: the id came from the key's `mem_<teamId>_` prefix, the webhook path, or the page's
   * session cookie `<teamId>.<secret>` (docs/decisions/0020-page-sessions.md).
   */
  | { kind: "team"; teamId: string; via: "key" | "webhook" | "cookie" }
  /** `/v1/teams…`: the fixed instance, after the Worker checked the admin token. */
  | { kind: "admin" }
  /** Health, the OpenAPI document and its page, the icon, the page signed out: the fixed instance, no credentials. */
  | { kind: "service" }
  /** `POST /v1/reindex`: the cron token, then one team's instance or every active one. */
  | { kind: "reindex" }
  /** Answered by the Worker: nothing wakes. */
  | { kind: "reject"; code: "unauthorized" | "not_found" };

/**
 * The page's session cookie (src/page/session-cookie.ts), `<teamId>.<secret>`; only the team id is read here.
 * Its name over HTTPS has the `__Host-` prefix, and is read first, as the page reads it.
 */
const SESSION_COOKIES = ["__Host-memoria_session", "memoria_session"] as const;

/**
 * The team id of the session cookie, read with the parser the container's getCookie uses (hono's), so the
 * two can never pick different cookies out of one header (quoted, escaped or repeated values).
 */
function sessionTeamId(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const name of SESSION_COOKIES) {
    const value = parseCookies(cookieHeader, name)[name];
    if (value !== undefined) return value.split(".")[0] ?? null;
  }
  return null;
}

// The page's icon is the same for everyone and needs no session: the fixed instance answers it. So do the
// OAuth metadata and the endpoints MCP clients call with no key: registration touches nothing stored, and
// codes and tokens are rows any instance reads (a team's instance checks its access tokens at /mcp).
const servicePaths = new Set([
  "/healthz",
  "/readyz",
  "/openapi.json",
  "/docs",
  "/favicon.ico",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/oauth/register",
  "/oauth/token",
  "/oauth/revoke",
]);
// Notion's webhook path ends in the team's secret URL token, which the team's instance checks.
const webhookPath = /^\/v1\/webhooks\/(?:notion\/([^/]+)\/[^/]+|ingest\/([^/]+))$/;

/**
 * Where a request goes. Only a key's shape is read here: the container still authenticates the key
 * against storage.
 */
export function classify(request: Request): Route {
  const path = getPath(request);
  // The API viewer's own files (its start-up script and swagger-ui-dist's assets) come from the same instance.
  if (servicePaths.has(path) || path.startsWith("/docs/")) return { kind: "service" };
  if (path === "/v1/teams" || path.startsWith("/v1/teams/")) return { kind: "admin" };
  if (path === "/v1/reindex") {
    return request.method === "POST" ? { kind: "reindex" } : { kind: "reject", code: "not_found" };
  }
  const hook = webhookPath.exec(path);
  if (hook) {
    const notion = hook[1] !== undefined;
    const teamId = hook[1] ?? hook[2] ?? "";
    // Not a team id, so not a team: the app answers an unknown team's delivery the same way (Notion's 404).
    if (teamIdPattern.test(teamId)) return { kind: "team", teamId, via: "webhook" };
    return { kind: "reject", code: notion ? "not_found" : "unauthorized" };
  }
  if (path.startsWith("/v1/webhooks/")) return { kind: "reject", code: "not_found" };
  if (path.startsWith("/v1/") || path === "/mcp") {
    const key = bearerToken(request.headers.get("authorization"));
    // /mcp also takes an OAuth access token, which names its team as a key does.
    const teamId =
      key === null
        ? null
        : (teamIdOfApiKey(key) ?? (path === "/mcp" ? teamIdOfOAuthToken("access", key) : null));
    return teamId ? { kind: "team", teamId, via: "key" } : { kind: "reject", code: "unauthorized" };
  }
  // The authorization endpoint shows the consent page to a signed-in person, as the page does.
  if (path === "/" || path.startsWith("/page/") || path === "/oauth/authorize") {
    // Signed in: the team's instance, which checks the session. Signed out (or signing in, which any
    // instance can do: the session is a row in storage): the fixed one.
    const teamId = sessionTeamId(request.headers.get("cookie"));
    return teamId && teamIdPattern.test(teamId)
      ? { kind: "team", teamId, via: "cookie" }
      : { kind: "service" };
  }
  return { kind: "reject", code: "not_found" };
}
