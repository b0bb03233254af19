// One log line per request: method, the matched route pattern (not the URL, whose query string is team
// content), status, time and request id.

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Logger } from "../logger.js";
import type { AppEnv } from "./env.js";

export function accessLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logger.info("request", {
      requestId: c.get("requestId"),
      method: c.req.method,
      route: routePath(c),
      status: c.res.status,
      ms: Math.round(performance.now() - started),
    });
  };
}
