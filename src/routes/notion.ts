// The Notion source: a team stores its integration token (team key), reads its secret webhook URL with
// GET /v1/sources/notion, and Notion's webhook delivers events to that URL, /v1/webhooks/notion/{teamId}/
// {token}, signed (X-Notion-Signature) with the token of its verification handshake (see
// services/notion.ts). Notion activates the subscription once the operator pastes that token into Notion's
// settings: GET /v1/sources/notion shows it, and the URL, to the team key (and to nothing else; the access
// log names the route pattern, never the path).

import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { events } from "../audit.js";
import { acceptOnly } from "../http/accept.js";
import { keyActor } from "../http/actor.js";
import type { AppEnv } from "../http/env.js";
import { noStore } from "../http/no-store.js";
import type { AuditTrail } from "../services/audit.js";
import type { NotionService } from "../services/notion.js";
import type { WaitUntil } from "../sources/background.js";
import { SIGNATURE_HEADER } from "../sources/notion/signature.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";

export const notionSourceBody = z.object({
  token: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^\S+$/, "must not contain white space")
    .describe("The Notion integration's token (an internal integration secret)."),
});

export const notionSourceAnswer = z.object({
  source: z.object({
    kind: z.literal("notion"),
    verified: z.boolean().describe("Whether Notion's webhook verification token has been received."),
  }),
});

export const notionSourceDetail = z.object({
  source: notionSourceAnswer.shape.source.extend({
    verificationToken: z
      .string()
      .nullable()
      .describe(
        "The verification token Notion sent in its handshake, to paste into the subscription's settings in " +
          "Notion; null until the handshake has arrived.",
      ),
    webhookUrl: z
      .url()
      .describe(
        "The URL to give Notion as the subscription's webhook URL: <origin>/v1/webhooks/notion/{teamId}/{token}. " +
          "Its token is a secret (kept sealed); it stays the same until DELETE /v1/sources/notion.",
      ),
  }),
});

export const webhookAnswer = z.object({ ok: z.literal(true) });

const webhookParams = z.object({ teamId: z.string().min(1), token: z.string().min(1) });

/** Where Notion delivers a team's events: the request's own origin (the one its caller reached). */
export function notionWebhookUrl(origin: string, teamId: string, urlToken: string): string {
  return `${origin}/v1/webhooks/notion/${encodeURIComponent(teamId)}/${encodeURIComponent(urlToken)}`;
}
const signatureHeaders = z.object({
  [SIGNATURE_HEADER]: z
    .string()
    .optional()
    .describe(
      "sha256=<hex HMAC-SHA256 of the raw body, keyed by the verification token>; not on the handshake.",
    ),
});

/** The runtime's waitUntil (a Worker's), or null where there is none: hono throws when asked on Node. */
function runtimeOf(c: Context<AppEnv>): WaitUntil | null {
  try {
    return c.executionCtx;
  } catch {
    return null;
  }
}

export function notionRoutes(notion: NotionService, team: MiddlewareHandler<AppEnv>, audit: AuditTrail) {
  const app = router();

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/sources/notion",
      summary: "Store the team's Notion integration token",
      tags: ["Note sources"],
      security: [{ teamKey: [] }],
      middleware: [team, acceptOnly(["application/json"])] as const,
      request: { body: { content: { "application/json": { schema: notionSourceBody } }, required: true } },
      description:
        "Stores the team's Notion integration token, sealed, and makes the team's secret webhook URL (read it " +
        "with GET). Do this before creating the webhook subscription in Notion. A token different from the " +
        "stored one clears the team's sync time, so the next pull reads every page; the same token again " +
        "keeps it. The webhook URL and a stored verification token are kept.",
      responses: {
        200: json(notionSourceAnswer, "Stored sealed; a stored verification token is kept."),
        ...errors(400, 401, 403, 413, 415),
      },
    }),
    async (c) => {
      const source = await notion.putToken(c.get("team"), c.req.valid("json").token);
      await audit.record(c.get("team"), keyActor(c), events.sourceSet("notion"));
      return c.json({ source }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/sources/notion",
      summary: "The Notion source: its webhook URL and verification",
      tags: ["Note sources"],
      security: [{ teamKey: [] }],
      middleware: [team, noStore()] as const,
      description:
        "The team's Notion source. `webhookUrl` is the URL to give Notion when creating the webhook " +
        "subscription. `verificationToken` is the token Notion then sent: Notion activates the subscription " +
        "only once it is pasted into the subscription's settings in Notion, so this is where the operator " +
        "reads it. Both are secrets shown only to the team key, never logged, and stored sealed. 404 when no " +
        "Notion token is stored.",
      responses: {
        200: json(notionSourceDetail, "The webhook URL, whether the handshake has arrived, and its token."),
        ...errors(401, 403, 404),
      },
    }),
    async (c) => {
      const team = c.get("team");
      const { urlToken, ...source } = await notion.source(team);
      const webhookUrl = notionWebhookUrl(new URL(c.req.url).origin, team.teamId, urlToken);
      return c.json({ source: { ...source, webhookUrl } }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/sources/notion",
      summary: "Forget the Notion source",
      tags: ["Note sources"],
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      responses: {
        204: {
          description:
            "The token, the webhook URL's token, the verification token and every page's newest event time " +
            "are forgotten.",
        },
        ...errors(401, 403),
      },
    }),
    async (c) => {
      if (await notion.deleteToken(c.get("team"))) {
        await audit.record(c.get("team"), keyActor(c), events.sourceRemoved("notion"));
      }
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/webhooks/notion/{teamId}/{token}",
      summary: "Receive a Notion webhook delivery",
      tags: ["Webhooks"],
      description:
        "Notion's webhook, at the secret URL `GET /v1/sources/notion` answers as `webhookUrl`; any other path " +
        "(the bare `/v1/webhooks/notion/{teamId}` included), an unknown team or a wrong token is 404. The " +
        "one-time `{verification_token}` handshake is stored sealed; read it back with " +
        "`GET /v1/sources/notion`. Every other delivery must carry `X-Notion-Signature: sha256=<hex " +
        "HMAC-SHA256 of the raw body>` keyed by that token (401 otherwise); an event dated more than 5 " +
        "minutes ahead is 400 and not recorded. Answered at once; the page an event names is read after, and " +
        "its document stored or deleted as Notion has it (a `page.deleted` for a page Notion still has live " +
        "re-syncs it).",
      request: { params: webhookParams, headers: signatureHeaders },
      responses: {
        200: json(webhookAnswer, "Verified and accepted (or the same handshake again)."),
        ...errors(400, 401, 404, 409, 413),
      },
    }),
    async (c) => {
      const { teamId, token } = c.req.valid("param");
      await notion.receive(teamId, token, {
        // Read only once the URL's token held: from then on the delivery is no pending guess for the
        // failed-authentication limiter (a bad signature is still counted, when answered 401).
        readBody: async () => {
          c.get("credentialAccepted")?.();
          return new Uint8Array(await c.req.arrayBuffer());
        },
        signature: c.req.header(SIGNATURE_HEADER),
        runtime: runtimeOf(c),
      });
      return c.json({ ok: true as const }, 200);
    },
  );

  return app;
}
