// The Notion source: a team stores its integration token (team key), and Notion's webhook delivers events to
// /v1/webhooks/notion/{teamId}. The webhook carries no bearer credential: the first delivery is the
// verification handshake — accepted only for a team that has stored its Notion token, and kept sealed — and
// every later one must be signed with it (X-Notion-Signature) or is refused with nothing processed. Notion
// activates the subscription once the operator pastes that token into Notion's settings: GET
// /v1/sources/notion shows it to the team key (and to nothing else; it is never logged). A verified event is
// answered at once and its page read after (see Background).

import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { DomainError, isDomainError } from "../errors.js";
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
      description:
        "Stores the team's Notion integration token, sealed. Do this before creating the webhook subscription " +
        "in Notion: its handshake is refused for a team with no token. A token different from the stored one " +
        "clears the team's sync time, so the next pull reads every page; the same token again keeps it.",
      responses: {
        200: json(notionSourceAnswer, "Stored sealed; a stored verification token is kept."),
        ...errors(400, 401, 413, 415),
      },
    }),
    async (c) => {
      const key = c.get("team");
      const token = c.req.valid("json").token;
      let stored: string | null;
      try {
        stored = await secrets.get(key, "notion.token");
      } catch (error) {
        // A row that no longer opens is replaced like any other token.
        if (!isDomainError(error, "unreadable")) throw error;
        stored = null;
      }
      const replaced = stored === null || !(await tokensEqual(token, stored));
      await secrets.put(key, "notion.token", token, { resetSync: replaced });
      const verified = await secrets.has(key.teamId, "notion.verification");
      return c.json({ source: { kind: "notion" as const, verified } }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/sources/notion",
      security: [{ teamKey: [] }],
      middleware: [team] as const,
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
      const key = c.get("team");
      if (!(await secrets.has(key.teamId, "notion.token"))) {
        throw new DomainError("not_found", "No Notion token is stored; PUT /v1/sources/notion first.");
      }
      const verificationToken = await secrets.get(key, "notion.verification");
      // A secret: no cache, proxy or browser keeps a copy.
      c.header("cache-control", "no-store");
      return c.json(
        { source: { kind: "notion" as const, verified: verificationToken !== null, verificationToken } },
        200,
      );
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
      const key = await directory.teamKey(c.req.valid("param").teamId);
      if (!key) throw new DomainError("unauthorized");
      // The signature covers the bytes as sent, so it is checked on them, never on a re-encoding of the JSON.
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const body = parseJson(raw);

      const offered = handshakeToken(body);
      if (offered !== null) {
        // Without a token the team has not set up Notion: whoever knows its id must not claim the webhook.
        if (!(await secrets.has(key.teamId, "notion.token"))) throw new DomainError("unauthorized");
        const stored = await secrets.putIfAbsent(key, "notion.verification", offered);
        if (!(await tokensEqual(offered, stored))) {
          throw new DomainError(
            "conflict",
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
        throw new DomainError("unauthorized");
      }
      if (body === undefined)
        throw new DomainError("invalid_request", "Invalid request: the body is not JSON.");
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
