// Notion's webhook deliveries: the one-time verification request, and events. An event names what changed
// (`entity`) and when (`timestamp`), never the content, so a page event means "fetch this page again".

import { z } from "zod";
import { canonicalId } from "./types.js";

/** The request Notion sends once when a subscription is made: the token that signs every later delivery. */
export const verificationSchema = z.object({ verification_token: z.string().min(1).max(1024) });

export const eventSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string(),
  timestamp: z.string(),
  entity: z.looseObject({ id: z.string(), type: z.string() }).optional(),
});
/** What memoria reads of an event; Notion's other fields (workspace, authors, data) are not needed. */
export interface NotionEvent {
  type: string;
  timestamp: string;
  entity?: { id: string; type: string } | undefined;
}

/** Events after which the page is fetched again and its document upserted. */
export const upsertEventTypes = [
  "page.created",
  "page.content_updated",
  "page.properties_updated",
  "page.moved",
  "page.undeleted",
] as const;
export const deleteEventTypes = ["page.deleted"] as const;

/**
 * How far ahead of memoria's clock an event's `timestamp` may be: clocks drift, Notion's by seconds. A later
 * one would be kept as its page's newest event and make every genuine event before that time look stale, so
 * it is refused. Five minutes, as Standard Webhooks allows a `webhook-timestamp` to be off.
 */
export const MAX_EVENT_LEAD_MS = 5 * 60 * 1000;

/** Whether the event is dated more than MAX_EVENT_LEAD_MS after `now`; an unreadable time is not. */
export function isDatedAhead(event: NotionEvent, now: Date): boolean {
  const time = Date.parse(event.timestamp);
  return !Number.isNaN(time) && time - now.getTime() > MAX_EVENT_LEAD_MS;
}

/** What an event asks for: the page to fetch or delete, at the event's time (ISO-8601 UTC), or nothing. */
export type PageChange =
  | { action: "upsert" | "delete"; pageId: string; at: string; moved: boolean }
  | { action: "ignore" };

export function pageChangeOf(event: NotionEvent): PageChange {
  const upsert = (upsertEventTypes as readonly string[]).includes(event.type);
  const remove = (deleteEventTypes as readonly string[]).includes(event.type);
  if ((!upsert && !remove) || event.entity?.type !== "page") return { action: "ignore" };
  const pageId = canonicalId(event.entity.id);
  const time = Date.parse(event.timestamp);
  if (!pageId || Number.isNaN(time)) return { action: "ignore" };
  // One format, so event times compare as strings in storage.
  const at = new Date(time).toISOString();
  return { action: upsert ? "upsert" : "delete", pageId, at, moved: event.type === "page.moved" };
}
