// GET /v1/search (team key): BM25 passages with highlighted snippets.

import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import type { SearchService } from "../services/search.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { searchAnswer, searchQuery, searchRequest } from "./schemas.js";

export function searchRoutes(search: SearchService, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/search",
      summary: "Search the team's passages",
      tags: ["Search"],
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      request: { query: searchQuery },
      responses: { 200: json(searchAnswer, "Hits, best first."), ...errors(400, 401, 500) },
    }),
    async (c) => c.json(await search.search(c.get("team"), searchRequest(c.req.valid("query"))), 200),
  );
  return app;
}
