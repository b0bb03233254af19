// What a key may do. Three scopes, each holding the one below it: `read` (search, working memory, reading
// documents and entries, stats), `write` (read, plus adding and replacing documents and remembering entries),
// `admin` (write, plus deleting, forgetting, export, import, sources, keys and the audit trail). An agent handed a `read` key
// changes nothing; one handed a `write` key adds and replaces (a replaced document's content is gone), but
// cannot be talked into deleting, forgetting or exporting what the team holds. Keys made before scopes existed are
// `admin`: they could do everything, and still can. Which scope each route, MCP tool and page action needs is
// one table per transport (http/scopes.ts, routes/mcp-server.ts, page/scopes.ts), never a check by hand.

import { DomainError } from "./errors.js";

export const scopes = ["read", "write", "admin"] as const;
export type Scope = (typeof scopes)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === "string" && (scopes as readonly string[]).includes(value);
}

/** Whether a key of scope `held` may do what needs `needed`. */
export function allows(held: Scope, needed: Scope): boolean {
  return scopes.indexOf(held) >= scopes.indexOf(needed);
}

/** The 403 for a key whose scope is below what was asked; it names both, never the key. */
export function requireScope(held: Scope, needed: Scope, what: string): void {
  if (!allows(held, needed)) {
    throw new DomainError(
      "forbidden",
      `${what} needs a key with the ${needed} scope; this key's scope is ${held}.`,
    );
  }
}
