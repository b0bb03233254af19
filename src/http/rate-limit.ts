// Rate limits (docs/api.md, "Every answer"): 429 `rate_limited` with `Retry-After` in seconds.
//
// - Per credential: MEMORIA_RATE_LIMIT requests a minute for each team key, and for the admin and the cron
//   token alike, counted once the credential has authenticated (so a guess never spends a real key's budget).
// - Failed authentications per client address: 30 a minute. A request that presented credentials which did
//   not authenticate counts one; from the 31st on, every request with credentials from that address is
//   answered 429 before any key is checked, until the window passes. Guessing is then bounded by 30 tries a
//   minute per address (a security probe measured 526 wrong keys a second on one connection). Only
//   failures count: a request whose credential authenticated is out of the reckoning at once, however long
//   it then runs (30 slow valid uploads once locked their whole address out).
// - Page requests count under the signed-in session's team key, with that key's API requests, or its member.
// - Failed password sign-ins per account: 10 a minute. An address's guesses spread over many client addresses
//   (a botnet) stop at 10 a minute for the account, where the per-address limit alone would let each client
//   address try 30; from the 11th on, that account's sign-in is refused before any password is hashed, the
//   right password included, until the window passes. The account is counted under a hash of its address,
//   in memory only.
//
// Counters live in memory, per process: on Cloudflare each team has its own container, so per process is per
// team; behind several Node instances the limits are per instance. Why fixed windows, the address rule and
// the bounds: docs/decisions/0018-rate-limits.md.

import type { Context, MiddlewareHandler } from "hono";
import type { Clock } from "../clock.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import { bearerToken } from "./bearer.js";
import { clientAddress } from "./client-address.js";
import type { AppEnv } from "./env.js";
import { errorResponse } from "./errors.js";

/** Both limits count over a minute, as docs/api.md states them. */
export const RATE_WINDOW_MS = 60_000;

/** Failed authentications a minute per client address (docs/api.md: fixed, not configurable). */
export const AUTH_FAILURES_PER_MINUTE = 30;

/**
 * Passkey ceremonies a client address may start a minute (sign-in and join options, which need no credential
 * and each keep a challenge for five minutes): a person needs one or two; without it one address could fill
 * the instance's bound on waiting challenges and hold everyone's passkey sign-in up.
 */
export const CEREMONY_STARTS_PER_MINUTE = 20;

/**
 * Client metadata documents an address may have this instance fetch a minute (an app's `client_id` URL not yet
 * cached, named by an authorization request, which needs no credential): a person connects an app or two; without
 * it one address could make the instance fetch from anywhere public without bound.
 */
export const DOCUMENT_FETCHES_PER_MINUTE = 20;

/**
 * Failed password sign-ins a minute per account: a person mistyping tries two or three times; ten a minute is
 * 14,400 guesses a day at most, against argon2id and a 12-character minimum.
 */
export const ACCOUNT_FAILURES_PER_MINUTE = 10;

// At most this many addresses (or credentials) are counted at once; a new one past it evicts the one whose
// window began longest ago. An entry is a 64-character key and two numbers, about 200 bytes, so the table
// stays near 2 MB however many addresses a flood uses. Evicting only hands an address a fresh budget, which
// an attacker with that many addresses could get anyway by moving to an unused one.
export const MAX_COUNTED_KEYS = 10_000;

export type LimitName = "credential" | "auth_failures";

interface Window {
  startedAt: number;
  count: number;
}

export interface FixedWindowOptions {
  /** Hits allowed per window. */
  limit: number;
  windowMs: number;
  /** Keys counted at once; the oldest window goes first. */
  maxKeys: number;
  clock: Clock;
}

/**
 * Counts hits per key in fixed windows that begin at a key's first hit. Fixed rather than sliding: one number
 * per key, and a `Retry-After` that is exact (the window's end) rather than an estimate.
 */
export class FixedWindowCounter {
  // Insertion order is window start order: a restarted window is deleted and set again, so the first entry is
  // always the oldest window, and eviction is O(1).
  readonly #windows = new Map<string, Window>();

  constructor(private readonly options: FixedWindowOptions) {}

  /** Counts one hit; answers the seconds to wait when this hit is over the limit, else null. */
  hit(key: string): number | null {
    const now = this.options.clock.now().getTime();
    let window = this.#live(key, now);
    if (!window) {
      window = { startedAt: now, count: 0 };
      this.#windows.set(key, window);
      if (this.#windows.size > this.options.maxKeys) {
        const oldest = this.#windows.keys().next().value;
        if (oldest !== undefined) this.#windows.delete(oldest);
      }
    }
    window.count += 1;
    return window.count > this.options.limit ? this.#retryAfter(window, now) : null;
  }

  /**
   * Without counting: the seconds to wait when the key has used its whole allowance, `alsoPending` hits not
   * yet counted included, else null.
   */
  exhausted(key: string, alsoPending = 0): number | null {
    const now = this.options.clock.now().getTime();
    const window = this.#live(key, now);
    const used = (window?.count ?? 0) + alsoPending;
    if (used < this.options.limit) return null;
    // Pending attempts with no window yet: the window they will open is a full one from now.
    return window ? this.#retryAfter(window, now) : Math.ceil(this.options.windowMs / 1000);
  }

  /** Keys counted now (at most maxKeys). */
  get size(): number {
    return this.#windows.size;
  }

  #live(key: string, now: number): Window | undefined {
    const window = this.#windows.get(key);
    if (window && now - window.startedAt >= this.options.windowMs) {
      this.#windows.delete(key);
      return undefined;
    }
    return window;
  }

  #retryAfter(window: Window, now: number): number {
    // Whole seconds, rounded up, and at least 1: a client told 0 would retry at once.
    return Math.max(1, Math.ceil((window.startedAt + this.options.windowMs - now) / 1000));
  }
}

export interface RateLimitDeps {
  clock: Clock;
  /** MEMORIA_RATE_LIMIT: requests a minute per credential; 0 turns that limit off. */
  perCredential: number;
  /** MEMORIA_TRUST_PROXY: the header holding the client's address, or null for the socket's. */
  trustProxy: string | null;
  /** Told of every 429 this answers, for the metrics. */
  onLimited?: (limit: LimitName) => void;
}

export interface RateLimits {
  /** App-wide, before any route: refuses credentials from an address over its failures; counts new ones. */
  authFailures: MiddlewareHandler<AppEnv>;
  /** Wraps an authentication middleware: once it has let a request through, counts it for its credential. */
  perCredential(auth: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv>;
  /**
   * For a credential authenticated another way (a page session's key): marks the request as no failed
   * attempt and counts it under the credential; the 429 to answer when that is over its limit, else null.
   */
  credentialLimited<E extends AppEnv>(c: Context<E>, secret: string): Promise<Response | null>;
  /** Failed password sign-ins per account (a normalised address): checked before a password is hashed. */
  accounts: AccountFailures;
  /** Counts a passkey ceremony started from the request's address: the 429 to answer when over, else null. */
  ceremonyStarted<E extends AppEnv>(c: Context<E>): Response | null;
  /** Counts a client metadata document fetched for the request's address: the 429 when over, else null. */
  documentFetched<E extends AppEnv>(c: Context<E>): Response | null;
}

export interface AccountFailures {
  /** The seconds to wait when the account has used its failures this minute, else null. */
  locked(account: string): number | null;
  /** Counts one failed sign-in of the account. */
  failed(account: string): void;
}

/**
 * Requests that try a credential: a bearer header, a webhook delivery (its path token or its signature is the
 * credential), a sign-in on the page (a key, or an address and password, in a form), or an invite's code spent. Their failures are what the per-address limit
 * counts, whatever carries the credential.
 */
function presentsCredentials(c: Context<AppEnv>): boolean {
  if (c.req.header("authorization") !== undefined) return true;
  const path = c.req.path;
  return (
    path.startsWith("/v1/webhooks/") ||
    path === "/page/oidc/callback" ||
    (c.req.method === "POST" &&
      (path === "/page/sign-in" ||
        path === "/page/passkey/sign-in" ||
        path.startsWith("/page/invite/") ||
        // A client's secret (401 invalid_client when wrong). A code's or refresh token's invalid_grant (400)
        // is not counted: they are 256 random bits, past guessing, and hosted MCP clients share a few egress
        // addresses, which one user sending bad codes through them would otherwise lock out for everyone.
        path === "/oauth/token" ||
        path === "/oauth/revoke"))
  );
}

/**
 * A credential that did not hold: 401, or the 404 a webhook path answers for a wrong team or token (it says
 * no more than "no such route", so a caller cannot tell a team id from a guess).
 */
function failedAuthentication(c: Context<AppEnv>): boolean {
  const path = c.req.path;
  return (
    c.res.status === 401 ||
    (c.res.status === 404 && (path.startsWith("/v1/webhooks/") || path.startsWith("/page/invite/"))) ||
    // An address already taken, said on an invite's form: counted, so one invite cannot test addresses
    // without bound.
    (c.res.status === 409 && path.startsWith("/page/invite/"))
  );
}

function rateLimited<E extends AppEnv>(c: Context<E>, retryAfter: number, message: string): Response {
  const response = errorResponse(c, "rate_limited", message);
  response.headers.set("retry-after", String(retryAfter));
  return response;
}

export function rateLimits(deps: RateLimitDeps): RateLimits {
  const failures = new FixedWindowCounter({
    limit: AUTH_FAILURES_PER_MINUTE,
    windowMs: RATE_WINDOW_MS,
    maxKeys: MAX_COUNTED_KEYS,
    clock: deps.clock,
  });
  const credentials = new FixedWindowCounter({
    limit: deps.perCredential,
    windowMs: RATE_WINDOW_MS,
    maxKeys: MAX_COUNTED_KEYS,
    clock: deps.clock,
  });

  // Attempts from each address not yet decided: counted against its allowance too, so guesses sent all at once
  // cannot each pass the check before the first of them has failed. An attempt leaves this count as soon as
  // its credential has authenticated (perCredential tells it), so valid requests in flight — 30 slow uploads
  // — are never counted against the address. A webhook delivery is told so by its route once admitted on
  // its headers (its signature, checked over its body, is still counted when it fails); any other attempt
  // leaves the count when answered.
  const pending = new Map<string, number>();

  const authFailures: MiddlewareHandler<AppEnv> = async (c, next) => {
    // Only requests that present credentials are counted or refused: a client sending none is not guessing,
    // and must not lock out others behind the same address (a NAT, an office proxy).
    if (!presentsCredentials(c)) return next();
    const address = clientAddress(c, deps.trustProxy);
    // No address at all only happens in process (app.request() in a test): one bucket shared by every such
    // request would let one client lock out all the others, so they are not counted.
    if (address === null) return next();
    const inFlight = pending.get(address) ?? 0;
    const wait = failures.exhausted(address, inFlight);
    if (wait !== null) {
      deps.onLimited?.("auth_failures");
      return rateLimited(c, wait, "Too many failed authentications from this address; retry later.");
    }
    pending.set(address, inFlight + 1);
    let decided = false;
    const decide = () => {
      if (decided) return;
      decided = true;
      const left = (pending.get(address) ?? 1) - 1;
      if (left > 0) pending.set(address, left);
      else pending.delete(address);
    };
    c.set("credentialAccepted", decide);
    try {
      await next();
    } finally {
      decide();
    }
    if (failedAuthentication(c)) failures.hit(address);
  };

  /**
   * Counts one request for a credential, under its hash (given when the authentication already made it):
   * the seconds to wait when it is over its limit, else null.
   */
  const credentialHit = (secret: string, secretHash?: string): number | null => {
    if (deps.perCredential === 0) return null;
    // Counted under the credential's hash, so the table never holds a key or a token itself.
    const wait = credentials.hit(secretHash ?? hashSecretNow(secret));
    if (wait !== null) deps.onLimited?.("credential");
    return wait;
  };

  const perCredential = (auth: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> => {
    return (c, next) =>
      auth(c, async () => {
        // Authenticated: from here on this request is no failed attempt, however long it takes.
        c.get("credentialAccepted")?.();
        const wait = credentialHit(bearerToken(c.req.header("authorization")) ?? "", c.get("credentialHash"));
        if (wait === null) return next();
        c.res = rateLimited(c, wait, "Too many requests for this key; retry later.");
      });
  };

  const credentialLimited = async <E extends AppEnv>(
    c: Context<E>,
    secret: string,
  ): Promise<Response | null> => {
    (c as unknown as Context<AppEnv>).get("credentialAccepted")?.();
    const wait = credentialHit(secret);
    return wait === null ? null : rateLimited(c, wait, "Too many requests for this key; retry later.");
  };

  const accountFailures = new FixedWindowCounter({
    limit: ACCOUNT_FAILURES_PER_MINUTE,
    windowMs: RATE_WINDOW_MS,
    maxKeys: MAX_COUNTED_KEYS,
    clock: deps.clock,
  });
  // Counted under a hash of the address, so the table never holds an address itself.
  const accountKey = (account: string) => hashSecretNow(`account\u0000${account}`);
  const accounts: AccountFailures = {
    locked: (account) => {
      const wait = accountFailures.exhausted(accountKey(account));
      if (wait !== null) deps.onLimited?.("auth_failures");
      return wait;
    },
    failed: (account) => {
      accountFailures.hit(accountKey(account));
    },
  };

  /** A per-address counter of something a request starts with no credential, answering 429 past `limit`. */
  const perAddress = (limit: number, message: string) => {
    const counter = new FixedWindowCounter({
      limit,
      windowMs: RATE_WINDOW_MS,
      maxKeys: MAX_COUNTED_KEYS,
      clock: deps.clock,
    });
    return <E extends AppEnv>(c: Context<E>): Response | null => {
      const address = clientAddress(c as unknown as Context, deps.trustProxy);
      // In process (no address): not counted, as the failure limit does not count it either.
      if (address === null) return null;
      const wait = counter.hit(address);
      if (wait === null) return null;
      deps.onLimited?.("auth_failures");
      return rateLimited(c, wait, message);
    };
  };
  const ceremonyStarted = perAddress(
    CEREMONY_STARTS_PER_MINUTE,
    "Too many passkey sign-ins started from this address; retry later.",
  );
  const documentFetched = perAddress(
    DOCUMENT_FETCHES_PER_MINUTE,
    "Too many apps' metadata documents fetched for this address; retry later.",
  );

  return { authFailures, perCredential, credentialLimited, accounts, ceremonyStarted, documentFetched };
}
