// GET /metrics (MEMORIA_METRICS_TOKEN or the admin token): Prometheus text exposition, content-free
// (src/services/metrics.ts says what is in it and why no label can carry content).

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import type { Metrics } from "../services/metrics.js";
import { errors } from "./responses.js";
import { router } from "./router.js";

export function metricsRoutes(metrics: Metrics, auth: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/metrics",
      summary: "Prometheus metrics",
      tags: ["Metrics"],
      description: "Authenticated by the admin token, or by MEMORIA_METRICS_TOKEN when it is set.",
      security: [{ adminToken: [] }],
      middleware: [auth] as const,
      responses: {
        200: {
          content: { "text/plain": { schema: z.string() } },
          description: "Prometheus text exposition (version 0.0.4).",
        },
        ...errors(401, 403, 429),
      },
    }),
    async (c) => {
      const { contentType, text } = await metrics.scrape();
      return c.text(text, 200, { "content-type": contentType });
    },
  );
  return app;
}
