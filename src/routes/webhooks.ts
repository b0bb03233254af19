// The generic signed webhook. `PUT /v1/sources/webhook` (team key) makes or rotates the team's signing secret,
// `GET` says whether one is set (never the secret), `DELETE` forgets it; `POST /v1/webhooks/ingest/{teamId}` takes a Standard Webhooks delivery and applies its event before the answer.
//
// A delivery is handled in this order, and each step's failure stops it with nothing recorded:
//   1. before the body is read: the three headers (present, and a signature that could match), the timestamp
//      within 5 minutes, the team in the path and its secret; then the signature over the raw body (→ 401,
//      one message for all);
//   2. the body as JSON and as one of the three events (→ 400 invalid_request; the id is not recorded, so the
//      sender's corrected resend with the same id is processed);
//   3. the delivery id: seen in the last 24 hours → 200 with `duplicate: true` and nothing done;
//   4. the event applied; a failure forgets the id again and answers with the error.
// The signature covers the exact bytes sent, so the body is read as raw text before anything parses it, and the
// ingest route is a plain handler: a declared body schema would have it parsed and validated before verifying.

import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { events } from "../audit.js";
import { DomainError } from "../errors.js";
import { keyActor } from "../http/actor.js";
import type { AppEnv } from "../http/env.js";
import { describeIssues } from "../http/errors.js";
import { noStore } from "../http/no-store.js";
import type { Logger } from "../logger.js";
import type { AuditTrail } from "../services/audit.js";
import type { Refusal, WebhookEvent, WebhookService } from "../services/webhooks.js";
import { errors, json } from "./responses.js";
import { router } from "./router.js";
import { documentBody, entryBody, entryInput } from "./schemas.js";

export const webhookEventTypes = ["document.upsert", "document.delete", "entry.create"] as const;

// The documents API's own field schemas, so limits and the reserved `notion:` prefix match; externalId is
// required here, since it is the only way a later event can name the document.
const externalId = documentBody.shape.externalId.unwrap();

export const webhookEvent = z
  .discriminatedUnion(
    "type",
    [
      z.object({
        type: z.literal("document.upsert"),
        data: documentBody.extend({ externalId }),
      }),
      z.object({ type: z.literal("document.delete"), data: z.object({ externalId }) }),
      z.object({ type: z.literal("entry.create"), data: entryBody }),
    ],
    {
      error: (issue) =>
        issue.code === "invalid_union" ? `must be one of ${webhookEventTypes.join(", ")}` : undefined,
    },
  )
  .openapi("WebhookEvent");
export type WebhookEventBody = z.infer<typeof webhookEvent>;

export const webhookSecretAnswer = z.object({
  secret: z.string().describe("The new signing secret, whsec_<base64>; the previous one no longer verifies."),
});

export const webhookSourceAnswer = z.object({
  source: z.object({
    kind: z.literal("webhook"),
    configured: z.boolean().describe("Whether a signing secret is set; without one every delivery is 401."),
    createdAt: z
      .string()
      .nullable()
      .describe("When the current secret was made (ISO-8601); null when none is."),
  }),
});

export const webhookAnswer = z
  .object({
    ok: z.literal(true),
    type: z.enum(webhookEventTypes),
    duplicate: z
      .boolean()
      .describe("True when this delivery id was seen in the last 24 hours: nothing was done this time."),
    documentId: z.string().optional().describe("document.upsert: the document stored or replaced."),
    created: z.boolean().optional().describe("document.upsert: false when it replaced one."),
    deleted: z.boolean().optional().describe("document.delete: false when no document held the externalId."),
    entryId: z.string().optional().describe("entry.create: the entry stored."),
  })
  .openapi("WebhookAnswer");

export function toWebhookEvent(body: WebhookEventBody): WebhookEvent {
  switch (body.type) {
    case "document.upsert":
      return {
        type: body.type,
        document: {
          title: body.data.title ?? null,
          content: body.data.content,
          format: body.data.format ?? "markdown",
          path: body.data.path ?? [],
          externalId: body.data.externalId,
        },
      };
    case "document.delete":
      return { type: body.type, externalId: body.data.externalId };
    case "entry.create":
      return { type: body.type, entry: entryInput(body.data) };
  }
}

/** Parses a verified body: JSON, then one of the events. Messages name fields, never quote the body. */
export function parseWebhookEvent(payload: string): WebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    throw new DomainError("invalid_request", "Invalid request: body: must be a JSON object.");
  }
  const parsed = webhookEvent.safeParse(value);
  if (!parsed.success) throw new DomainError("invalid_request", describeIssues(parsed.error.issues));
  return toWebhookEvent(parsed.data);
}

const REFUSED = "Missing or invalid webhook signature, or a webhook-timestamp more than 5 minutes off.";
const INGEST_PATH = "/v1/webhooks/ingest/{teamId}";

// The raw bytes as text, exactly: a byte-order mark is kept (the signer signed it), not stripped.
const rawText = new TextDecoder("utf-8", { ignoreBOM: true });

export function webhookRoutes(
  webhooks: WebhookService,
  team: MiddlewareHandler<AppEnv>,
  logger: Logger,
  audit: AuditTrail,
) {
  const app = router();

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/sources/webhook",
      summary: "Make (or rotate) the team's webhook signing secret",
      tags: ["Note sources"],
      security: [{ teamKey: [] }],
      middleware: [team, noStore()] as const,
      description:
        "Makes or rotates the team's signing secret for the generic webhook. The previous secret stops working at once.",
      responses: { 200: json(webhookSecretAnswer, "The new secret, shown this once."), ...errors(401, 403) },
    }),
    async (c) => {
      const secret = await webhooks.rotateSecret(c.get("team"));
      await audit.record(c.get("team"), keyActor(c), events.sourceSet("webhook"));
      // A secret: no cache, proxy or browser keeps a copy.
      c.header("cache-control", "no-store");
      return c.json({ secret }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/sources/webhook",
      summary: "Whether a webhook signing secret is set",
      tags: ["Note sources"],
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      description:
        "Whether the team has a signing secret for the generic webhook, and since when. Never the secret.",
      responses: { 200: json(webhookSourceAnswer, "The generic webhook source."), ...errors(401, 403) },
    }),
    async (c) => c.json({ source: await webhooks.source(c.get("team")) }, 200),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/sources/webhook",
      summary: "Forget the webhook signing secret",
      tags: ["Note sources"],
      security: [{ teamKey: [] }],
      middleware: [team] as const,
      description: "Forgets the signing secret: every delivery is then 401 until a new one is made with PUT.",
      responses: { 204: { description: "The secret is forgotten." }, ...errors(401, 403) },
    }),
    async (c) => {
      if (await webhooks.deleteSecret(c.get("team"))) {
        await audit.record(c.get("team"), keyActor(c), events.sourceRemoved("webhook"));
      }
      return c.body(null, 204);
    },
  );

  app.post("/v1/webhooks/ingest/:teamId", async (c) => {
    const refuse = (refusal: Refusal): never => {
      logger.warn("webhook delivery refused", { requestId: c.get("requestId"), reason: refusal });
      throw new DomainError("unauthorized", REFUSED);
    };
    // The headers, the team and its secret before a byte of the body is read.
    const admitted = await webhooks.admit(c.req.param("teamId"), {
      id: c.req.header("webhook-id"),
      timestamp: c.req.header("webhook-timestamp"),
      signature: c.req.header("webhook-signature"),
    });
    if (!admitted.ok) return refuse(admitted.refusal);
    // Admitted on its headers: no longer a pending guess for the failed-authentication limiter, so slow
    // deliveries in flight cannot lock out their address. A bad signature is still counted, when answered 401.
    c.get("credentialAccepted")?.();
    const payload = rawText.decode(await c.req.arrayBuffer());
    const received = await webhooks.receive(admitted.delivery, payload, parseWebhookEvent);
    if (!received.ok) return refuse(received.refusal);
    return c.json({ ok: true as const, ...received.delivered }, 200);
  });

  // The ingest route described for /openapi.json only: its handler above reads and verifies the raw body itself.
  app.openAPIRegistry.registerPath({
    method: "post",
    path: INGEST_PATH,
    summary: "Receive a signed Standard Webhooks delivery",
    tags: ["Webhooks"],
    description:
      "A Standard Webhooks delivery, verified against the team's secret and applied before the answer. A bad " +
      "signature, unknown team, no secret or a timestamp more than 5 minutes off is 401 and records nothing; " +
      "a delivery id seen in the last 24 hours is 200 with nothing done.",
    request: {
      params: z.object({ teamId: z.string() }),
      headers: z.object({
        "webhook-id": z.string(),
        "webhook-timestamp": z.string().describe("Unix seconds."),
        "webhook-signature": z.string().describe("Space-separated v1,<base64 HMAC-SHA256> signatures."),
      }),
      body: { content: { "application/json": { schema: webhookEvent } }, required: true },
    },
    responses: {
      200: json(webhookAnswer, "Applied, or a redelivery with nothing done."),
      ...errors(400, 401, 409, 413),
    },
  });

  return app;
}
