// Page sessions: a team key typed into the sign-in form becomes an opaque cookie `<teamId>.<secret>`. The team
// id is there so the Cloudflare Worker can route a cookie-only request to the team's container, as it routes
// a key by its `mem_<teamId>_` prefix; the secret is what signs in. Storage holds the secret's hash and the
// key sealed under the secret (src/seal/page-session.ts). Each request re-authenticates the opened key, so a
// revoked key or a deleted team ends every session made with it on the next request.

import type { Clock } from "../clock.js";
import type { ApiKeyAuthenticator } from "../http/auth.js";
import { teamIdPattern } from "../ids.js";
import type { Scope } from "../scope.js";
import {
  generateSessionSecret,
  openSessionKey,
  type PageSessionKeys,
  pageSessionKeys,
  sealSessionKey,
} from "../seal/page-session.js";
import type { TeamKey } from "../seal/team-key.js";

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

export interface PageSession {
  team: TeamKey;
  /** The key signed in with, by id: the audit trail names it as who acted. */
  keyId: string;
  /** Its name, shown on every page (null for a key made without one). */
  keyName: string | null;
  /** What the key signed in with may do, as of this request: the page's actions check it (page/scopes.ts). */
  scope: Scope;
  keys: PageSessionKeys;
  /** The team key it signs in with, for this request only: its requests count under that key's rate limit. */
  apiKey: string;
}

export interface PageSessionsDeps {
  store: SessionStore;
  directory: ApiKeyAuthenticator;
  clock: Clock;
}

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
    if (!key) return null;
    const team = key.team;
    const secret = generateSessionSecret();
    const keys = await pageSessionKeys(secret);
    const now = this.deps.clock.now();
    await this.deps.store.deleteIdle(new Date(now.getTime() - SESSION_IDLE_MS).toISOString());
    await this.deps.store.insert(keys.idHash, {
      teamId: team.teamId,
      sealed: await sealSessionKey(keys, team.teamId, apiKey),
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
    const apiKey = expired ? null : await openSessionKey(keys, row.teamId, row.sealed).catch(() => null);
    const key = apiKey === null ? null : await this.deps.directory.authenticateKey(apiKey);
    if (apiKey === null || !key || key.team.teamId !== row.teamId) {
      await this.deps.store.delete(keys.idHash);
      return null;
    }
    if (now - seen > TOUCH_EVERY_MS) await this.deps.store.touch(keys.idHash, new Date(now).toISOString());
    return { team: key.team, keyId: key.keyId, keyName: key.name, scope: key.scope, keys, apiKey };
  }

  async end(session: PageSession): Promise<void> {
    await this.deps.store.delete(session.keys.idHash);
  }
}
