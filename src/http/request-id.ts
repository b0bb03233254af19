// Every response carries `x-request-id`, equal to the envelope's requestId on errors. A caller's own id is
// kept when it is short and plain, so one request can be traced across services (the Cloudflare Worker
// passes its id into the container); anything else is replaced.

import type { MiddlewareHandler } from "hono";

/** The variable this middleware sets, for the app's and the Worker's environments alike. */
export interface RequestIdEnv {
  Variables: {
    requestId: string;
    /**
     * What a 401 names in `WWW-Authenticate` when it is more than the bare scheme: /mcp's points OAuth clients
     * at its protected resource metadata (http/mcp-auth.ts).
     */
    bearerChallenge?: string;
  };
}

const acceptable = /^[A-Za-z0-9._-]{1,128}$/;
const HEADER = "x-request-id";

export function requestId(): MiddlewareHandler<RequestIdEnv> {
  return async (c, next) => {
    const given = c.req.header(HEADER);
    const id = given && acceptable.test(given) ? given : crypto.randomUUID();
    c.set("requestId", id);
    c.header(HEADER, id);
    await next();
    // Most answers carry it already (c.json takes the header set above; a container answer forwarded by the
    // Worker echoes it). An answer whose headers are immutable (a fetch response in workerd) is copied by
    // c.header before it is set.
    if (c.res.headers.get(HEADER) === id) return;
    try {
      c.res.headers.set(HEADER, id);
    } catch {
      c.header(HEADER, id);
    }
  };
}
