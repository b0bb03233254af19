// Apps the team's members connected through OAuth (team key with the admin scope): the approvals, each a member
// letting one client act for them at a scope, and revoking one, which ends every token it issued at once.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { DomainError } from "../errors.js";
import { keyActor } from "../http/actor.js";
import type { AppEnv } from "../http/env.js";
import { oauthScopes } from "../oauth-scope.js";
import type { OAuthService } from "../services/oauth.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { idParam } from "./schemas.js";

export const oauthClientSchema = z
  .object({
    id: z.string().describe("The approval's id: revoke it with DELETE /v1/oauth/clients/{id}."),
    clientId: z
      .string()
      .nullable()
      .describe(
        "The client's id: its metadata document's URL, or the id it registered for. Null if unreadable.",
      ),
    name: z.string().nullable().describe("The client's name as it gave it; sealed at rest."),
    redirectHost: z.string().nullable().describe("Where the client sends people back to after sign-in."),
    memberId: z.string().describe("The member who approved it; it acts as them."),
    scope: z.enum(oauthScopes).describe("What the member approved; their role now caps it further."),
    approvedAt: z.string(),
    lastUsedAt: z.string().nullable().describe("Its last sign-in or refresh (access tokens last an hour)."),
  })
  .openapi("OAuthClient");

const security = [{ teamKey: [] }];

export function oauthClientRoutes(oauth: OAuthService, team: MiddlewareHandler<AppEnv>) {
  const app = router();

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/oauth/clients",
      summary: "List the apps members connected",
      tags: ["OAuth"],
      security,
      middleware: [team] as const,
      responses: {
        200: json(
          z.object({ clients: z.array(oauthClientSchema) }),
          "Live approvals of live members, oldest first.",
        ),
        ...errors(401, 403),
      },
    }),
    async (c) => {
      const approvals = await oauth.approvals(c.get("team"));
      return c.json(
        { clients: approvals.map((a) => ({ ...a, scope: a.scope as (typeof oauthScopes)[number] })) },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/oauth/clients/{id}",
      summary: "Disconnect an app",
      tags: ["OAuth"],
      security,
      middleware: [team] as const,
      request: { params: z.object({ id: idParam }) },
      responses: {
        204: { description: "Revoked: its access and refresh tokens stop working at once." },
        ...errors(401, 403, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!(await oauth.revokeApproval(c.get("team"), id, keyActor(c))))
        throw new DomainError("not_found", "No connected app has that id.");
      return c.body(null, 204);
    },
  );

  return app;
}
