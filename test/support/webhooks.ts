// Standard Webhooks deliveries for tests, signed by the `standardwebhooks` library's own signer, exactly as a
// sender using it would sign them.

import { Webhook } from "standardwebhooks";
import { expect } from "vitest";
import { webhookSecretAnswer } from "../../src/routes/webhooks.js";
import type { TestApp } from "./app.js";

/** Makes (or rotates) the team's signing secret through the API. */
export async function makeWebhookSecret(app: TestApp, apiKey: string): Promise<string> {
  const res = await app.request("/v1/sources/webhook", { method: "PUT", token: apiKey });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return webhookSecretAnswer.parse(JSON.parse(text)).secret;
}

export interface Delivery {
  /** The `webhook-id`; a fresh one by default. */
  id?: string;
  /** The time signed into `webhook-timestamp`; now by default. */
  at?: Date;
  /** The raw body to send in place of the one signed (a body changed after signing). */
  sentBody?: string;
  /** Headers to leave out. */
  omit?: ("webhook-id" | "webhook-timestamp" | "webhook-signature")[];
}

let deliveries = 0;

export function newDeliveryId(): string {
  deliveries += 1;
  return `msg_${Date.now().toString(36)}_${deliveries}`;
}

/** Signs `event` (an object, or a raw body string) with `secret` and posts it to the team's ingest webhook. */
export async function deliver(
  app: TestApp,
  teamId: string,
  secret: string,
  event: unknown,
  options: Delivery = {},
): Promise<Response> {
  const id = options.id ?? newDeliveryId();
  const at = options.at ?? new Date();
  const body = typeof event === "string" ? event : JSON.stringify(event);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
  for (const name of options.omit ?? []) delete headers[name];
  return app.request(`/v1/webhooks/ingest/${teamId}`, {
    method: "POST",
    headers,
    body: options.sentBody ?? body,
  });
}

/** Counts the delivery ids storage holds, for every team. */
export async function recordedDeliveries(app: TestApp): Promise<number> {
  const rs = await app.storage.client.execute("SELECT count(*) AS n FROM webhook_deliveries");
  return Number(rs.rows[0]?.n ?? 0);
}
