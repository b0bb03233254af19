// What the audit trail says: who (an actor) did what (an action) to which thing (a target, when there is one).
// Every change a person or an agent makes to what a team holds or to who may reach it is one event; reading is
// not. An event never carries content, titles or queries: a target is named by its id alone, so a deleted
// document's event says which id went, never what it said. Sources' own deliveries (a webhook, a Notion sync)
// are not events: the person who set the source up is the event.

export const auditActions = [
  "document.created",
  "document.replaced",
  "document.deleted",
  "entry.remembered",
  "entry.forgotten",
  "export",
  "import",
  "key.made",
  "key.revoked",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "passkey.added",
  "passkey.removed",
  "source.set",
  "source.removed",
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * Who acted: a member (a person signed in to the page), a team key, both by id (their names are looked up when
 * the trail is read, so the trail shows the name each has now), or the instance's admin token (its routes make
 * a team and its first invite, and make and revoke a team's keys). OAuth clients join as `oauth` when they
 * can act.
 */
export const actorKinds = ["member", "key", "admin"] as const;
export type ActorKind = (typeof actorKinds)[number];
export interface Actor {
  kind: ActorKind;
  id: string;
}

/** The admin token is one per instance, so it has no id of its own to record; this stands for it. */
export const ADMIN_TOKEN_ACTOR: Actor = { kind: "admin", id: "admin-token" };

export const targetKinds = ["document", "entry", "key", "member", "invite", "passkey", "source"] as const;
export type TargetKind = (typeof targetKinds)[number];

export interface AuditRecord {
  action: AuditAction;
  target?: { kind: TargetKind; id: string };
}

/** The events as the transports record them, so each names its action and target the same way. */
export const events = {
  documentStored: (id: string, created: boolean): AuditRecord => ({
    action: created ? "document.created" : "document.replaced",
    target: { kind: "document", id },
  }),
  documentDeleted: (id: string): AuditRecord => ({
    action: "document.deleted",
    target: { kind: "document", id },
  }),
  entryRemembered: (id: string): AuditRecord => ({
    action: "entry.remembered",
    target: { kind: "entry", id },
  }),
  entryForgotten: (id: string): AuditRecord => ({ action: "entry.forgotten", target: { kind: "entry", id } }),
  exported: { action: "export" } as AuditRecord,
  imported: { action: "import" } as AuditRecord,
  keyMade: (id: string): AuditRecord => ({ action: "key.made", target: { kind: "key", id } }),
  keyRevoked: (id: string): AuditRecord => ({ action: "key.revoked", target: { kind: "key", id } }),
  memberInvited: (inviteId: string): AuditRecord => ({
    action: "member.invited",
    target: { kind: "invite", id: inviteId },
  }),
  memberJoined: (id: string): AuditRecord => ({ action: "member.joined", target: { kind: "member", id } }),
  memberRoleChanged: (id: string): AuditRecord => ({
    action: "member.role_changed",
    target: { kind: "member", id },
  }),
  memberRemoved: (id: string): AuditRecord => ({ action: "member.removed", target: { kind: "member", id } }),
  /** A passkey by the hash of its credential id, as memoria keeps it. */
  passkeyAdded: (id: string): AuditRecord => ({ action: "passkey.added", target: { kind: "passkey", id } }),
  passkeyRemoved: (id: string): AuditRecord => ({
    action: "passkey.removed",
    target: { kind: "passkey", id },
  }),
  /** A source by its kind: a team has at most one of each (`notion`, `webhook`). */
  sourceSet: (source: string): AuditRecord => ({
    action: "source.set",
    target: { kind: "source", id: source },
  }),
  sourceRemoved: (source: string): AuditRecord => ({
    action: "source.removed",
    target: { kind: "source", id: source },
  }),
} as const;
