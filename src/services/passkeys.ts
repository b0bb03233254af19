// Passkeys (WebAuthn) for members: a signed-in member adds one, and signs in with it later without typing
// anything. `@simplewebauthn/server` verifies each ceremony (every attestation format and key algorithm;
// decision 0101); it is loaded on first use, as its import costs ~380 ms and patches globals. memoria keeps a
// credential under the hash of its id, its public key and counter sealed under the team's key, and each
// challenge as its hash, taken once.

import { events } from "../audit.js";
import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { newId } from "../ids.js";
import { fromBase64, toBase64Url, utf8 } from "../seal/bytes.js";
import { hashSecretNow } from "../seal/secret-hash.js";
import type { TeamKey } from "../seal/team-key.js";
import { sealAuditEvents } from "../sealed-rows/audit.js";
import { openPasskey, sealPasskey } from "../sealed-rows/passkeys.js";
import { openOrNull } from "../sealed-rows/readable.js";
import type { ChallengeRow, PasskeyRow } from "../store/passkeys.js";
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
  members: Pick<MemberService, "live" | "offer" | "joinWithoutPassword" | "wayIn">;
}

type WebAuthn = typeof import("@simplewebauthn/server");
type RegisteredCredential = Extract<
  Awaited<ReturnType<WebAuthn["verifyRegistrationResponse"]>>,
  { verified: true }
>["registrationInfo"]["credential"];

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

  /** Keeps a challenge's hash for its ceremony: of `purpose`, for the member (`teamId`, `memberId`) if any. */
  async #keepChallenge(
    challenge: string,
    purpose: string,
    member: { teamId: string; memberId: string } | null,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const kept = await this.deps.storage.passkeys.putChallenge(
      {
        challengeHash: hashSecretNow(challenge),
        purpose,
        teamId: member?.teamId ?? null,
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
    await this.#keepChallenge(options.challenge, "register", {
      teamId: member.team.teamId,
      memberId: member.memberId,
    });
    return options;
  }

  /** Verifies the browser's new credential and keeps it for the member. */
  async register(member: SignedInMember, response: unknown, rp: RelyingParty): Promise<PasskeyInfo> {
    const credential = await this.#verifyRegistration(
      "register",
      response,
      rp,
      (row) => row.memberId === member.memberId && row.teamId === member.team.teamId,
    );
    return this.#keep(member, credential.info);
  }

  /** A new credential, verified against a challenge of `purpose` that `belongs` accepts; 401 else. */
  async #verifyRegistration(
    purpose: string,
    response: unknown,
    rp: RelyingParty,
    belongs: (row: ChallengeRow) => boolean,
  ): Promise<{ row: ChallengeRow; info: RegisteredCredential }> {
    const webauthn = await this.#load();
    const taken: { row: ChallengeRow | null } = { row: null };
    let verified: Awaited<ReturnType<WebAuthn["verifyRegistrationResponse"]>>;
    try {
      verified = await webauthn.verifyRegistrationResponse({
        response: response as Parameters<WebAuthn["verifyRegistrationResponse"]>[0]["response"],
        expectedChallenge: this.#challengeCheck(purpose, taken),
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
    } catch {
      throw refused();
    }
    if (!verified.verified || !taken.row || !belongs(taken.row)) throw refused();
    return { row: taken.row, info: verified.registrationInfo.credential };
  }

  /** Keeps a verified credential for the member, its key and counter sealed. */
  async #keep(member: SignedInMember, credential: RegisteredCredential): Promise<PasskeyInfo> {
    const row = await this.#passkeyRow(member.team, member.memberId, credential);
    if (!(await this.deps.storage.passkeys.insert(row)))
      throw new DomainError("conflict", "This passkey is already added.");
    return { id: row.idHash, createdAt: row.createdAt, lastUsedAt: null };
  }

  /** A verified credential as its row: under the hash of its id, its member, key and counter sealed. */
  async #passkeyRow(team: TeamKey, memberId: string, credential: RegisteredCredential): Promise<PasskeyRow> {
    const idHash = hashSecretNow(credential.id);
    return {
      idHash,
      teamId: team.teamId,
      memberId,
      sealed: await sealPasskey(team, idHash, {
        memberId,
        publicKey: toBase64Url(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
      }),
      createdAt: this.deps.clock.now().toISOString(),
      lastUsedAt: null,
    };
  }

  /**
   * Options for a person opening an invite to make a passkey and join with it alone: the invite is checked now,
   * and the member's id chosen now (a passkey names its user), kept with the challenge.
   */
  async joinOptions(code: string, person: { name: string }, rp: RelyingParty): Promise<unknown> {
    const { team } = await this.deps.members.offer(code);
    const memberId = newId("m");
    const webauthn = await this.#load();
    const options = await webauthn.generateRegistrationOptions({
      rpName: "memoria",
      rpID: rp.id,
      userName: person.name,
      userID: utf8(memberId),
      attestationType: "none",
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    });
    await this.#keepChallenge(options.challenge, "join", { teamId: team.teamId, memberId });
    return options;
  }

  /**
   * Joins by an invite with a passkey alone: the browser's new credential verified against a join challenge of
   * this invite's team, the member made with the id chosen then, and the passkey kept for them.
   */
  async join(
    code: string,
    person: { name: string; email: string },
    response: unknown,
    rp: RelyingParty,
  ): Promise<SignedInMember> {
    const { team } = await this.deps.members.offer(code);
    const credential = await this.#verifyRegistration(
      "join",
      response,
      rp,
      (row) => row.teamId === team.teamId,
    );
    const memberId = credential.row.memberId;
    if (!memberId) throw refused();
    const row = await this.#passkeyRow(team, memberId, credential.info);
    if (await this.deps.storage.passkeys.exists(row.idHash))
      throw new DomainError("conflict", "This passkey is already added.");
    // The passkey and its event go in the join's own transaction: a member is never left with no way in.
    const [event] = await sealAuditEvents(
      team,
      { kind: "member", id: memberId },
      [events.passkeyAdded(row.idHash)],
      row.createdAt,
    );
    if (!event) throw new Error("a passkey's event was not sealed");
    return this.deps.members.joinWithoutPassword(code, person, memberId, { row, event });
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

  /**
   * Removes one of the member's passkeys; 404 for one they do not have, 409 for the last one of a member who
   * joined with passkeys alone (it is their only way in).
   */
  async remove(member: SignedInMember, id: string): Promise<void> {
    const theirs = await this.deps.storage.passkeys.listOf(member.team.teamId, member.memberId);
    if (
      theirs.length === 1 &&
      theirs[0]?.idHash === id &&
      (await this.deps.members.wayIn(member)) === "passkey"
    )
      throw new DomainError(
        "conflict",
        "This is your only passkey, and you sign in with passkeys alone: add another before removing it.",
      );
    if (!(await this.deps.storage.passkeys.remove(member.team.teamId, member.memberId, id)))
      throw new DomainError("not_found", "No such passkey.");
  }
}
