// The generic signed webhook: a team's Standard Webhooks signing secret (made and rotated on request, stored
// sealed), verification of a delivery with the `standardwebhooks` library, and applying a verified event
// exactly once per delivery id.
//
// Delivery ids are kept for 24 hours as blind indexes (`webhook-delivery:<id>` under the team's key), never as
// sent. An id is recorded only once its delivery has been verified and its event is well formed, and it is
// forgotten again when applying the event fails, so a sender's retry of a failed delivery is processed.

import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import { generateWebhookSecret } from "../seal/secret.js";
import { blindIndex, type TeamKey } from "../seal/team-key.js";
import type { SourceSecrets } from "../sources/secrets.js";
import { DuplicateDeliveryError } from "../store/sources.js";
import type { Storage } from "../store/storage.js";
import type { DocumentInput, DocumentService } from "./documents.js";
import type { EntryInput, EntryService } from "./entries.js";
import type { TeamService } from "./teams.js";

const SECRET_KIND = "webhook.secret";
/** How long a delivery id is remembered: a redelivery within this window changes nothing. */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The library's own tolerance for `webhook-timestamp` (WEBHOOK_TOLERANCE_IN_SECONDS, not configurable). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type WebhookEvent =
  | { type: "document.upsert"; document: DocumentInput & { externalId: string } }
  | { type: "document.delete"; externalId: string }
  | { type: "entry.create"; entry: EntryInput };

export type WebhookOutcome =
  | { type: "document.upsert"; documentId: string; created: boolean }
  | { type: "document.delete"; deleted: boolean }
  | { type: "entry.create"; entryId: string };

export type Delivered =
  | ({ duplicate: false } & WebhookOutcome)
  | { duplicate: true; type: WebhookEvent["type"] };

/** The three Standard Webhooks headers, as sent (absent ones as undefined). */
export interface WebhookHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

/** Why a delivery was refused; logged, never told apart in the answer (every refusal is the same 401). */
export type Refusal = "unknown_team" | "no_secret" | "missing_headers" | "stale_timestamp" | "bad_signature";

/** A delivery whose headers passed admit(), for a team with a secret: only its body is left to verify. */
export interface AdmittedDelivery {
  key: TeamKey;
  secret: string;
  id: string;
  timestamp: string;
  signature: string;
}

export type Admitted = { ok: true; delivery: AdmittedDelivery } | { ok: false; refusal: Refusal };

export type Received = { ok: true; delivered: Delivered } | { ok: false; refusal: Refusal };

/** The generic webhook source as its team sees it: whether a secret is set, and since when (never the secret). */
export interface WebhookSource {
  kind: "webhook";
  configured: boolean;
  /** When the current secret was made (ISO-8601); null when none is set. */
  createdAt: string | null;
}

export interface WebhookDeps {
  storage: Storage;
  teams: TeamService;
  secrets: SourceSecrets;
  documents: DocumentService;
  entries: EntryService;
  clock: Clock;
  logger: Logger;
}

/** The least time between two prunings of old delivery ids. */
const PRUNE_INTERVAL_MS = 60_000;

export class WebhookService {
  /** When this process last pruned old delivery ids (epoch ms). */
  #prunedAt = 0;

  constructor(private readonly deps: WebhookDeps) {}

  /** Makes a new signing secret and stores it sealed in place of any before it, which stops working at once. */
  async rotateSecret(key: TeamKey): Promise<string> {
    const secret = generateWebhookSecret();
    await this.deps.secrets.put(key, SECRET_KIND, secret);
    return secret;
  }

  /** Whether the team has a signing secret and when it was made; reads the row without opening it. */
  async source(key: TeamKey): Promise<WebhookSource> {
    const row = await this.deps.storage.sources.get(key.teamId, SECRET_KIND);
    return { kind: "webhook", configured: row !== null, createdAt: row?.updatedAt ?? null };
  }

  /**
   * Forgets the signing secret: every delivery is then refused as having no secret, until the next PUT.
   * Whether there was one.
   */
  async deleteSecret(key: TeamKey): Promise<boolean> {
    return this.deps.secrets.delete(key, [SECRET_KIND]);
  }

  /**
   * Checks what a delivery's headers alone can show, before its body is read (an unauthenticated sender can
   * otherwise make the app take in a whole document-sized body): the three headers are there and could
   * verify, the timestamp is within the tolerance, and the team exists and has a secret. Each refuses only a
   * delivery the library's verify would refuse anyway, so nothing that verified before is refused now.
   * Records nothing.
   */
  async admit(teamId: string, headers: WebhookHeaders): Promise<Admitted> {
    const { id, timestamp, signature } = headers;
    if (!id || !timestamp || !signature || !hasCandidateSignature(signature)) {
      return { ok: false, refusal: "missing_headers" };
    }
    if (!timestampWithinTolerance(timestamp)) return { ok: false, refusal: "stale_timestamp" };
    const key = await this.deps.teams.teamKey(teamId);
    if (!key) return { ok: false, refusal: "unknown_team" };
    const secret = await this.deps.secrets.get(key, SECRET_KIND);
    if (secret === null) return { ok: false, refusal: "no_secret" };
    return { ok: true, delivery: { key, secret, id, timestamp, signature } };
  }

  /**
   * Takes one admitted delivery with its raw body: the signature verified first, then the body parsed by
   * `parse` (the caller's schema, which throws invalid_request and so records nothing), then applied (see
   * #deliver). A refusal is answered, not thrown, so the caller can log its reason before giving the one 401
   * for all of them.
   */
  async receive(
    delivery: AdmittedDelivery,
    payload: string,
    parse: (payload: string) => WebhookEvent,
  ): Promise<Received> {
    const verified = verify(delivery, payload);
    if (!verified.ok) return verified;
    const event = parse(payload);
    return { ok: true, delivered: await this.#deliver(delivery.key, delivery.id, event) };
  }

  /**
   * Applies a verified delivery's event unless its id was seen in the last 24 hours (then nothing is done and
   * the answer says `duplicate`). An entry is stored in one transaction with the record of its delivery id,
   * so it exists exactly when the id is recorded, whatever fails. A document event is idempotent (an upsert,
   * a delete by external id), so its id is recorded first, which makes concurrent redeliveries apply it
   * once; a failure forgets it again and rethrows, so the sender's retry is processed.
   */
  async #deliver(key: TeamKey, deliveryId: string, event: WebhookEvent): Promise<Delivered> {
    const { storage, clock, logger } = this.deps;
    const ref = await blindIndex(key, `webhook-delivery:${deliveryId}`);
    const now = clock.now();
    // Ids older than the window are forgotten for all teams, at most once a minute per process: a delete on
    // every delivery would be a write transaction per delivery on remote storage.
    if (now.getTime() - this.#prunedAt >= PRUNE_INTERVAL_MS) {
      this.#prunedAt = now.getTime();
      await storage.deliveries.prune(new Date(now.getTime() - DELIVERY_WINDOW_MS).toISOString());
    }
    if (event.type === "entry.create") {
      try {
        const entry = await this.deps.entries.create(key, event.entry, {
          delivery: { ref, at: now.toISOString() },
        });
        return { duplicate: false, type: event.type, entryId: entry.id };
      } catch (error) {
        if (error instanceof DuplicateDeliveryError) return { duplicate: true, type: event.type };
        throw error;
      }
    }
    if (!(await storage.deliveries.record(key.teamId, ref, now.toISOString()))) {
      return { duplicate: true, type: event.type };
    }
    try {
      return { duplicate: false, ...(await this.#apply(key, event)) };
    } catch (error) {
      try {
        await storage.deliveries.forget(key.teamId, ref);
      } catch {
        logger.error("webhook delivery failed and its id could not be forgotten", { teamId: key.teamId });
      }
      throw error;
    }
  }

  /** A document event; entries are stored with their delivery record instead (see deliver). */
  async #apply(
    key: TeamKey,
    event: Exclude<WebhookEvent, { type: "entry.create" }>,
  ): Promise<WebhookOutcome> {
    if (event.type === "document.upsert") {
      const { document, created } = await this.deps.documents.create(key, event.document);
      return { type: event.type, documentId: document.id, created };
    }
    return { type: event.type, deleted: await this.deps.documents.deleteByExternalId(key, event.externalId) };
  }
}

/**
 * The signature over the raw body, within the library's 5-minute timestamp tolerance (checked again: a slow
 * body may have outlasted it since admit).
 */
function verify(delivery: AdmittedDelivery, payload: string): { ok: true } | { ok: false; refusal: Refusal } {
  const { secret, id, timestamp, signature } = delivery;
  try {
    new Webhook(secret).verify(
      payload,
      { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature },
      { jsonParse: false },
    );
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      return {
        ok: false,
        refusal: timestampWithinTolerance(timestamp) ? "bad_signature" : "stale_timestamp",
      };
    }
    throw error;
  }
  return { ok: true };
}

// What the library's verify compares: each space-separated `v1,<signature>` (the text between the first and
// a second comma), against the base64 of an HMAC-SHA256, 32 bytes with padding. Any other part never matches.
const CANDIDATE_SIGNATURE = /^[A-Za-z0-9+/]{43}=$/;

/** Whether the header holds a part the library would compare at all. */
function hasCandidateSignature(header: string): boolean {
  return header.split(" ").some((part) => {
    const [version, signature] = part.split(",");
    return version === "v1" && signature !== undefined && CANDIDATE_SIGNATURE.test(signature);
  });
}

/**
 * The library's timestamp rule, exactly: parseInt of the header, at most the tolerance behind or ahead of
 * its own clock, the wall clock (it reads Date.now() and takes no other). The app's injected clock is not
 * used here: the library would still judge by the wall clock, and the two must agree.
 */
function timestampWithinTolerance(timestamp: string): boolean {
  const now = Math.floor(Date.now() / 1000);
  const seconds = Number.parseInt(timestamp, 10);
  if (Number.isNaN(seconds)) return false;
  return now - seconds <= TIMESTAMP_TOLERANCE_SECONDS && seconds <= now + TIMESTAMP_TOLERANCE_SECONDS;
}
