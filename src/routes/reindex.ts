// POST /v1/reindex (cron token, or the admin token): bring this instance's teams level with storage and pull
// their note sources; answers when the work is done.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import type { AppEnv } from "../http/env.js";
import { describeIssues } from "../http/errors.js";
import { teamIdPattern } from "../ids.js";
import type { ReindexService } from "../services/reindex.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";

const reindexBody = z.object({
  teamId: z.string().regex(teamIdPattern, "must be a team id").optional(),
});

/** The optional body: nothing (as a cron sends) means every team loaded here. */
function parseBody(raw: string): z.infer<typeof reindexBody> {
  if (raw.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new DomainError("invalid_request", "Invalid request: the body is not JSON.");
  }
  const parsed = reindexBody.safeParse(json);
  if (!parsed.success) throw new DomainError("invalid_request", describeIssues(parsed.error.issues));
  // Named here rather than by zod, whose message would quote the unknown keys.
  if (Object.keys(json as object).some((k) => k !== "teamId")) {
    throw new DomainError("invalid_request", "Invalid request: the body may hold only teamId.");
  }
  return parsed.data;
}

export const reindexAnswer = z.object({
  teams: z.array(
    z.object({
      teamId: z.string(),
      // Absent for a team that was only pulled (it has a Notion token but no index on this instance).
      documents: z.number().int().optional(),
      chunks: z.number().int().optional(),
      entries: z.number().int().optional(),
      unreadable: z.object({ documents: z.number().int(), entries: z.number().int() }).optional(),
      appliedSeq: z.number().int().optional(),
      storedSeq: z.number().int().optional(),
      rebuilt: z.boolean().optional(),
      synced: z.number().int(),
      /**
       * The error code when the team could not be reindexed, or its Notion pull failed (`notion_unauthorized`,
       * `notion_unavailable`, `notion_failed`: services/reindex.ts); the other teams still were.
       */
      error: z.string().optional(),
    }),
  ),
  tookMs: z.number(),
});

export function reindexRoutes(reindex: ReindexService, cron: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/reindex",
      summary: "Catch indexes up with storage and pull Notion edits",
      tags: ["Reindex"],
      security: [{ cronToken: [] }],
      middleware: [cron] as const,
      description:
        'Optional JSON body `{"teamId"}`: reindex that team (building its index here if need be); without it, every team loaded on this instance.',
      responses: {
        200: json(reindexAnswer, "What each team held, what storage held, and what was done."),
        ...errors(400, 401, 404, 500),
      },
    }),
    async (c) => {
      const started = performance.now();
      const body = parseBody(await c.req.text());
      const teams = await reindex.run(body.teamId ?? null);
      return c.json({ teams, tookMs: Math.round(performance.now() - started) }, 200);
    },
  );
  return app;
}
