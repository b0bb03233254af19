// A team's audit trail as the tests read it: the whole first page through GET /v1/audit, and each event in
// brief (who by name or kind, what, to which row).

import { expect } from "vitest";
import { auditAnswer } from "../../src/routes/audit.js";
import { expectOk } from "../routes/contract.js";
import type { TestApp } from "./app.js";

export type AuditEvent = ReturnType<typeof auditAnswer.parse>["events"][number];

export async function auditOf(app: TestApp, adminKey: string, query = ""): Promise<AuditEvent[]> {
  const answer = await expectOk(
    await app.request(`/v1/audit${query}`, { token: adminKey }),
    200,
    auditAnswer,
  );
  expect(answer.unreadable).toBe(0);
  return answer.events;
}

export const brief = (event: AuditEvent) => ({
  who: event.actor.name ?? event.actor.kind,
  action: event.action,
  target: event.target ? `${event.target.kind} ${event.target.id}` : null,
});

/**
 * The trail in brief after the team's own making: its two oldest events are the admin token making the team's
 * first key and its first owner's invite (in either order: one millisecond may hold both), checked here and
 * left out of the answer.
 */
export async function changesSinceMade(
  app: TestApp,
  adminKey: string,
  query = "",
): Promise<ReturnType<typeof brief>[]> {
  const events = await auditOf(app, adminKey, query);
  const made = events.slice(-2);
  for (const event of made) expect(event.actor).toEqual({ kind: "admin", id: "admin-token", name: null });
  expect(made.map((event) => event.action).sort()).toEqual(["key.made", "member.invited"]);
  return events.slice(0, -2).map(brief);
}
