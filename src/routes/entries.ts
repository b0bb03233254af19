// Memory entries (team key): short decision, incident and learning records, sealed at rest and indexed for
// working memory before the answer.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { acceptOnly } from "../http/accept.js";
import { keyActor } from "../http/actor.js";
import type { AppEnv } from "../http/env.js";
import type { EntryService } from "../services/entries.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import {
  entryAnswer,
  entryBody,
  entryIdInput,
  entryInput,
  entrySchema,
  idempotencyHeaders,
  intParam,
  labelText,
  unreadableRows,
} from "./schemas.js";

const entryListAnswer = z.object({
  entries: z.array(entrySchema),
  unreadable: unreadableRows,
  nextCursor: z.string().nullable(),
});
const security = [{ teamKey: [] }];

export function entryRoutes(
  entries: EntryService,
  team: MiddlewareHandler<AppEnv>,
  idempotent: MiddlewareHandler<AppEnv>,
) {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/entries",
      summary: "Remember an entry",
      tags: ["Entries"],
      security,
      middleware: [team, acceptOnly(["application/json"]), idempotent] as const,
      request: {
        headers: idempotencyHeaders,
        body: { content: { "application/json": { schema: entryBody } }, required: true },
      },
      responses: {
        201: json(entryAnswer, "Stored and indexed."),
        ...errors(400, 401, 403, 409, 413, 415, 422),
      },
    }),
    async (c) => {
      const entry = await entries.create(c.get("team"), entryInput(c.req.valid("json")), { by: keyActor(c) });
      return c.json({ entry }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/entries",
      summary: "List the team's entries, newest first",
      tags: ["Entries"],
      security,
      middleware: [team] as const,
      request: {
        query: z.object({
          project: labelText.optional(),
          limit: intParam(1, 200).optional(),
          cursor: z.string().optional(),
        }),
      },
      responses: { 200: json(entryListAnswer, "Newest first."), ...errors(400, 401, 500) },
    }),
    async (c) => {
      const { project, limit, cursor } = c.req.valid("query");
      const page = await entries.list(c.get("team"), {
        project: project ?? null,
        limit: limit ?? 50,
        after: cursor ? decodeCursor(cursor) : null,
      });
      return c.json(
        {
          entries: page.entries,
          unreadable: page.unreadable,
          nextCursor: page.next ? encodeCursor(page.next) : null,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/entries/{id}",
      summary: "Read an entry",
      tags: ["Entries"],
      security,
      middleware: [team] as const,
      request: { params: entryIdInput },
      responses: { 200: json(entryAnswer, "The entry."), ...errors(401, 404, 500) },
    }),
    async (c) => c.json({ entry: await entries.get(c.get("team"), c.req.valid("param").id) }, 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/entries/{id}",
      summary: "Forget an entry",
      tags: ["Entries"],
      security,
      middleware: [team] as const,
      request: { params: entryIdInput },
      responses: { 204: { description: "Deleted; gone from working memory." }, ...errors(401, 403, 404) },
    }),
    async (c) => {
      await entries.delete(c.get("team"), c.req.valid("param").id, keyActor(c));
      return c.body(null, 204);
    },
  );

  return app;
}
