// The per-request variables every middleware and route can read.

import type { TeamKey } from "../seal/team-key.js";
import type { RequestIdEnv } from "./request-id.js";

export interface AppEnv {
  Variables: RequestIdEnv["Variables"] & {
    team: TeamKey;
    /** Set by the failed-authentication limiter: called once the request's credential has authenticated. */
    credentialAccepted: () => void;
    /**
     * The SHA-256 of the request's bearer credential, set by the authentication that hashed it, so the
     * credential's rate limit counts under it without hashing the secret again.
     */
    credentialHash: string;
  };
}
