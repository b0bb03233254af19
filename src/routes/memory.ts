// GET /v1/memory (team key): the working-memory block for an agent's prompt, ranked and cut to a budget.

import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import type { MemoryService } from "../services/memory.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { memoryAnswer, memoryInput, memoryRequest } from "./schemas.js";

export function memoryRoutes(memory: MemoryService, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/memory",
      summary: "The working-memory block for an agent, cut to a token budget",
      tags: ["Working memory"],
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      request: { query: memoryInput },
      responses: {
        200: json(memoryAnswer, "The included entries in rank order, the accounting and the rendered block."),
        ...errors(400, 401, 500),
      },
    }),
    async (c) => c.json(await memory.workingMemory(c.get("team"), memoryRequest(c.req.valid("query"))), 200),
  );
  return app;
}
