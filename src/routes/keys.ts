// A team's own keys (team key with the admin scope): make a named key of a scope, perhaps expiring, list
// every key the team has had, revoke one. The admin token's routes for keys stay in teams.ts.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { events } from "../audit.js";
import { keyActor } from "../http/actor.js";
import type { AppEnv } from "../http/env.js";
import { noStore } from "../http/no-store.js";
import { scopes } from "../scope.js";
import type { AuditTrail } from "../services/audit.js";
import type { TeamService } from "../services/teams.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { idParam, nameText } from "./schemas.js";

const scopeSchema = z
  .enum(scopes)
  .describe(
    "read: search, working memory, reading documents and entries, stats. write: read, plus adding and " +
      "replacing documents and remembering entries. admin: write, plus deleting, forgetting, export, " +
      "import, sources, keys and the audit trail.",
  );

export const createKeyBody = z.object({
  name: nameText(200).describe("What the key is for, shown in the key list; sealed at rest."),
  scope: scopeSchema,
  expiresAt: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("When the key stops working (ISO 8601, in the future); never when absent."),
});

export const createdKeyAnswer = z.object({
  keyId: z.string(),
  apiKey: z.string().describe("The key itself, shown this once: memoria keeps only its hash."),
});

export const teamKeySchema = z
  .object({
    keyId: z.string(),
    name: z.string().nullable().describe("Null for a key made without a name (a team's first key)."),
    scope: scopeSchema,
    owner: z.string().nullable().describe("The member who made the key; null for keys made by a key."),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable().describe("Exact to about a minute."),
    revokedAt: z.string().nullable(),
  })
  .openapi("TeamKey");

export const teamKeysAnswer = z.array(teamKeySchema);

const security = [{ teamKey: [] }];

export function keyRoutes(teams: TeamService, team: MiddlewareHandler<AppEnv>, audit: AuditTrail) {
  const app = router();
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/keys",
      summary: "Make a key with a scope",
      tags: ["Keys"],
      security,
      middleware: [team, noStore()] as const,
      request: { body: { content: { "application/json": { schema: createKeyBody } }, required: true } },
      responses: {
        201: json(createdKeyAnswer, "The new key; its secret is shown once."),
        ...errors(400, 401, 403),
      },
    }),
    async (c) => {
      // A key a member's key makes is the member's too, at most what the making key may do.
      const { owner, scope, keyId } = c.get("key");
      const made = await teams.makeKey(
        c.get("team"),
        c.req.valid("json"),
        owner === null ? null : { memberId: owner, scope },
        keyId,
      );
      await audit.record(c.get("team"), keyActor(c), events.keyMade(made.keyId));
      return c.json(made, 201);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/keys",
      summary: "List the team's keys",
      tags: ["Keys"],
      security,
      middleware: [team] as const,
      responses: {
        200: json(teamKeysAnswer, "Every key the team has had, oldest first; never a secret."),
        ...errors(401, 403),
      },
    }),
    async (c) => c.json(await teams.keysOf(c.get("team")), 200),
  );
  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/keys/{keyId}",
      summary: "Revoke a key",
      tags: ["Keys"],
      security,
      middleware: [team] as const,
      request: { params: z.object({ keyId: idParam }) },
      responses: {
        204: { description: "Revoked; the key stops working at once." },
        ...errors(401, 403, 404),
      },
    }),
    async (c) => {
      const { keyId } = c.req.valid("param");
      if (await teams.revokeOwnKey(c.get("team"), keyId)) {
        await audit.record(c.get("team"), keyActor(c), events.keyRevoked(keyId));
      }
      return c.body(null, 204);
    },
  );
  return app;
}
