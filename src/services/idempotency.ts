// Idempotency keys: a client's retry of a write, sent with the Idempotency-Key of the first try, answers what
// the first try answered instead of writing again (docs/api.md, Additions v1.1; docs/decisions/0017). The key and
// the request it came with are kept as keyed hashes under the team's key, the answer sealed, for 24 hours.
//
// A request claims its key before it is handled (a pending row; the table's primary key makes the claim
// atomic), so two requests with one key never both write: the second is told the first is in progress.

import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import { constantTimeEqual, toHex } from "../seal/bytes.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import { openAnswer, type StoredAnswer, sealAnswer } from "../sealed-rows/idempotency.js";
import type { Storage } from "../store/storage.js";

/** How long a key is remembered: Stripe's window, and the one docs/api.md names. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * How long a pending claim holds its key before another request may take it over: a claim this old belongs
 * to a process that died mid-request. Nothing bounds how long a live request is answered (Node's 300 s
 * requestTimeout only bounds receiving it), and a 500-document batch behind a large team's cold build can
 * take minutes, so the bound is far above any answer measured: half an hour. A process that died holds its
 * keys that long, and a retry in the meantime is told the first request is in progress.
 */
export const PENDING_STALE_MS = 30 * 60 * 1000;
/** The least time between two prunings of expired keys (a delete per request would be a write per request). */
const PRUNE_INTERVAL_MS = 60_000;
/**
 * How often begin() tries to claim a key it found released between its claim and its read. Each round
 * follows a request that gave the key up, so running out means the key is being retried without pause.
 */
const CLAIM_ATTEMPTS = 3;

/** The parts of a request that must be the same for a retry to be the same request. */
export interface IdempotentRequest {
  method: string;
  /** The path and query string. */
  target: string;
  contentType: string;
  body: Uint8Array;
}

/** A key this request holds: complete it with the answer, or release it. */
export interface IdempotencyClaim {
  key: TeamKey;
  keyRef: Uint8Array;
  claimedAt: string;
}

export type Begun =
  | { kind: "claimed"; claim: IdempotencyClaim }
  | { kind: "replay"; answer: StoredAnswer }
  /** The key was used with another request. */
  | { kind: "mismatch" }
  /** The key's first request is still being answered. */
  | { kind: "in_progress" };

export interface IdempotencyDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
}

export class IdempotencyService {
  /** When this process last pruned expired keys (epoch ms). */
  #prunedAt = 0;

  constructor(private readonly deps: IdempotencyDeps) {}

  /** Claims the key for this request, or says why not: a replay of the first answer, another body, or busy. */
  async begin(key: TeamKey, idempotencyKey: string, request: IdempotentRequest): Promise<Begun> {
    const { storage, clock } = this.deps;
    const now = clock.now().getTime();
    if (now - this.#prunedAt >= PRUNE_INTERVAL_MS) {
      this.#prunedAt = now;
      await storage.idempotency.prune(new Date(now - IDEMPOTENCY_WINDOW_MS).toISOString());
    }
    const keyRef = await blindIndex(key, `idempotency-key:${idempotencyKey}`);
    const requestRef = await this.#requestRef(key, request);
    const claimedAt = new Date(now).toISOString();
    const reclaim = {
      expiredBefore: new Date(now - IDEMPOTENCY_WINDOW_MS).toISOString(),
      staleBefore: new Date(now - PENDING_STALE_MS).toISOString(),
    };
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      if (await storage.idempotency.claim(key.teamId, keyRef, requestRef, claimedAt, reclaim)) {
        return { kind: "claimed", claim: { key, keyRef, claimedAt } };
      }
      const row = await storage.idempotency.get(key.teamId, keyRef);
      // Released (its request failed) between our claim and our read: try to claim it again.
      if (!row) continue;
      if (!constantTimeEqual(row.requestRef, requestRef)) return { kind: "mismatch" };
      if (row.sealed === null) return { kind: "in_progress" };
      return { kind: "replay", answer: await openAnswer(key, keyRef, row.sealed) };
    }
    return { kind: "in_progress" };
  }

  /**
   * Remembers the claim's answer. A failure to store it is logged and swallowed after giving the key up:
   * the write it answers has been made, and failing its answer would make the client retry a write that
   * succeeded (a retry without the remembered answer writes again, which is what it would do with no key).
   */
  async complete(claim: IdempotencyClaim, answer: StoredAnswer): Promise<void> {
    const { storage, logger } = this.deps;
    try {
      const sealed = await sealAnswer(claim.key, claim.keyRef, answer);
      if (!(await storage.idempotency.complete(claim.key.teamId, claim.keyRef, claim.claimedAt, sealed))) {
        logger.warn("idempotency key was taken over before its answer was stored", {
          teamId: claim.key.teamId,
        });
      }
    } catch (error) {
      logger.error("idempotency answer could not be stored", {
        teamId: claim.key.teamId,
        error: error instanceof Error ? error.name : "unknown",
      });
      await this.release(claim);
    }
  }

  /** Gives the key up (its request stored nothing); a failure leaves the claim to go stale, and is logged. */
  async release(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.deps.storage.idempotency.release(claim.key.teamId, claim.keyRef, claim.claimedAt);
    } catch (error) {
      this.deps.logger.error("idempotency key could not be released", {
        teamId: claim.key.teamId,
        error: error instanceof Error ? error.name : "unknown",
      });
    }
  }

  /**
   * The request's keyed hash: method, target and content type as text, the body as its SHA-256, so a retry
   * must match byte for byte. Keyed like a blind index, so a stored hash cannot be checked against guesses.
   */
  async #requestRef(key: TeamKey, request: IdempotentRequest): Promise<Uint8Array> {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(request.body)));
    return blindIndex(
      key,
      `idempotency-request:${request.method}\n${request.target}\n${request.contentType}\n${toHex(digest)}`,
    );
  }
}
