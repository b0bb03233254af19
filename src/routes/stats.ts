// GET /v1/stats (team key): counts from storage and the index's state, without starting a build.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import type { LiveIndexes } from "../live/indexes.js";
import type { Storage } from "../store/storage.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";

export const statsAnswer = z.object({
  documents: z.number().int(),
  chunks: z.number().int(),
  entries: z.number().int(),
  index: z.object({
    state: z.enum(["cold", "building", "ready"]),
    appliedSeq: z.number().int().nullable(),
    builtAt: z.string().nullable(),
    buildMs: z.number().nullable(),
  }),
});

export function statsRoutes(storage: Storage, indexes: LiveIndexes, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/stats",
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      responses: { 200: json(statsAnswer, "Storage counts and index state."), ...errors(401) },
    }),
    async (c) => {
      const teamId = c.get("team").teamId;
      const [counts, entries] = await Promise.all([
        storage.documents.counts(teamId),
        storage.entries.count(teamId),
      ]);
      return c.json({ ...counts, entries, index: indexes.status(teamId) }, 200);
    },
  );
  return app;
}
