// What Notion's webhook sends: the verification request, and events signed with the verification token
// (X-Notion-Signature: sha256=<hex HMAC-SHA256 of the raw body>), computed here with node:crypto so the test
// does not check memoria's signing with memoria's own code.

import { createHmac, randomUUID } from "node:crypto";
import { openSecret } from "../../src/sealed-rows/secrets.js";
import type { TestApp } from "./app.js";

export const VERIFICATION_TOKEN = "secret_double_verification_token_0123456789abcdef";

export interface NotionEventBody {
  id: string;
  timestamp: string;
  workspace_id: string;
  workspace_name: string;
  subscription_id: string;
  integration_id: string;
  type: string;
  authors: { id: string; type: string }[];
  attempt_number: number;
  entity: { id: string; type: string };
  data: Record<string, unknown>;
}

/** An event as Notion delivers it: what changed and when, never the content. */
export function notionEvent(
  type: string,
  pageId: string,
  timestamp: string,
  data: Record<string, unknown> = {},
): NotionEventBody {
  return {
    id: randomUUID(),
    timestamp,
    workspace_id: "13950b26-c203-4f3b-b97d-93ec06319565",
    workspace_name: "Double Labs",
    subscription_id: "29d75c0d-5546-4414-8459-7b7a92f1fc4b",
    integration_id: "0ef2e755-4912-8096-91c1-00376a88a5ca",
    type,
    authors: [{ id: "c7c11cca-1d73-471d-9b6e-bdef51470190", type: "person" }],
    attempt_number: 1,
    entity: { id: pageId, type: type.split(".")[0] ?? "page" },
    data,
  };
}

export function signNotion(body: string, token = VERIFICATION_TOKEN): string {
  return `sha256=${createHmac("sha256", token).update(body).digest("hex")}`;
}

/** The bare team path v1 had: no longer Notion's webhook (404), so knowing a team id reaches nothing. */
export const barePath = (teamId: string) => `/v1/webhooks/notion/${teamId}`;

/**
 * The path of the webhook URL the team's operator gave Notion (GET /v1/sources/notion's `webhookUrl`), read
 * from the team's sealed `notion.url` row, so helpers need only the team id; the bare path when the team has
 * none (an unknown team, or no PUT yet), which is refused.
 */
export async function webhookPath(app: TestApp, teamId: string): Promise<string> {
  const key = await app.memoria.directory.teamKey(teamId);
  const row = key ? await app.storage.sources.get(teamId, "notion.url") : null;
  if (!key || !row) return barePath(teamId);
  return `${barePath(teamId)}/${await openSecret(key, "notion.url", row.sealed)}`;
}

/** POSTs a raw body to a path with the given headers. */
export function postTo(app: TestApp, path: string, body: string, headers: Record<string, string> = {}) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

/** POSTs a raw body to the team's Notion webhook (its secret URL) with the given headers. */
export async function postWebhook(
  app: TestApp,
  teamId: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return postTo(app, await webhookPath(app, teamId), body, headers);
}

/** The one-time verification request. */
export function handshake(app: TestApp, teamId: string, token = VERIFICATION_TOKEN): Promise<Response> {
  return postWebhook(app, teamId, JSON.stringify({ verification_token: token }));
}

/** Sends an event signed with the verification token and waits until its background work is done. */
export async function deliver(
  app: TestApp,
  teamId: string,
  event: NotionEventBody,
  token = VERIFICATION_TOKEN,
): Promise<Response> {
  const body = JSON.stringify(event);
  const res = await postWebhook(app, teamId, body, { "x-notion-signature": signNotion(body, token) });
  await app.memoria.sources.idle();
  return res;
}

/** Stores the team's Notion token and completes the handshake: the team is ready for events. */
export async function connectNotion(
  app: TestApp,
  team: { teamId: string; apiKey: string },
  notionToken: string,
): Promise<void> {
  const put = await app.request("/v1/sources/notion", {
    method: "PUT",
    token: team.apiKey,
    json: { token: notionToken },
  });
  if (put.status !== 200) throw new Error(`PUT /v1/sources/notion answered ${put.status}`);
  const verified = await handshake(app, team.teamId);
  if (verified.status !== 200) throw new Error(`the handshake answered ${verified.status}`);
}
