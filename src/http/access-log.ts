// One log line per request: method, the matched route pattern (not the URL, whose query string is team
// content), status, time and request id.
//
// The line is written after the answer, not before it: the entry's log goes to standard output, which Node
// writes synchronously when it is a pipe or a file (a journal, a container's log, the bench's reader), and
// the middleware runs before the answer reaches the socket. Measured over loopback (200 two-word searches
// asked once each at 20k passages, CPU profile of the server, load ~10): the write was ~0.25 ms a request,
// on every request's critical path (docs/decisions/0069-short-questions-over-http.md). Its fields are read
// when the answer is made; only the write waits for the check phase, after the answer's own write.

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Logger } from "../logger.js";
import type { AppEnv } from "./env.js";

/**
 * After the answer where the runtime has a check phase (Node, Deno); at once where it has none (a Cloudflare
 * Worker without Node's compatibility layer, whose console is not a synchronous pipe write anyway).
 */
const afterTheAnswer: (write: () => void) => void =
  typeof globalThis.setImmediate === "function" ? (write) => void setImmediate(write) : (write) => write();

export function accessLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const fields = {
      requestId: c.get("requestId"),
      method: c.req.method,
      route: routePath(c),
      status: c.res.status,
      ms: Math.round(performance.now() - started),
    };
    afterTheAnswer(() => logger.info("request", fields));
  };
}
