// Liveness and readiness: the process is up; storage answers.

import { createRoute, z } from "@hono/zod-openapi";
import type { HealthService } from "../services/health.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";

export const okSchema = z.object({ ok: z.literal(true) });

export function healthRoutes(health: HealthService) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      summary: "Liveness: the process answers",
      tags: ["Service"],
      responses: { 200: json(okSchema, "The process is up.") },
    }),
    (c) => c.json({ ok: true as const }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/readyz",
      summary: "Readiness: storage answers",
      tags: ["Service"],
      responses: { 200: json(okSchema, "Storage answers."), ...errors(503) },
    }),
    async (c) => {
      await health.ready();
      return c.json({ ok: true as const }, 200);
    },
  );
  return app;
}
