// The scope each team-key route needs (src/scope.ts says what the scopes are), as Hono names the route:
// method and path pattern. routeScope looks the route up here after the key authenticated and its request
// was counted under its rate limit (a refused request counts too); a route missing from the table needs
// `admin`, so a route added without a line here is closed to every key but an admin
// one, never open to all. test/http/scopes.test.ts fails on a team route missing here, and
// test/routes/api-doc.test.ts on docs/api.md naming another scope than this table.

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { requireScope, type Scope } from "../scope.js";
import type { AppEnv } from "./env.js";

export const ROUTE_SCOPES: Readonly<Record<string, Scope>> = {
  "GET /v1/search": "read",
  "GET /v1/memory": "read",
  "GET /v1/documents": "read",
  "GET /v1/documents/:id": "read",
  "GET /v1/entries": "read",
  "GET /v1/entries/:id": "read",
  "GET /v1/stats": "read",
  // Each tool needs its own scope (routes/mcp-server.ts); any live key may speak the protocol.
  "POST /mcp": "read",

  "POST /v1/documents": "write",
  "POST /v1/documents/batch": "write",
  "PUT /v1/documents/:id": "write",
  "POST /v1/entries": "write",

  "DELETE /v1/documents/:id": "admin",
  "DELETE /v1/entries/:id": "admin",
  "GET /v1/export": "admin",
  "POST /v1/import": "admin",
  "GET /v1/sources/notion": "admin",
  "PUT /v1/sources/notion": "admin",
  "DELETE /v1/sources/notion": "admin",
  "GET /v1/sources/webhook": "admin",
  "PUT /v1/sources/webhook": "admin",
  "DELETE /v1/sources/webhook": "admin",
  "GET /v1/keys": "admin",
  "POST /v1/keys": "admin",
  "DELETE /v1/keys/:keyId": "admin",
  "GET /v1/audit": "admin",
  "GET /v1/members": "admin",
  "POST /v1/invites": "admin",
  "PATCH /v1/members/:memberId": "admin",
  "DELETE /v1/members/:memberId": "admin",
  "GET /v1/oauth/clients": "admin",
  "DELETE /v1/oauth/clients/:id": "admin",
};

/** What a team route needs; `admin` for one the table does not name. HEAD is answered by the GET route. */
export function scopeOfRoute(method: string, routePath: string): Scope {
  return ROUTE_SCOPES[`${method === "HEAD" ? "GET" : method} ${routePath}`] ?? "admin";
}

/**
 * After teamAuth: 403 `forbidden` for a key whose scope is below the route's, before the route validates or
 * reads its body. Run in the route's own middleware slot, so `routePath` is the route's pattern.
 */
export function routeScope(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const pattern = routePath(c);
    requireScope(c.get("key").scope, scopeOfRoute(c.req.method, pattern), `${c.req.method} ${pattern}`);
    await next();
  };
}
