// The Notion source as a team sees it: its integration token (stored sealed), the secret webhook path Notion
// is given, the verification token Notion's handshake sent, and the intake of Notion's webhook deliveries.
// The webhook carries no bearer credential, so its URL is the first one: /v1/webhooks/notion/{teamId}/{token}
// with an unguessable token made at PUT (a team id is no secret, it is in every API key). Every other path,
// an unknown team and a wrong token answer the same 404. At that URL the first delivery is the verification
// handshake, kept sealed, and every later one must be signed with it or is refused with nothing processed.
// A verified event is accepted at once and its page read after (see Background), by NotionSync.
// Decisions: docs/decisions/0013-notion-sync.md.

import { DomainError, isDomainError } from "../errors.js";
import { generateSecret, tokensEqual } from "../seal/secret.js";
import type { TeamKey } from "../seal/team-key.js";
import type { Background, WaitUntil } from "../sources/background.js";
import { eventSchema, verificationSchema } from "../sources/notion/events.js";
import { signatureValid } from "../sources/notion/signature.js";
import type { NotionSync } from "../sources/notion/sync.js";
import type { SourceSecrets } from "../sources/secrets.js";
import type { TeamService } from "./teams.js";

export interface NotionSource {
  kind: "notion";
  /** Whether Notion's webhook verification token has been received. */
  verified: boolean;
}

export interface NotionSourceDetail extends NotionSource {
  /** The token Notion sent in its handshake; null until the handshake has arrived. */
  verificationToken: string | null;
  /** The secret last segment of the team's webhook path, /v1/webhooks/notion/{teamId}/{urlToken}. */
  urlToken: string;
}

/** A delivery to the team's Notion webhook, as received. */
export interface NotionDelivery {
  /**
   * Reads the body's bytes as sent (the signature covers them, never a re-encoding of the JSON); called
   * only once the team is known, so a delivery for no team is refused without reading its body.
   */
  readBody: () => Promise<Uint8Array<ArrayBuffer>>;
  /** The X-Notion-Signature header; absent on the handshake. */
  signature: string | undefined;
  /** The runtime's waitUntil (a Worker's), or null where there is none. */
  runtime: WaitUntil | null;
}

export interface NotionDeps {
  teams: TeamService;
  secrets: SourceSecrets;
  notion: NotionSync;
  background: Background;
}

/** The body as JSON, or undefined when it is not JSON. */
function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * One answer for an unknown team, a wrong URL token and a team without one, and the same as for a path the
 * app does not serve (src/app.ts): a caller probing cannot tell a team id that exists from one that does not.
 */
const NO_WEBHOOK = "No such route.";

/** Notion's verification request: an object with a verification token and nothing that makes it an event. */
function handshakeToken(body: unknown): string | null {
  if (typeof body !== "object" || body === null || "type" in body) return null;
  const parsed = verificationSchema.safeParse(body);
  return parsed.success ? parsed.data.verification_token : null;
}

export class NotionService {
  constructor(private readonly deps: NotionDeps) {}

  /**
   * Stores the team's integration token, sealed, and makes the team's webhook URL token unless one is
   * stored. A token different from the stored one clears the team's sync time, so the next pull reads every
   * page; the same token again keeps it. A stored URL token and verification token are kept, so a Notion
   * token can be replaced without touching the subscription; DELETE makes both anew.
   */
  async putToken(key: TeamKey, token: string): Promise<NotionSource> {
    const { secrets } = this.deps;
    let stored: string | null;
    try {
      stored = await secrets.get(key, "notion.token");
    } catch (error) {
      // A row that no longer opens is replaced like any other token.
      if (!isDomainError(error, "unreadable")) throw error;
      stored = null;
    }
    const replaced = stored === null || !(await tokensEqual(token, stored));
    await secrets.put(key, "notion.token", token, { resetSync: replaced });
    await secrets.putIfAbsent(key, "notion.url", generateSecret());
    const verified = await secrets.has(key.teamId, "notion.verification");
    return { kind: "notion", verified };
  }

  /** The team's Notion source with its verification token; not_found when no Notion token is stored. */
  async source(key: TeamKey): Promise<NotionSourceDetail> {
    const { secrets } = this.deps;
    if (!(await secrets.has(key.teamId, "notion.token"))) {
      throw new DomainError("not_found", "No Notion token is stored; PUT /v1/sources/notion first.");
    }
    const verificationToken = await secrets.get(key, "notion.verification");
    // A token stored before URL tokens existed (v1) has none yet: made here once, as PUT would have.
    const urlToken =
      (await secrets.get(key, "notion.url")) ??
      (await secrets.putIfAbsent(key, "notion.url", generateSecret()));
    return { kind: "notion", verified: verificationToken !== null, verificationToken, urlToken };
  }

  /**
   * Forgets the token, the URL token, the verification token and every page's newest event time, so a new
   * subscription starts clean: a new URL, a new handshake, and no page held back by an old event's time.
   * Whether there was a source (nothing stored is nothing to forget).
   */
  async deleteToken(key: TeamKey): Promise<boolean> {
    const had = await this.deps.secrets.delete(key, ["notion.token", "notion.url", "notion.verification"]);
    await this.deps.notion.forgetPages(key.teamId);
    return had;
  }

  /**
   * Takes one delivery to the team's Notion webhook at /v1/webhooks/notion/{teamId}/{urlToken}: the
   * handshake's verification token is stored (once, and only for a team with a Notion token), and a signed
   * event is handed to the sync in the background. `not_found` (one answer for all, before the body is read)
   * for an unknown team or a URL token that is not the team's; `unauthorized` for a handshake without a
   * Notion token, or a bad or missing signature; `conflict` for a different verification token than the
   * stored one; `invalid_request` for an event dated more than MAX_EVENT_LEAD_MS ahead, which is not recorded.
   */
  async receive(teamId: string, urlToken: string, delivery: NotionDelivery): Promise<void> {
    const { teams, secrets, notion, background } = this.deps;
    const key = await teams.teamKey(teamId);
    if (!key) throw new DomainError("not_found", NO_WEBHOOK);
    const expected = await secrets.get(key, "notion.url");
    if (expected === null || !(await tokensEqual(urlToken, expected))) {
      throw new DomainError("not_found", NO_WEBHOOK);
    }
    const raw = await delivery.readBody();
    const body = parseJson(raw);

    const offered = handshakeToken(body);
    if (offered !== null) {
      // The URL token is made and forgotten with the Notion token; checked still, so a handshake never
      // verifies a source that has nothing to read with.
      if (!(await secrets.has(key.teamId, "notion.token"))) throw new DomainError("unauthorized");
      const stored = await secrets.putIfAbsent(key, "notion.verification", offered);
      if (!(await tokensEqual(offered, stored))) {
        throw new DomainError(
          "conflict",
          "A different verification token is stored; DELETE /v1/sources/notion before verifying again.",
        );
      }
      return;
    }

    const verification = await secrets.get(key, "notion.verification");
    if (verification === null || !(await signatureValid(raw, delivery.signature, verification))) {
      throw new DomainError("unauthorized");
    }
    if (body === undefined)
      throw new DomainError("invalid_request", "Invalid request: the body is not JSON.");
    const event = eventSchema.safeParse(body);
    // Kept as its page's newest time, it would make every genuine event before that time look stale.
    if (event.success && notion.datedAhead(event.data)) {
      throw new DomainError(
        "invalid_request",
        "Invalid request: timestamp is more than 5 minutes after this server's clock.",
      );
    }
    // A signed delivery of a kind this code does not know is acknowledged, so Notion does not resend it.
    if (event.success) {
      background.run(
        "notion event",
        async () => {
          await notion.applyEvent(key, event.data);
        },
        delivery.runtime,
      );
    }
  }
}
