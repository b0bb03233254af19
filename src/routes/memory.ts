// GET /v1/memory (team key): the working-memory block for an agent's prompt, ranked and cut to a budget.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type WorkingMemory, workingMemory } from "../entries/working-memory.js";
import type { AppEnv } from "../http/env.js";
import type { LiveIndexes } from "../live/indexes.js";
import { DEFAULT_BUDGET, MAX_BUDGET } from "../memory/constants.js";
import type { TeamKey } from "../seal/team-key.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { intParam, labelText, matchText } from "./schemas.js";

export const memoryInput = z.object({
  q: matchText.optional().describe("What the agent is working on; ranks matching entries higher."),
  project: labelText.optional().describe("A project to boost (never a filter)."),
  budget: intParam(1, MAX_BUDGET)
    .optional()
    .describe(`Tokens the block may cost, 1–${MAX_BUDGET}; default ${DEFAULT_BUDGET}.`),
});
export type MemoryInput = z.infer<typeof memoryInput>;

export const memoryAnswer = z
  .object({
    query: z.string().nullable(),
    project: z.string().nullable(),
    budget: z.number().int(),
    candidates: z.number().int(),
    included: z.number().int(),
    skipped: z.number().int(),
    estimatedTokens: z.number().int(),
    items: z.array(
      z.object({
        id: z.string(),
        rank: z.number().int(),
        score: z.number(),
        tokens: z.number().int(),
        line: z.string(),
      }),
    ),
    text: z.string(),
  })
  .openapi("WorkingMemory");

/** The block for validated input; a blank `q` is the same as none. */
export function answerMemory(indexes: LiveIndexes, key: TeamKey, input: MemoryInput): Promise<WorkingMemory> {
  return workingMemory(indexes, key, {
    query: input.q != null && input.q.trim() !== "" ? input.q : null,
    project: input.project ?? null,
    budget: input.budget ?? DEFAULT_BUDGET,
  });
}

export function memoryRoutes(indexes: LiveIndexes, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/memory",
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      request: { query: memoryInput },
      responses: {
        200: json(memoryAnswer, "The included entries in rank order, the accounting and the rendered block."),
        ...errors(400, 401, 500),
      },
    }),
    async (c) => c.json(await answerMemory(indexes, c.get("team"), c.req.valid("query")), 200),
  );
  return app;
}
