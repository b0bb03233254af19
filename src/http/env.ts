// The per-request variables every middleware and route can read.

import type { Scope } from "../scope.js";
import type { TeamKey } from "../seal/team-key.js";
import type { RequestIdEnv } from "./request-id.js";

export interface AppEnv {
  Variables: RequestIdEnv["Variables"] & {
    team: TeamKey;
    /** The request's key: its id, its scope, and the member who made it (null for a key no member made). */
    key: { keyId: string; scope: Scope; owner: string | null };
    /** Set by the failed-authentication limiter: called once the request's credential has authenticated. */
    credentialAccepted: () => void;
    /**
     * The SHA-256 of the request's bearer credential, set by the authentication that hashed it, so the
     * credential's rate limit counts under it without hashing the secret again.
     */
    credentialHash: string;
    /** Set when the bearer was an OAuth access token: the member's approval it acts under. */
    oauthGrant?: string;
  };
}
