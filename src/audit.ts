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
  "oauth.approved",
  "oauth.refreshed",
  "oauth.replayed",
  "oauth.revoked",
  "oauth.signed_out",
  "passkey.added",
  "passkey.removed",
  "source.set",
  "source.removed",
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * Who acted: a member (a person signed in to the page), a team key, both by id (their names are looked up when
 * the trail is read, so the trail shows the name each has now), or the instance's admin token (its routes make
 * a team and its first invite, and make and revoke a team's keys), or an OAuth client acting on a member's approval
 * (`oauth`, by the approval's id; named by the client's name).
 */
export const actorKinds = ["member", "key", "admin", "oauth"] as const;
export type ActorKind = (typeof actorKinds)[number];
export interface Actor {
  kind: ActorKind;
  id: string;
}

/** The admin token is one per instance, so it has no id of its own to record; this stands for it. */
export const ADMIN_TOKEN_ACTOR: Actor = { kind: "admin", id: "admin-token" };

/** `client` is an OAuth approval, by its id (a member's approval of one client). */
export const targetKinds = [
  "document",
  "entry",
  "key",
  "member",
  "invite",
  "passkey",
  "source",
  "client",
] as const;
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
  /** A member let an OAuth client act for them (or renewed that approval, perhaps at another scope). */
  clientApproved: (grantId: string): AuditRecord => ({
    action: "oauth.approved",
    target: { kind: "client", id: grantId },
  }),
  /** A client spent a refresh token of its approval on a new pair. */
  clientRefreshed: (grantId: string): AuditRecord => ({
    action: "oauth.refreshed",
    target: { kind: "client", id: grantId },
  }),
  /**
   * A code or refresh token came back after it was spent: two parties held it, so the family it started was
   * ended. The approval stays; the client signs in again.
   */
  clientReplayed: (grantId: string): AuditRecord => ({
    action: "oauth.replayed",
    target: { kind: "client", id: grantId },
  }),
  /** An approval revoked (the app disconnected): its tokens end, and the app must be approved again. */
  clientRevoked: (grantId: string): AuditRecord => ({
    action: "oauth.revoked",
    target: { kind: "client", id: grantId },
  }),
  /** A client revoked its own token (RFC 7009): that sign-in ended; the approval stays. */
  clientSignedOut: (grantId: string): AuditRecord => ({
    action: "oauth.signed_out",
    target: { kind: "client", id: grantId },
  }),
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
