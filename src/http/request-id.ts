// Every response carries `x-request-id`, equal to the envelope's requestId on errors. A caller's own id is
// kept when it is short and plain, so one request can be traced across services; anything else is replaced.

import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.js";

const acceptable = /^[A-Za-z0-9._-]{1,128}$/;

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const given = c.req.header("x-request-id");
    const id = given && acceptable.test(given) ? given : crypto.randomUUID();
    c.set("requestId", id);
    c.header("x-request-id", id);
    await next();
    c.res.headers.set("x-request-id", id);
  };
}
