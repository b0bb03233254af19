// Who a team-key request acts as, for the audit trail: the key that authenticated it (teamAuth set it).

import type { Context } from "hono";
import type { Actor } from "../audit.js";
import type { AppEnv } from "./env.js";

export function keyActor(c: Context<AppEnv>): Actor {
  return { kind: "key", id: c.get("key").keyId };
}
