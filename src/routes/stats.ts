// GET /v1/stats (team key): counts from storage and the index's state, without starting a build.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import type { StatsService } from "../services/stats.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";

export const statsAnswer = z.object({
  documents: z.number().int(),
  chunks: z.number().int(),
  entries: z.number().int(),
  unreadable: z
    .object({ documents: z.number().int(), entries: z.number().int() })
    .nullable()
    .describe(
      "Documents and entries the index left out because they did not open, as of its last read of " +
        "storage; null while the index is cold.",
    ),
  index: z.object({
    state: z.enum(["cold", "building", "ready"]),
    appliedSeq: z.number().int().nullable(),
    builtAt: z.string().nullable(),
    buildMs: z.number().nullable(),
    source: z
      .enum(["snapshot", "rows"])
      .nullable()
      .describe(
        "How the loaded index was made: restored from the team's sealed snapshot, or built from its rows; " +
          "null unless ready.",
      ),
    loadMs: z
      .number()
      .nullable()
      .describe(
        "Milliseconds from the first read of storage to searchable, for the loaded index; null unless ready.",
      ),
    memoryBytes: z
      .number()
      .int()
      .nullable()
      .describe(
        "The team's indexes' estimated bytes in memory, as of their last build or write; null unless ready.",
      ),
  }),
});

export function statsRoutes(stats: StatsService, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/stats",
      summary: "The team's counts and index state",
      tags: ["Stats"],
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      responses: { 200: json(statsAnswer, "Storage counts and index state."), ...errors(401) },
    }),
    async (c) => c.json(await stats.stats(c.get("team")), 200),
  );
  return app;
}
