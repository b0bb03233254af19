// Who a team-key request acts as, for the audit trail: the key that authenticated it (teamAuth set it), or the
// member's approval an OAuth client's token acts under (mcp-auth.ts).

import type { Context } from "hono";
import type { Actor } from "../audit.js";
import type { AppEnv } from "./env.js";

export function keyActor(c: Context<AppEnv>): Actor {
  const grant = c.get("oauthGrant");
  if (grant !== undefined) return { kind: "oauth", id: grant };
  return { kind: "key", id: c.get("key").keyId };
}
