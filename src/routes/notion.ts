// The Notion source: a team stores its integration token (team key), and Notion's webhook delivers events to
// /v1/webhooks/notion/{teamId}, signed (X-Notion-Signature) with the token of its verification handshake
// (see services/notion.ts). Notion activates the subscription once the operator pastes that token into
// Notion's settings: GET /v1/sources/notion shows it to the team key (and to nothing else; it is never
// logged).

import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { acceptOnly } from "../http/accept.js";
import type { AppEnv } from "../http/env.js";
import { noStore } from "../http/no-store.js";
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
  }),
});

export const webhookAnswer = z.object({ ok: z.literal(true) });

const teamParams = z.object({ teamId: z.string().min(1) });
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

export function notionRoutes(notion: NotionService, team: MiddlewareHandler<AppEnv>) {
  const app = router();

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/sources/notion",
      security: [{ teamKey: [] }],
      middleware: [team, acceptOnly(["application/json"])] as const,
      request: { body: { content: { "application/json": { schema: notionSourceBody } }, required: true } },
      description:
        "Stores the team's Notion integration token, sealed. Do this before creating the webhook subscription " +
        "in Notion: its handshake is refused for a team with no token. A token different from the stored one " +
        "clears the team's sync time, so the next pull reads every page; the same token again keeps it.",
      responses: {
        200: json(notionSourceAnswer, "Stored sealed; a stored verification token is kept."),
        ...errors(400, 401, 413, 415),
      },
    }),
    async (c) => c.json({ source: await notion.putToken(c.get("team"), c.req.valid("json").token) }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/sources/notion",
      security: [{ teamKey: [] }],
      middleware: [team, noStore()] as const,
      description:
        "The team's Notion source. `verificationToken` is the token Notion sent when the webhook subscription " +
        "was made: Notion activates the subscription only once it is pasted into the subscription's settings " +
        "in Notion, so this is where the operator reads it. It is shown only to the team key, never logged, " +
        "and stored sealed. 404 when no Notion token is stored.",
      responses: {
        200: json(notionSourceDetail, "Whether the handshake has arrived, and its verification token."),
        ...errors(401, 404),
      },
    }),
    async (c) => {
      const source = await notion.source(c.get("team"));
      return c.json({ source }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/sources/notion",
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      responses: {
        204: { description: "The token and the verification token are forgotten." },
        ...errors(401),
      },
    }),
    async (c) => {
      await notion.deleteToken(c.get("team"));
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/webhooks/notion/{teamId}",
      description:
        "Notion's webhook. The one-time `{verification_token}` handshake is stored sealed, and only for a team " +
        "that has stored its Notion token (401 otherwise); read it back with `GET /v1/sources/notion`. Every " +
        "other delivery must carry `X-Notion-Signature: sha256=<hex HMAC-SHA256 of the raw body>` keyed by " +
        "that token. Answered at once; the page an event names is read after, and its document stored or " +
        "deleted as Notion has it (a `page.deleted` for a page Notion still has live re-syncs it).",
      request: { params: teamParams, headers: signatureHeaders },
      responses: {
        200: json(webhookAnswer, "Verified and accepted (or the same handshake again)."),
        ...errors(400, 401, 409, 413),
      },
    }),
    async (c) => {
      await notion.receive(c.req.valid("param").teamId, {
        readBody: async () => new Uint8Array(await c.req.arrayBuffer()),
        signature: c.req.header(SIGNATURE_HEADER),
        runtime: runtimeOf(c),
      });
      return c.json({ ok: true as const }, 200);
    },
  );

  return app;
}
