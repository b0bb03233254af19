// The scope each signed-in page action needs (src/scope.ts), as Hono names the route: the page's one table,
// read by its sign-in check (session-middleware.tsx). The same powers as the JSON routes: reading is `read`,
// adding notes and remembering `write`, deleting, forgetting, exporting, members and the audit trail `admin`. A page route missing
// from the table needs `admin` (test/page/scopes.test.ts fails on one).

import type { Scope } from "../scope.js";

export const PAGE_SCOPES: Readonly<Record<string, Scope>> = {
  "GET /page/documents/:id": "read",
  "GET /page/memory": "read",
  "POST /page/sign-out": "read",
  // Any member makes keys up to their role's scope; a key session needs admin (checked by the route).
  "GET /page/keys": "read",
  "POST /page/keys": "read",
  "POST /page/keys/:id/revoke": "read",
  // A member's own account and passkeys; a key session is told passkeys belong to people.
  "GET /page/account": "read",
  "POST /page/passkeys/options": "read",
  "POST /page/passkeys": "read",
  "POST /page/passkeys/:id/remove": "read",
  // A member approves an app up to their role's scope; their own approvals are theirs to see and disconnect
  // (an owner sees and disconnects the team's; the routes check which).
  "POST /page/oauth/consent": "read",
  "GET /page/apps": "read",
  "POST /page/apps/:id/revoke": "read",

  "GET /page/notes": "write",
  "POST /page/notes": "write",
  "POST /page/entries": "write",

  "GET /page/documents/:id/delete": "admin",
  "POST /page/documents/:id/delete": "admin",
  "POST /page/entries/:id/forget": "admin",
  "GET /page/export": "admin",
  "GET /page/audit": "admin",
  "GET /page/members": "admin",
  "POST /page/invites": "admin",
  "POST /page/members/:id/role": "admin",
  "POST /page/members/:id/remove": "admin",
};

/** What a signed-in page route needs; `admin` for one the table does not name. HEAD is the GET route. */
export function scopeOfPage(method: string, routePath: string): Scope {
  return PAGE_SCOPES[`${method === "HEAD" ? "GET" : method} ${routePath}`] ?? "admin";
}
