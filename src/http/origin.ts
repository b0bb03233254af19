// The Origin check that protects /mcp against DNS rebinding (the MCP transport spec: servers MUST validate
// Origin). A page on evil.example whose name an attacker re-points at 127.0.0.1 makes the browser send
// `Host: evil.example` and `Origin: http://evil.example`: matching the two proves nothing, since the attacker
// chose both. So an Origin is allowed only when it is
//   - one of MEMORIA_ALLOWED_ORIGINS (a browser app that should reach memoria), or
//   - the server's own origin on a loopback name (localhost, 127.0.0.0/8, [::1]): a name a rebinding
//     attacker cannot make a browser use for their page.
// A request without Origin is allowed: browsers send it on every POST, so its absence means a client that is
// not a browser page (an agent, a CLI, another server), which DNS rebinding cannot drive.
//
// Not the SDK transport's own check (`enableDnsRebindingProtection` with `allowedHosts`/`allowedOrigins`):
// it compares with fixed lists, so the port and the names a server is reached by would have to be known
// ahead, and it answers in JSON-RPC's error form rather than memoria's envelope.

import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.js";
import { errorResponse } from "./errors.js";

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** The origin a browser's Origin header names, normalised as URL does (lower case, no default port). */
function originOf(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
}

/** Allows a request without Origin, with an allowed Origin, or with its own loopback origin; else 403. */
export function checkOrigin(allowedOrigins: readonly string[]): MiddlewareHandler<AppEnv> {
  const allowed = new Set(allowedOrigins);
  return async (c, next) => {
    const header = c.req.header("origin");
    if (header === undefined) return next();
    const origin = originOf(header);
    const own = new URL(c.req.url);
    if (origin !== null && (allowed.has(origin) || (origin === own.origin && isLoopbackHost(own.hostname))))
      return next();
    return errorResponse(
      c,
      "forbidden",
      "This Origin may not call /mcp; MEMORIA_ALLOWED_ORIGINS lists the browser origins that may.",
    );
  };
}
