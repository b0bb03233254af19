// A team's people over the API (a team key with the admin scope): list the members, invite one by a one-time
// link, change a member's role, remove one. People join and sign in on the page (src/page).

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { keyActor } from "../http/actor.js";
import type { AppEnv } from "../http/env.js";
import { noStore } from "../http/no-store.js";
import { publicUrl } from "../http/public-url.js";
import { roles } from "../role.js";
import type { MemberService, NewInvite } from "../services/members.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { idParam } from "./schemas.js";

export const roleSchema = z
  .enum(roles)
  .describe(
    "owner: everything a key with the admin scope may do, members included. member: as a write key (adding, " +
      "replacing, remembering). reader: as a read key.",
  );

export const memberSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable().describe("Null only for a member whose sealed row does not open."),
    role: roleSchema,
    createdAt: z.string(),
    lastSeenAt: z.string().nullable().describe("Their last sign-in or page use, exact to about a minute."),
  })
  .openapi("Member");

export const inviteBody = z.object({ role: roleSchema });

export const inviteAnswer = z
  .object({
    inviteId: z.string(),
    url: z.string().describe("The one-time link to hand to the person; shown this once."),
    role: roleSchema,
    expiresAt: z.string(),
  })
  .openapi("Invite");

/** The page path an invite's link opens. */
export const invitePath = (code: string) => `/page/invite/${code}`;

/** An invite as an answer: its link on this request's host. */
export function inviteOf(
  c: Parameters<typeof publicUrl>[0],
  invite: NewInvite,
): z.infer<typeof inviteAnswer> {
  return {
    inviteId: invite.inviteId,
    url: publicUrl(c, invitePath(invite.code)),
    role: invite.role,
    expiresAt: invite.expiresAt,
  };
}

const security = [{ teamKey: [] }];
const memberParams = z.object({ memberId: idParam });

export function memberRoutes(members: MemberService, team: MiddlewareHandler<AppEnv>) {
  const app = router();
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/members",
      summary: "List the team's members",
      tags: ["Members"],
      security,
      middleware: [team] as const,
      responses: { 200: json(z.array(memberSchema), "The live members, oldest first."), ...errors(401, 403) },
    }),
    async (c) => c.json(await members.list(c.get("team")), 200),
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/invites",
      summary: "Invite a person",
      tags: ["Members"],
      security,
      middleware: [team, noStore()] as const,
      request: { body: { content: { "application/json": { schema: inviteBody } }, required: true } },
      responses: {
        201: json(inviteAnswer, "A one-time link, good for 24 hours, for whoever opens it first."),
        ...errors(400, 401, 403),
      },
    }),
    async (c) => {
      const invite = await members.invite(c.get("team"), c.req.valid("json").role, keyActor(c));
      return c.json(inviteOf(c, invite), 201);
    },
  );
  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/members/{memberId}",
      summary: "Change a member's role",
      tags: ["Members"],
      security,
      middleware: [team] as const,
      request: {
        params: memberParams,
        body: { content: { "application/json": { schema: inviteBody } }, required: true },
      },
      responses: {
        204: { description: "The member has the role; it applies to their next request." },
        ...errors(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { memberId } = c.req.valid("param");
      await members.changeRole(c.get("team"), memberId, c.req.valid("json").role, keyActor(c));
      return c.body(null, 204);
    },
  );
  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/members/{memberId}",
      summary: "Remove a member",
      tags: ["Members"],
      security,
      middleware: [team] as const,
      request: { params: memberParams },
      responses: {
        204: { description: "Removed; their sessions end on their next request." },
        ...errors(401, 403, 404, 409),
      },
    }),
    async (c) => {
      await members.remove(c.get("team"), c.req.valid("param").memberId, keyActor(c));
      return c.body(null, 204);
    },
  );
  return app;
}
