// Passkeys (WebAuthn) for members: a signed-in member adds one, and signs in with it later without typing
// anything. `@simplewebauthn/server` verifies each ceremony (every attestation format and key algorithm;
// decision 0101); it is loaded on first use, as its import costs ~380 ms and patches globals. memoria keeps a
// credential under the hash of its id, its public key and counter sealed under the team's key, and each
// challenge as its hash, taken once.

import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { fromBase64, toBase64Url, utf8 } from "../seal/bytes.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import { openPasskey, sealPasskey } from "../sealed/passkeys.js";
import { openOrNull } from "../sealed/readable.js";
import type { ChallengeRow } from "../store/passkeys.js";
import type { Storage } from "../store/storage.js";
import type { MemberService, SignedInMember } from "./members.js";
import type { TeamService } from "./teams.js";

/** Five minutes: a person finds their phone or security key and answers its prompt well within it. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/**
 * Challenges waiting at once, at most: a sign-in start needs no credential, so without a bound a flood of starts
 * would grow the table without end. 10,000 in five minutes is 33 a second, far past people signing in.
 */
export const MAX_WAITING_CHALLENGES = 10_000;

/** The relying party a ceremony is for: the page's host name and its origin, as the browser sees them. */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** A passkey as its member sees it: when it was added and last used, by its id's hash. */
export interface PasskeyInfo {
  id: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface PasskeyDeps {
  storage: Storage;
  clock: Clock;
  teams: Pick<TeamService, "openTeamKey">;
  members: Pick<MemberService, "live">;
}

type WebAuthn = typeof import("@simplewebauthn/server");

/**
 * What the library's verification answers when a response does not hold: a refusal, never its message, which
 * can echo the expected challenge.
 */
function refused(): DomainError {
  return new DomainError("unauthorized", "The passkey was not accepted.");
}

export class PasskeyService {
  #webauthn: Promise<WebAuthn> | null = null;

  constructor(private readonly deps: PasskeyDeps) {}

  #load(): Promise<WebAuthn> {
    this.#webauthn ??= import("@simplewebauthn/server");
    return this.#webauthn;
  }

  async #keepChallenge(challenge: string, purpose: string, member: SignedInMember | null): Promise<void> {
    const now = this.deps.clock.now();
    const kept = await this.deps.storage.passkeys.putChallenge(
      {
        challengeHash: hashSecretNow(challenge),
        purpose,
        teamId: member?.team.teamId ?? null,
        memberId: member?.memberId ?? null,
        expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS).toISOString(),
      },
      now.toISOString(),
      MAX_WAITING_CHALLENGES,
    );
    if (!kept)
      throw new DomainError("unavailable", "Too many passkey sign-ins at once; try again in a minute.");
  }

  /**
   * The check `expectedChallenge` runs on the challenge the browser signed: taken from storage (so used once),
   * of this purpose, unexpired. The row taken is kept in `taken`.
   */
  #challengeCheck(purpose: string, taken: { row: ChallengeRow | null }) {
    return async (challenge: string): Promise<boolean> => {
      const row = await this.deps.storage.passkeys.takeChallenge(hashSecretNow(challenge));
      taken.row = row;
      return (
        row !== null && row.purpose === purpose && this.deps.clock.now().getTime() < Date.parse(row.expiresAt)
      );
    };
  }

  /** Options for a signed-in member's browser to make a passkey (navigator.credentials.create). */
  async registrationOptions(member: SignedInMember, rp: RelyingParty): Promise<unknown> {
    const webauthn = await this.#load();
    const options = await webauthn.generateRegistrationOptions({
      rpName: "memoria",
      rpID: rp.id,
      userName: member.name ?? "member",
      // The member's id, the same for each of their passkeys, so an authenticator replaces rather than adds.
      userID: utf8(member.memberId),
      attestationType: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    });
    await this.#keepChallenge(options.challenge, "register", member);
    return options;
  }

  /** Verifies the browser's new credential and keeps it for the member. */
  async register(member: SignedInMember, response: unknown, rp: RelyingParty): Promise<PasskeyInfo> {
    const webauthn = await this.#load();
    const taken: { row: ChallengeRow | null } = { row: null };
    let verified: Awaited<ReturnType<WebAuthn["verifyRegistrationResponse"]>>;
    try {
      verified = await webauthn.verifyRegistrationResponse({
        response: response as Parameters<WebAuthn["verifyRegistrationResponse"]>[0]["response"],
        expectedChallenge: this.#challengeCheck("register", taken),
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
    } catch {
      throw refused();
    }
    if (
      !verified.verified ||
      taken.row?.memberId !== member.memberId ||
      taken.row.teamId !== member.team.teamId
    )
      throw refused();
    const { credential } = verified.registrationInfo;
    const idHash = hashSecretNow(credential.id);
    const now = this.deps.clock.now().toISOString();
    const stored = await this.deps.storage.passkeys.insert({
      idHash,
      teamId: member.team.teamId,
      memberId: member.memberId,
      sealed: await sealPasskey(member.team, idHash, {
        memberId: member.memberId,
        publicKey: toBase64Url(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
      }),
      createdAt: now,
      lastUsedAt: null,
    });
    if (!stored) throw new DomainError("conflict", "This passkey is already added.");
    return { id: idHash, createdAt: now, lastUsedAt: null };
  }

  /** Options for a signed-out browser to sign in with any passkey it holds for this page (discoverable). */
  async signInOptions(rp: RelyingParty): Promise<unknown> {
    const webauthn = await this.#load();
    const options = await webauthn.generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: "required",
    });
    await this.#keepChallenge(options.challenge, "sign-in", null);
    return options;
  }

  /** The live member a passkey's signed answer signs in; 401 for anything else. */
  async signIn(response: unknown, rp: RelyingParty): Promise<SignedInMember> {
    const id = (response as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || id.length === 0 || id.length > 1024) throw refused();
    const idHash = hashSecretNow(id);
    const match = await this.deps.storage.passkeys.find(idHash);
    const team = match ? await openOrNull(this.deps.teams.openTeamKey(match.teamId, match.wrappedKey)) : null;
    const stored = match && team ? await openOrNull(openPasskey(team, idHash, match.sealed)) : null;
    if (!match || !team || !stored || stored.memberId !== match.memberId) throw refused();
    const webauthn = await this.#load();
    const taken: { row: ChallengeRow | null } = { row: null };
    let verified: Awaited<ReturnType<WebAuthn["verifyAuthenticationResponse"]>>;
    try {
      verified = await webauthn.verifyAuthenticationResponse({
        response: response as Parameters<WebAuthn["verifyAuthenticationResponse"]>[0]["response"],
        expectedChallenge: this.#challengeCheck("sign-in", taken),
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        credential: {
          id,
          publicKey: fromBase64(stored.publicKey) ?? new Uint8Array(),
          counter: stored.counter,
        },
      });
    } catch {
      throw refused();
    }
    if (!verified.verified) throw refused();
    const member = await this.deps.members.live(match.teamId, match.memberId);
    if (!member) throw refused();
    const moved = await this.deps.storage.passkeys.used(
      idHash,
      match.sealed,
      await sealPasskey(team, idHash, { ...stored, counter: verified.authenticationInfo.newCounter }),
      this.deps.clock.now().toISOString(),
    );
    // Another sign-in with this passkey moved its counter meanwhile: one answer signs in once.
    if (!moved) throw refused();
    return member;
  }

  /** The member's passkeys, oldest first. */
  async listOf(member: SignedInMember): Promise<PasskeyInfo[]> {
    const rows = await this.deps.storage.passkeys.listOf(member.team.teamId, member.memberId);
    return rows.map((row) => ({ id: row.idHash, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt }));
  }

  /** Removes one of the member's passkeys; 404 for one they do not have. */
  async remove(member: SignedInMember, id: string): Promise<void> {
    if (!(await this.deps.storage.passkeys.remove(member.team.teamId, member.memberId, id)))
      throw new DomainError("not_found", "No such passkey.");
  }
}
