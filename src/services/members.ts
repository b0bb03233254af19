// A team's people: one-time invites, joining through one with a password, signing in by address and password,
// roles and removal. A member's name, address and password hash are sealed under the team's key; the address is
// found by a keyed hash under an instance key (sign-in names no team). Every change carries its audit event in
// its own transaction, so a member change and its event are stored together or not at all.

import { Limiter } from "../async/pool.js";
import { type Actor, events } from "../audit.js";
import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { newId } from "../ids.js";
import { isRole, type Role, scopeOfRole } from "../role.js";
import { allows, scopes } from "../scope.js";
import type { Keyring } from "../seal/keyring.js";
import { PASSWORD_HASHES_AT_ONCE, type PasswordHasher } from "../seal/password.js";
import { generateSecret } from "../seal/secret.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import type { TeamKey } from "../seal/team-key.js";
import { sealAuditEvents } from "../sealed-rows/audit.js";
import { type MemberContent, openMember, sealMember } from "../sealed-rows/members.js";
import { openOrNull } from "../sealed-rows/readable.js";
import type { AuditRow } from "../store/audit.js";
import { inviteMaker } from "../store/invites.js";
import type { MemberMatch, MemberRow } from "../store/members.js";
import type { PasskeyRow } from "../store/passkeys.js";
import type { Storage } from "../store/storage.js";
import type { OidcIdentity } from "./oidc.js";
import type { TeamService } from "./teams.js";

/** A day: long enough to reach someone in another time zone, short enough that a link forgotten in a chat dies. */
export const INVITE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Password hashes waiting for a slot, at most, beyond which a sign-in or join is refused 503 at once: each
 * waits ~15 ms a hash ahead of it per slot, so 32 is a quarter of a second; a flood past it (many client
 * addresses at once) is answered without queueing memory and time behind it.
 */
export const MAX_WAITING_HASHES = 32;

/** The kinds of value a sign-in hash is of, kept apart from each other and any other kind under the same key. */
const ADDRESS = "email";
const IDENTITY = "oidc";

/** An OpenID Connect account as one value: its issuer and its subject, which only the two together name. */
const identityKey = (identity: OidcIdentity) => `${identity.issuer}\u0000${identity.subject}`;

/** A member as the team sees them (GET /v1/members). */
export interface Member {
  id: string;
  /** Null for a member whose sealed row does not open (listed all the same, so they can be removed). */
  name: string | null;
  role: Role;
  createdAt: string;
  lastSeenAt: string | null;
}

/** A person signed in as themselves: their team's opened key, who they are and what their role lets them do. */
export interface SignedInMember {
  team: TeamKey;
  memberId: string;
  name: string | null;
  role: Role;
}

export interface NewInvite {
  inviteId: string;
  /** The one-time code the link carries; memoria keeps only its hash. */
  code: string;
  role: Role;
  expiresAt: string;
}

export interface JoinInput {
  name: string;
  email: string;
  password: string;
}

export interface MemberDeps {
  storage: Storage;
  keyring: Keyring;
  clock: Clock;
  passwords: PasswordHasher;
  /** Opens a member's team's key, by its id or from its wrapped form. */
  teams: Pick<TeamService, "teamKey" | "openTeamKey" | "forgetTeamKeys">;
}

/** How an address is compared: case and surrounding spaces do not make another person. */
export function normalizeAddress(email: string): string {
  return email.normalize("NFC").trim().toLowerCase();
}

function roleOf(row: { role: string }): Role | null {
  return isRole(row.role) ? row.role : null;
}

export class MemberService {
  readonly #limiter = new Limiter(PASSWORD_HASHES_AT_ONCE);

  constructor(private readonly deps: MemberDeps) {}

  /** A password hash or check in its turn; 503 `unavailable` when too many already wait. */
  #hashing<T>(task: () => Promise<T>): Promise<T> {
    if (this.#limiter.waiting >= MAX_WAITING_HASHES)
      throw new DomainError("unavailable", "Too many sign-ins at once; try again in a moment.");
    return this.#limiter.run(task);
  }

  /** A one-time link's code for whoever opens it first, as `role`, for INVITE_TTL_MS. */
  async invite(team: TeamKey, role: Role, by: Actor): Promise<NewInvite> {
    const now = this.deps.clock.now();
    const inviteId = newId("i");
    const code = generateSecret();
    const expiresAt = new Date(now.getTime() + INVITE_TTL_MS).toISOString();
    const [event] = await sealAuditEvents(team, by, [events.memberInvited(inviteId)], now.toISOString());
    if (!event) throw new Error("an invite's event was not sealed");
    const stored = await this.deps.storage.invites.insert(
      {
        id: inviteId,
        teamId: team.teamId,
        codeHash: hashSecretNow(code),
        role,
        createdAt: now.toISOString(),
        expiresAt,
        usedAt: null,
        createdBy: inviteMaker(by),
      },
      event,
    );
    if (!stored)
      throw new DomainError(
        "forbidden",
        "Whoever made this invite may no longer make invites: it was not made.",
      );
    return { inviteId, code, role, expiresAt };
  }

  /**
   * What an invite's code offers, before it is spent: the team and the role. 404 `not_found` for a code that
   * was never made, whose team is gone, or that was used or expired (the page says which of the last two).
   */
  async offer(code: string): Promise<{ team: TeamKey; role: Role; expiresAt: string }> {
    const invite = await this.deps.storage.invites.find(hashSecretNow(code));
    const role = invite ? roleOf(invite) : null;
    if (!invite || !role) throw new DomainError("not_found", "This invite link is not one memoria made.");
    if (invite.usedAt !== null)
      throw new DomainError("not_found", "This invite link was used already, or withdrawn.");
    if (!(this.deps.clock.now().getTime() < Date.parse(invite.expiresAt)))
      throw new DomainError("not_found", "This invite link has expired; ask for a new one.");
    const team = await this.deps.teams.teamKey(invite.teamId);
    if (!team) throw new DomainError("not_found", "This invite link is not one memoria made.");
    return { team, role, expiresAt: invite.expiresAt };
  }

  /**
   * Spends an invite: a new member with a password, signed in. 404 for an invite that cannot be spent (as
   * `offer`), 409 `conflict` for an address that already signs in to a team on this instance.
   */
  async join(code: string, input: JoinInput): Promise<SignedInMember> {
    const email = normalizeAddress(input.email);
    return this.#join(code, {
      name: input.name,
      email,
      lookup: [ADDRESS, email],
      password: () => this.#hashing(() => this.deps.passwords.hash(input.password)),
      via: "password",
    });
  }

  /**
   * Spends an invite for a person an OpenID Connect provider vouched for: known by (issuer, subject), with the
   * name and address the provider gave (or the subject, when it gave none). 409 when that account already
   * signs in to a team here.
   */
  async joinWithIdentity(code: string, identity: OidcIdentity): Promise<SignedInMember> {
    return this.#join(code, {
      name: identity.name ?? identity.email ?? identity.subject,
      email: identity.email ?? "",
      lookup: [IDENTITY, identityKey(identity)],
      password: () => Promise.resolve(null),
      via: "oidc",
    });
  }

  async #join(
    code: string,
    person: {
      name: string;
      email: string;
      lookup: [string, string];
      password: () => Promise<string | null>;
      via: NonNullable<MemberContent["via"]>;
      /** The new member's id when it was chosen before (a passkey made for them before they joined). */
      memberId?: string;
      /** A passkey they join with, stored in the join's transaction. */
      passkey?: { row: PasskeyRow; event: AuditRow };
    },
  ): Promise<SignedInMember> {
    const invite = await this.deps.storage.invites.find(hashSecretNow(code));
    const { team, role } = await this.offer(code);
    if (!invite) throw new DomainError("not_found", "This invite link is not one memoria made.");
    const hashes = await this.deps.keyring.lookupHashes(...person.lookup);
    if ((await this.deps.storage.members.findBySignIn(hashesOf(hashes))).length > 0) throw addressTaken();
    const memberId = person.memberId ?? newId("m");
    const now = this.deps.clock.now().toISOString();
    const password = await person.password();
    const [event] = await sealAuditEvents(
      team,
      { kind: "member", id: memberId },
      [events.memberJoined(memberId)],
      now,
    );
    if (!event) throw new Error("a join's event was not sealed");
    const row: MemberRow = {
      id: memberId,
      teamId: team.teamId,
      role,
      signInHash: hashes.current,
      sealed: await sealMember(team, memberId, {
        name: person.name,
        email: person.email,
        password,
        via: person.via,
      }),
      createdAt: now,
      lastSeenAt: now,
      removedAt: null,
    };
    const outcome = await this.deps.storage.members.join(invite.id, row, event, person.passkey);
    if (outcome === "address_taken") throw addressTaken();
    if (outcome === "invite_spent")
      throw new DomainError("not_found", "This invite link was used or expired while the form was open.");
    return { team, memberId, name: person.name, role };
  }

  /**
   * Spends an invite for a person who signs in with a passkey alone (made for `memberId` before this, by the
   * caller): their address is kept and reserved, with no password.
   */
  async joinWithoutPassword(
    code: string,
    input: { name: string; email: string },
    memberId: string,
    passkey: { row: PasskeyRow; event: AuditRow },
  ): Promise<SignedInMember> {
    const email = normalizeAddress(input.email);
    return this.#join(code, {
      name: input.name,
      email,
      lookup: [ADDRESS, email],
      password: () => Promise.resolve(null),
      via: "passkey",
      memberId,
      passkey,
    });
  }

  /** How a member signs in, as they joined; null for a row that does not open or is not live. */
  async wayIn(member: SignedInMember): Promise<MemberContent["via"] | null> {
    const row = await this.deps.storage.members.get(member.team.teamId, member.memberId);
    if (!row || row.removedAt !== null) return null;
    const content = await openOrNull(openMember(member.team, row.id, row.sealed));
    return content ? (content.via ?? "password") : null;
  }

  /** The live member an OpenID Connect account signs in, or null when none joined with it. */
  async signInWithIdentity(identity: OidcIdentity): Promise<SignedInMember | null> {
    const found = await this.#find(IDENTITY, identityKey(identity));
    return found.content ? this.#signedIn(found) : null;
  }

  /**
   * The member an address and password sign in, or null. An unknown address, a removed member and a wrong
   * password are refused after the same password check, so the answer's time does not tell them apart.
   */
  async signIn(email: string, password: string): Promise<SignedInMember | null> {
    const found = await this.#find(ADDRESS, normalizeAddress(email));
    const ok = await this.#hashing(() =>
      this.deps.passwords.verify(found.content?.password ?? null, password),
    );
    return ok && found.content ? this.#signedIn(found) : null;
  }

  /**
   * The live member a sign-in identity names, opened: from the row the lookup read, with its team's wrapped
   * key, so a found member costs no further read that an unknown one would not.
   */
  async #find(kind: string, value: string): Promise<Found> {
    const hashes = await this.deps.keyring.lookupHashes(kind, value);
    const [match] = await this.deps.storage.members.findBySignIn(hashesOf(hashes));
    const role = match ? roleOf(match) : null;
    const team =
      match && role ? await openOrNull(this.deps.teams.openTeamKey(match.teamId, match.wrappedKey)) : null;
    const content = match && team ? await openOrNull(openMember(team, match.id, match.sealed)) : null;
    return match && role && team && content
      ? { hashes, match, role, team, content }
      : { hashes, content: null };
  }

  /**
   * A found member signed in: their row moved to the current master key's hash if a rotated-away one found it,
   * and their use recorded. Neither write decides the sign-in: one storage refuses (a fault, a row moved by
   * another sign-in) is tried again at the next.
   */
  async #signedIn(found: Extract<Found, { content: MemberContent }>): Promise<SignedInMember> {
    const { hashes, match, role, team, content } = found;
    if (match.signInHash !== hashes.current) {
      await this.deps.storage.members
        .rehash(match.id, match.signInHash, hashes.current)
        .catch(() => undefined);
    }
    await this.deps.storage.members
      .touch(match.id, this.deps.clock.now().toISOString())
      .catch(() => undefined);
    return { team, memberId: match.id, name: content.name, role };
  }

  /** A live member of the team by id, as they are now (a session asks on every request); null when removed. */
  async live(teamId: string, memberId: string): Promise<SignedInMember | null> {
    const row = await this.deps.storage.members.get(teamId, memberId);
    const role = row && row.removedAt === null ? roleOf(row) : null;
    const team = row && role ? await this.deps.teams.teamKey(teamId) : null;
    if (!row || !role || !team) return null;
    const content = await openOrNull(openMember(team, row.id, row.sealed));
    return { team, memberId, name: content?.name ?? null, role };
  }

  /** Records that a member used the page; at most a write a minute (the session's own touch). */
  async seen(memberId: string): Promise<void> {
    await this.deps.storage.members.touch(memberId, this.deps.clock.now().toISOString());
  }

  /** The team's live members, oldest first. */
  async list(team: TeamKey): Promise<Member[]> {
    const rows = await this.deps.storage.members.list(team.teamId);
    const listed = await Promise.all(
      rows.map(async (row) => {
        const role = roleOf(row);
        if (row.removedAt !== null || !role) return null;
        const content = await openOrNull(openMember(team, row.id, row.sealed));
        return {
          id: row.id,
          name: content?.name ?? null,
          role,
          createdAt: row.createdAt,
          lastSeenAt: row.lastSeenAt,
        };
      }),
    );
    return listed.filter((member) => member !== null);
  }

  /** Every member's name by id, removed ones too: the audit trail names who acted. */
  async names(team: TeamKey): Promise<Map<string, string | null>> {
    const rows = await this.deps.storage.members.list(team.teamId);
    const named = await Promise.all(
      rows.map(
        async (row) =>
          [row.id, (await openOrNull(openMember(team, row.id, row.sealed)))?.name ?? null] as const,
      ),
    );
    return new Map(named);
  }

  /**
   * Gives a member a role: true when it changed, false when they had it. Never the team's last owner. Keys
   * they made above the new role's scope are revoked with the change.
   */
  async changeRole(team: TeamKey, memberId: string, role: Role, by: Actor): Promise<boolean> {
    const now = this.deps.clock.now().toISOString();
    const [event] = await sealAuditEvents(team, by, [events.memberRoleChanged(memberId)], now);
    if (!event) throw new Error("a role change's event was not sealed");
    const above = scopes.filter((scope) => !allows(scopeOfRole(role), scope));
    const outcome = await this.deps.storage.members.setRole(team.teamId, memberId, role, event, above);
    this.deps.teams.forgetTeamKeys(team.teamId);
    return changed(outcome, memberId);
  }

  /**
   * Removes a member: their sessions end on their next request, and the keys they made at once. Never the
   * team's last owner.
   */
  async remove(team: TeamKey, memberId: string, by: Actor): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    const [event] = await sealAuditEvents(team, by, [events.memberRemoved(memberId)], now);
    if (!event) throw new Error("a removal's event was not sealed");
    const outcome = await this.deps.storage.members.remove(team.teamId, memberId, now, event);
    this.deps.teams.forgetTeamKeys(team.teamId);
    changed(outcome, memberId);
  }
}

/** What a sign-in lookup found: the member, opened, or nothing (`content` null). */
type Found =
  | {
      hashes: { current: string; previous: string | null };
      match: MemberMatch;
      role: Role;
      team: TeamKey;
      content: MemberContent;
    }
  | { hashes: { current: string; previous: string | null }; content: null };

function hashesOf(hashes: { current: string; previous: string | null }): string[] {
  return hashes.previous ? [hashes.current, hashes.previous] : [hashes.current];
}

function addressTaken(): DomainError {
  return new DomainError(
    "conflict",
    "This address already signs in to a team here; sign in with it instead.",
  );
}

function changed(outcome: "changed" | "unchanged" | "last_owner" | null, memberId: string): boolean {
  if (outcome === null) throw new DomainError("not_found", `No member ${memberId} in this team.`);
  if (outcome === "last_owner")
    throw new DomainError("conflict", "A team keeps at least one owner: make another member an owner first.");
  return outcome === "changed";
}
