// Teams and their API keys (admin token).

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { ADMIN_TOKEN_ACTOR, events } from "../audit.js";
import { DomainError } from "../errors.js";
import type { AppEnv } from "../http/env.js";
import { noStore } from "../http/no-store.js";
import { errorFields, type Logger } from "../logger.js";
import { scopes } from "../scope.js";
import type { TeamKey } from "../seal/team-key.js";
import type { AuditTrail } from "../services/audit.js";
import type { MemberService } from "../services/members.js";
import type { TeamService } from "../services/teams.js";
import { inviteOf } from "./members.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { idParam, nameText, teamSchema } from "./schemas.js";

export const createTeamBody = z.object({ name: nameText(200) });
export const createTeamAnswer = z.object({
  team: teamSchema,
  keyId: z.string(),
  apiKey: z.string(),
  invite: z
    .object({ url: z.string(), expiresAt: z.string() })
    .nullable()
    .describe(
      "A one-time link for the team's first owner to join the page as themselves, good for 24 hours; null " +
        "when storage refused it after the team was made (make one with the key at POST /v1/invites).",
    ),
});
export const teamsAnswer = z.object({
  teams: z.array(teamSchema),
  unreadable: z.number().int().describe("Teams whose key or name did not open; left out of `teams`."),
});
export const keysAnswer = z.object({
  keys: z.array(
    z.object({
      keyId: z.string(),
      scope: z.enum(scopes).describe("Keys made here are admin; a team makes others at POST /v1/keys."),
      createdAt: z.string(),
      revokedAt: z.string().nullable(),
    }),
  ),
});
export const createKeyAnswer = z.object({ keyId: z.string(), apiKey: z.string() });
const teamParams = z.object({ teamId: idParam });
const security = [{ adminToken: [] }];

/** The opened key of the team a route names, or 404 as the team's own routes answer. */
async function requireTeamKey(teams: TeamService, teamId: string): Promise<TeamKey> {
  const team = await teams.teamKey(teamId);
  if (!team) throw new DomainError("not_found", `No team ${teamId}.`);
  return team;
}

export function teamRoutes(
  teams: TeamService,
  admin: MiddlewareHandler<AppEnv>,
  audit: AuditTrail,
  members: MemberService,
  logger: Logger,
) {
  const app = router();
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/teams",
      summary: "Create a team, its first key and its first owner's invite",
      tags: ["Teams"],
      security,
      middleware: [admin, noStore()] as const,
      request: { body: { content: { "application/json": { schema: createTeamBody } }, required: true } },
      responses: { 201: json(createTeamAnswer, "The team and its first API key."), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { teamKey, ...created } = await teams.create(c.req.valid("json").name);
      await audit.record(teamKey, ADMIN_TOKEN_ACTOR, events.keyMade(created.keyId));
      // The team and its key are made: a fault now must not fail an answer that carries the only copy of the key.
      const invite = await members.invite(teamKey, "owner", ADMIN_TOKEN_ACTOR).catch((error: unknown) => {
        logger.error("first owner invite not made", { teamId: teamKey.teamId, ...errorFields(error) });
        return null;
      });
      const link = invite && inviteOf(c, invite);
      return c.json({ ...created, invite: link && { url: link.url, expiresAt: link.expiresAt } }, 201);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/teams",
      summary: "List the teams",
      tags: ["Teams"],
      security,
      middleware: [admin] as const,
      responses: { 200: json(teamsAnswer, "Every team that opens."), ...errors(401, 403) },
    }),
    async (c) => c.json(await teams.list(), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/teams/{teamId}/keys",
      summary: "List a team's keys",
      tags: ["Teams"],
      security,
      middleware: [admin] as const,
      request: { params: teamParams },
      responses: { 200: json(keysAnswer, "The team's keys, never a secret."), ...errors(401, 403, 404) },
    }),
    async (c) => c.json({ keys: await teams.listKeys(c.req.valid("param").teamId) }, 200),
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/teams/{teamId}/keys",
      summary: "Make another key for a team",
      tags: ["Teams"],
      security,
      middleware: [admin, noStore()] as const,
      request: { params: teamParams },
      responses: {
        201: json(createKeyAnswer, "A new key; its secret is shown once."),
        ...errors(401, 403, 404),
      },
    }),
    async (c) => {
      const { teamId } = c.req.valid("param");
      // The team's key is opened before the change: after it, a storage fault could fail an answer whose
      // key was made, and a retry would make a second one.
      const team = await requireTeamKey(teams, teamId);
      const made = await teams.createKey(teamId);
      await audit.record(team, ADMIN_TOKEN_ACTOR, events.keyMade(made.keyId));
      return c.json(made, 201);
    },
  );
  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/teams/{teamId}/keys/{keyId}",
      summary: "Revoke a key",
      tags: ["Teams"],
      security,
      middleware: [admin] as const,
      request: { params: teamParams.extend({ keyId: idParam }) },
      responses: {
        204: { description: "Revoked; the key stops working at once." },
        ...errors(401, 403, 404),
      },
    }),
    async (c) => {
      const { teamId, keyId } = c.req.valid("param");
      const team = await requireTeamKey(teams, teamId);
      if (await teams.revokeKey(teamId, keyId)) {
        await audit.record(team, ADMIN_TOKEN_ACTOR, events.keyRevoked(keyId));
      }
      return c.body(null, 204);
    },
  );
  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/teams/{teamId}",
      summary: "Delete a team and everything it holds",
      tags: ["Teams"],
      security,
      middleware: [admin] as const,
      request: { params: teamParams },
      responses: {
        204: { description: "The team's key material is destroyed, then its rows." },
        ...errors(401, 403, 404),
      },
    }),
    async (c) => {
      await teams.delete(c.req.valid("param").teamId);
      return c.body(null, 204);
    },
  );
  return app;
}
