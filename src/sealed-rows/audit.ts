// What an audit event's sealed blob holds: who acted, what they did, and to which row, by id. Sealed under the
// team's key and bound to the event's id, so an event cannot be read without the key nor moved to another row.

import { z } from "zod";
import { type Actor, type AuditRecord, actorKinds, auditActions, targetKinds } from "../audit.js";
import { newId } from "../ids.js";
import { sealRow, type TeamKey } from "../seal/team-key.js";
import type { AuditRow } from "../store/audit.js";
import { openAs } from "./open-as.js";

export const auditContentSchema = z.object({
  actor: z.object({ kind: z.enum(actorKinds), id: z.string() }),
  action: z.enum(auditActions),
  target: z.object({ kind: z.enum(targetKinds), id: z.string() }).optional(),
});
export type AuditContent = z.infer<typeof auditContentSchema>;

/** The table name bound into each event's seal; changing it makes the whole trail unreadable. */
const AUDIT_TABLE = "audit_events";

export const sealAuditEvent = (key: TeamKey, eventId: string, content: AuditContent) =>
  sealRow(key, AUDIT_TABLE, eventId, content);

export const openAuditEvent = (key: TeamKey, eventId: string, sealed: Uint8Array): Promise<AuditContent> =>
  openAs(auditContentSchema, key, AUDIT_TABLE, eventId, sealed);

/**
 * Events of one call (a request's) share their time; the trail orders them by id after time, so their ids are
 * the call's random id and their place in it, written in letters a–p (they sort as the numbers do, where the
 * ids' base32 digits would sort before its letters). Four of them hold 65,536 events, far past a batch's
 * 1,000. The shared prefix shows at rest which events one request made, and nothing more.
 */
const SEQUENCE_DIGITS = "abcdefghijklmnop";
function sequenceSuffix(i: number): string {
  let out = "";
  for (let shift = 12; shift >= 0; shift -= 4) out += SEQUENCE_DIGITS[(i >> shift) & 15];
  return out;
}

/**
 * Who made a change, and its event's place in the trail: its call's id and time, and its place in the call (a
 * batch item's index, so a batch's events read in its order however its documents' writes finished, and a
 * write tried again keeps its event's id).
 */
export interface EventStamp {
  by: Actor;
  call: string;
  at: string;
  index: number;
}

export function eventStamp(by: Actor, at: string, index = 0, call = newId("a")): EventStamp {
  return { by, call, at, index };
}

/** The row of one event, stamped. */
export async function sealStampedEvent(
  team: TeamKey,
  stamp: EventStamp,
  record: AuditRecord,
): Promise<AuditRow> {
  const id = stamp.call + sequenceSuffix(stamp.index);
  const content: AuditContent = { actor: { kind: stamp.by.kind, id: stamp.by.id }, action: record.action };
  if (record.target) content.target = { kind: record.target.kind, id: record.target.id };
  return { teamId: team.teamId, id, at: stamp.at, sealed: await sealAuditEvent(team, id, content) };
}

/** Rows for `records`, all by `actor` at `at`, in one call, sealed under the team's key and ready to append. */
export async function sealAuditEvents(
  team: TeamKey,
  actor: Actor,
  records: readonly AuditRecord[],
  at: string,
): Promise<AuditRow[]> {
  const call = newId("a");
  return Promise.all(
    records.map((record, i) => sealStampedEvent(team, eventStamp(actor, at, i, call), record)),
  );
}
