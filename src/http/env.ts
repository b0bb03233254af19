// The per-request variables every middleware and route can read.

import type { TeamKey } from "../seal/team-key.js";
import type { RequestIdEnv } from "./request-id.js";

export interface AppEnv {
  Variables: RequestIdEnv["Variables"] & {
    team: TeamKey;
  };
}
