// Records every answered request: method, the matched route pattern (not the URL, whose path and query carry
// ids and queries), status, time, and the error it ended with, if any. What keeps the numbers is the app's
// metrics (src/services/metrics.ts), seen here only through RequestRecorder.

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "./env.js";

export interface RequestObservation {
  method: string;
  route: string;
  status: number;
  seconds: number;
  /** The error the request ended with, if any (hono's `c.error`, set when onError answered). */
  error: unknown;
}

export interface RequestRecorder {
  observeRequest(observation: RequestObservation): void;
}

export function recordMetrics(metrics: RequestRecorder): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    metrics.observeRequest({
      method: c.req.method,
      route: routePath(c),
      status: c.res.status,
      seconds: (performance.now() - started) / 1000,
      error: c.error,
    });
  };
}
