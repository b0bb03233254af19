// The Notion source: a team stores its integration token (team key), and Notion's webhook delivers events to
// /v1/webhooks/notion/{teamId}. The webhook carries no bearer credential: the first delivery is the
// verification handshake, whose token is kept sealed, and every later one must be signed with it
// (X-Notion-Signature) or is refused with nothing processed. A verified event is answered at once and
// fetched after (see Background).

import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { ConflictError, InvalidRequestError, UnauthorizedError } from "../errors.js";
import type { AppEnv } from "../http/env.js";
import { tokensEqual } from "../seal/secret.js";
import type { Background, WaitUntil } from "../sources/background.js";
import { eventSchema, verificationSchema } from "../sources/notion/events.js";
import { SIGNATURE_HEADER, signatureValid } from "../sources/notion/signature.js";
import type { NotionSync } from "../sources/notion/sync.js";
import type { SourceSecrets } from "../sources/secrets.js";
import type { TeamDirectory } from "../teams/directory.js";
import { acceptOnly } from "./documents.js";
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

export interface NotionRouteDeps {
  directory: TeamDirectory;
  secrets: SourceSecrets;
  notion: NotionSync;
  background: Background;
}

/** The runtime's waitUntil (a Worker's), or null where there is none: hono throws when asked on Node. */
function runtimeOf(c: Context<AppEnv>): WaitUntil | null {
  try {
    return c.executionCtx;
  } catch {
    return null;
  }
}

/** The body as JSON, or undefined when it is not JSON. */
function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** Notion's verification request: an object with a verification token and nothing that makes it an event. */
function handshakeToken(body: unknown): string | null {
  if (typeof body !== "object" || body === null || "type" in body) return null;
  const parsed = verificationSchema.safeParse(body);
  return parsed.success ? parsed.data.verification_token : null;
}

export function notionRoutes(deps: NotionRouteDeps, team: MiddlewareHandler<AppEnv>) {
  const { directory, secrets, notion, background } = deps;
  const app = router();

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/sources/notion",
      security: [{ teamKey: [] }],
      middleware: [team, acceptOnly(["application/json"])] as const,
      request: { body: { content: { "application/json": { schema: notionSourceBody } }, required: true } },
      responses: {
        200: json(notionSourceAnswer, "Stored sealed; a stored verification token is kept."),
        ...errors(400, 401, 413, 415),
      },
    }),
    async (c) => {
      const key = c.get("team");
      await secrets.put(key, "notion.token", c.req.valid("json").token);
      const verified = (await secrets.get(key, "notion.verification")) !== null;
      return c.json({ source: { kind: "notion" as const, verified } }, 200);
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
      await secrets.delete(c.get("team"), ["notion.token", "notion.verification"]);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/webhooks/notion/{teamId}",
      description:
        "Notion's webhook. The one-time `{verification_token}` handshake is stored sealed; every other " +
        "delivery must carry `X-Notion-Signature: sha256=<hex HMAC-SHA256 of the raw body>` keyed by that " +
        "token. Answered at once; page events are fetched after.",
      request: { params: teamParams, headers: signatureHeaders },
      responses: {
        200: json(webhookAnswer, "Verified and accepted (or the same handshake again)."),
        ...errors(400, 401, 409, 413),
      },
    }),
    async (c) => {
      const key = await directory.teamKey(c.req.valid("param").teamId);
      if (!key) throw new UnauthorizedError();
      // The signature covers the bytes as sent, so it is checked on them, never on a re-encoding of the JSON.
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const body = parseJson(raw);

      const offered = handshakeToken(body);
      if (offered !== null) {
        const stored = await secrets.putIfAbsent(key, "notion.verification", offered);
        if (!(await tokensEqual(offered, stored))) {
          throw new ConflictError(
            "A different verification token is stored; DELETE /v1/sources/notion before verifying again.",
          );
        }
        return c.json({ ok: true as const }, 200);
      }

      const verification = await secrets.get(key, "notion.verification");
      if (
        verification === null ||
        !(await signatureValid(raw, c.req.header(SIGNATURE_HEADER), verification))
      ) {
        throw new UnauthorizedError();
      }
      if (body === undefined) throw new InvalidRequestError("Invalid request: the body is not JSON.");
      const event = eventSchema.safeParse(body);
      // A signed delivery of a kind this code does not know is acknowledged, so Notion does not resend it.
      if (event.success) {
        background.run(
          "notion event",
          async () => {
            await notion.applyEvent(key, event.data);
          },
          runtimeOf(c),
        );
      }
      return c.json({ ok: true as const }, 200);
    },
  );

  return app;
}
