// GET /v1/search (team key): BM25 passages with highlighted snippets.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import type { LiveIndexes } from "../live/indexes.js";
import type { TeamKey } from "../seal/team-key.js";
import { searchPassages } from "../search/service.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { hitSchema, intParam, queryText } from "./schemas.js";

/** Hits per answer when the caller names no limit. */
export const DEFAULT_SEARCH_LIMIT = 20;

export const searchQuery = z.object({
  q: queryText.describe("What to look for, in plain words; at most 1024 bytes."),
  limit: intParam(1, 100).optional().describe(`Hits to return, 1–100; default ${DEFAULT_SEARCH_LIMIT}.`),
});
export type SearchQuery = z.infer<typeof searchQuery>;
export const searchAnswer = z.object({
  query: z.string(),
  hits: z.array(hitSchema),
  corpus: z.object({ documents: z.number().int(), chunks: z.number().int() }),
  tookMs: z.number(),
});

export async function answerSearch(
  indexes: LiveIndexes,
  key: TeamKey,
  input: SearchQuery,
): Promise<z.infer<typeof searchAnswer>> {
  const started = performance.now();
  const result = await searchPassages(indexes, key, input.q, input.limit ?? DEFAULT_SEARCH_LIMIT);
  const tookMs = Math.round((performance.now() - started) * 100) / 100;
  return { query: input.q, hits: result.hits, corpus: result.corpus, tookMs };
}

export function searchRoutes(indexes: LiveIndexes, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/search",
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      request: { query: searchQuery },
      responses: { 200: json(searchAnswer, "Hits, best first."), ...errors(400, 401, 500) },
    }),
    async (c) => c.json(await answerSearch(indexes, c.get("team"), c.req.valid("query")), 200),
  );
  return app;
}
