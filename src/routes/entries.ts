// Memory entries (team key): short decision, incident and learning records, sealed at rest and indexed for
// working memory before the answer.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { EntryInput, EntryService } from "../entries/service.js";
import type { AppEnv } from "../http/env.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { acceptOnly } from "./documents.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { codePoints, idParam, intParam, labelText, nameText } from "./schemas.js";

/** The longest impact: one sentence of consequence, which a working-memory line shows in full. */
export const MAX_IMPACT_CHARS = 1024;
/** The longest body: the detail behind an entry, searched but never rendered into a line. */
export const MAX_ENTRY_BODY_CHARS = 65_536;

export const entrySchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    project: z.string().nullable(),
    type: z.string().nullable(),
    title: z.string(),
    impact: z.string().nullable(),
    body: z.string().nullable(),
  })
  .openapi("Entry");

// Blank impact and body are the same as none: a line never ends in a dangling dash.
export const entryBody = z.object({
  title: nameText(512).describe("What was decided, broken or learned; 1–512 characters."),
  impact: codePoints(0, MAX_IMPACT_CHARS)
    .nullish()
    .describe("What it changes, shown after the title in working memory."),
  project: labelText.nullish().describe("The project it belongs to: [A-Za-z0-9._-]{1,64}."),
  type: labelText
    .nullish()
    .describe("Its kind, such as decision, incident or learning: [A-Za-z0-9._-]{1,64}."),
  body: codePoints(0, MAX_ENTRY_BODY_CHARS).nullish().describe("Longer detail; searched, not rendered."),
});
export type EntryBody = z.infer<typeof entryBody>;

export const entryIdInput = z.object({ id: idParam.describe("The entry's id.") });

export function entryInput(body: EntryBody): EntryInput {
  return {
    title: body.title,
    impact: body.impact?.trim() ? body.impact : null,
    project: body.project ?? null,
    type: body.type ?? null,
    body: body.body?.trim() ? body.body : null,
  };
}

export const entryAnswer = z.object({ entry: entrySchema });
const entryListAnswer = z.object({ entries: z.array(entrySchema), nextCursor: z.string().nullable() });
const security = [{ teamKey: [] }];

export function entryRoutes(entries: EntryService, team: MiddlewareHandler<AppEnv>) {
  const app = router();

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/entries",
      security,
      middleware: [team, acceptOnly(["application/json"])] as const,
      request: { body: { content: { "application/json": { schema: entryBody } }, required: true } },
      responses: { 201: json(entryAnswer, "Stored and indexed."), ...errors(400, 401, 413, 415) },
    }),
    async (c) => {
      const entry = await entries.create(c.get("team"), entryInput(c.req.valid("json")));
      return c.json({ entry }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/entries",
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
      return c.json({ entries: page.entries, nextCursor: page.next ? encodeCursor(page.next) : null }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/entries/{id}",
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
      security,
      middleware: [team] as const,
      request: { params: entryIdInput },
      responses: { 204: { description: "Deleted; gone from working memory." }, ...errors(401, 404) },
    }),
    async (c) => {
      await entries.delete(c.get("team"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  );

  return app;
}
