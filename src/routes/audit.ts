// The team's audit trail (admin scope): who did each change, newest first, a page at a time. Never content,
// titles or queries: an event names its target by id alone.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { actorKinds, auditActions, targetKinds } from "../audit.js";
import type { AppEnv } from "../http/env.js";
import type { AuditTrail } from "../services/audit.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { intParam, unreadableRows } from "./schemas.js";

export const auditEventSchema = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: z.object({
      kind: z
        .enum(actorKinds)
        .describe(
          "A member (a person on the page), a team key, or the instance's admin token (its routes make keys).",
        ),
      id: z.string(),
      name: z
        .string()
        .nullable()
        .describe("The member's or key's name now; null for an unnamed key and the admin token."),
    }),
    action: z.enum(auditActions),
    target: z
      .object({ kind: z.enum(targetKinds), id: z.string() })
      .optional()
      .describe("The row the action changed, by id; absent for export and import."),
  })
  .openapi("AuditEvent");

export const auditAnswer = z.object({
  events: z.array(auditEventSchema),
  unreadable: unreadableRows,
  nextCursor: z.string().nullable(),
});

export function auditRoutes(audit: AuditTrail, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/audit",
      summary: "Read the audit trail, newest first",
      tags: ["Audit"],
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      request: { query: z.object({ limit: intParam(1, 200).optional(), cursor: z.string().optional() }) },
      responses: { 200: json(auditAnswer, "Newest first."), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { limit, cursor } = c.req.valid("query");
      const from = cursor ? decodeCursor(cursor) : null;
      const page = await audit.list(
        c.get("team"),
        limit ?? 50,
        from ? { at: from.createdAt, id: from.id } : null,
      );
      return c.json(
        {
          events: page.events,
          unreadable: page.unreadable,
          nextCursor: page.next ? encodeCursor({ createdAt: page.next.at, id: page.next.id }) : null,
        },
        200,
      );
    },
  );
  return app;
}
