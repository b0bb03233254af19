// Page sessions: a person signed in as themselves (a member), or with a team key typed into the sign-in form,
// holds an opaque cookie `<teamId>.<secret>`. The team id is there so the Cloudflare Worker can route a
// cookie-only request to the team's container, as it routes a key by its `mem_<teamId>_` prefix; the secret
// is what signs in. Storage holds the secret's hash and, sealed under the secret (src/seal/page-session.ts),
// who signed in: the key itself, or `member:<id>`. Each request asks again whether that key or member is
// live, so a revoked key, a removed member or a deleted team ends every session made with it on the next
// request, and a role changed applies to the next request.

import type { Actor } from "../audit.js";
import type { Clock } from "../clock.js";
import type { ApiKeyAuthenticator } from "../http/auth.js";
import { teamIdPattern } from "../ids.js";
import { scopeOfRole } from "../role.js";
import type { Scope } from "../scope.js";
import {
  generateSessionSecret,
  openSessionKey,
  type PageSessionKeys,
  pageSessionKeys,
  sealSessionKey,
} from "../seal/page-session.js";
import type { TeamKey } from "../seal/team-key.js";
import type { MemberService, SignedInMember } from "../services/members.js";

/** What the sessions need of storage: src/store/sessions.ts, passed in by createApp. */
export interface SessionStore {
  insert(
    idHash: string,
    row: { teamId: string; sealed: Uint8Array; createdAt: string; seenAt: string },
  ): Promise<void>;
  get(
    idHash: string,
  ): Promise<{ teamId: string; sealed: Uint8Array; createdAt: string; seenAt: string } | null>;
  touch(idHash: string, seenAt: string): Promise<void>;
  delete(idHash: string): Promise<void>;
  deleteIdle(seenBefore: string): Promise<number>;
}

/** 12 hours idle: a working day with its breaks, after which a shared or lost laptop no longer signs in. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** 7 days at most, however busy: a stolen cookie does not live for ever. */
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** Last-seen is written at most once a minute, so a burst of page loads is one write, not one each. */
const TOUCH_EVERY_MS = 60 * 1000;

/** Who a session signed in, shown on every page: a member by name and role, or a key by name and scope. */
export type SignedInAs =
  | { kind: "member"; name: string | null; role: SignedInMember["role"] }
  | { kind: "key"; name: string | null; owner: string | null };

export interface PageSession {
  team: TeamKey;
  /** Who acts: the member, or the key signed in with, by id; the audit trail names them. */
  actor: Actor;
  as: SignedInAs;
  /** What the member's role or the key's scope allows, as of this request (page/scopes.ts checks it). */
  scope: Scope;
  keys: PageSessionKeys;
  /**
   * What its requests count under for the rate limit, for this request only: the team key signed in with
   * (with that key's API requests), or the member.
   */
  credential: string;
}

export interface PageSessionsDeps {
  store: SessionStore;
  directory: ApiKeyAuthenticator;
  members: Pick<MemberService, "live" | "seen">;
  clock: Clock;
}

/** What a member's session seals in place of a key: key text always starts `mem_`, so the two never meet. */
const MEMBER_PREFIX = "member:";

function parseCookie(value: string): { teamId: string; secret: string } | null {
  const dot = value.indexOf(".");
  if (dot < 0) return null;
  const teamId = value.slice(0, dot);
  const secret = value.slice(dot + 1);
  if (!teamIdPattern.test(teamId) || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  return { teamId, secret };
}

export class PageSessions {
  constructor(private readonly deps: PageSessionsDeps) {}

  /** Signs in with a team key: the cookie value of a new session, or null when the key is not a live one. */
  async create(apiKey: string): Promise<string | null> {
    const key = await this.deps.directory.authenticateKey(apiKey);
    return key ? this.#start(key.team, apiKey) : null;
  }

  /** Signs a member in (their password checked, or an invite just spent): the cookie value of a new session. */
  async createForMember(member: SignedInMember): Promise<string> {
    return this.#start(member.team, `${MEMBER_PREFIX}${member.memberId}`);
  }

  async #start(team: TeamKey, who: string): Promise<string> {
    const secret = generateSessionSecret();
    const keys = await pageSessionKeys(secret);
    const now = this.deps.clock.now();
    await this.deps.store.deleteIdle(new Date(now.getTime() - SESSION_IDLE_MS).toISOString());
    await this.deps.store.insert(keys.idHash, {
      teamId: team.teamId,
      sealed: await sealSessionKey(keys, team.teamId, who),
      createdAt: now.toISOString(),
      seenAt: now.toISOString(),
    });
    return `${team.teamId}.${secret}`;
  }

  /** The live session a cookie names, or null (and the row forgotten) when it expired or its key did. */
  async resolve(cookie: string | undefined): Promise<PageSession | null> {
    const parsed = cookie ? parseCookie(cookie) : null;
    if (!parsed) return null;
    const keys = await pageSessionKeys(parsed.secret);
    const row = await this.deps.store.get(keys.idHash);
    if (!row || row.teamId !== parsed.teamId) return null;
    const now = this.deps.clock.now().getTime();
    const seen = Date.parse(row.seenAt);
    const expired = now - seen > SESSION_IDLE_MS || now - Date.parse(row.createdAt) > SESSION_MAX_MS;
    const who = expired ? null : await openSessionKey(keys, row.teamId, row.sealed).catch(() => null);
    const session = who === null ? null : await this.#signedIn(row.teamId, who, keys);
    if (!session) {
      await this.deps.store.delete(keys.idHash);
      return null;
    }
    if (now - seen > TOUCH_EVERY_MS) {
      await this.deps.store.touch(keys.idHash, new Date(now).toISOString());
      if (session.actor.kind === "member") await this.deps.members.seen(session.actor.id);
    }
    return session;
  }

  /** The session of whoever `who` names, if they are still live in team `teamId`. */
  async #signedIn(teamId: string, who: string, keys: PageSessionKeys): Promise<PageSession | null> {
    if (who.startsWith(MEMBER_PREFIX)) {
      const member = await this.deps.members.live(teamId, who.slice(MEMBER_PREFIX.length));
      if (!member) return null;
      return {
        team: member.team,
        actor: { kind: "member", id: member.memberId },
        as: { kind: "member", name: member.name, role: member.role },
        scope: scopeOfRole(member.role),
        keys,
        credential: who,
      };
    }
    const key = await this.deps.directory.authenticateKey(who);
    if (!key || key.team.teamId !== teamId) return null;
    return {
      team: key.team,
      actor: { kind: "key", id: key.keyId },
      as: { kind: "key", name: key.name, owner: key.owner },
      scope: key.scope,
      keys,
      credential: who,
    };
  }

  async end(session: PageSession): Promise<void> {
    await this.deps.store.delete(session.keys.idHash);
  }
}
