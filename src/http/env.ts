// The per-request variables every middleware and route can read.

import type { TeamKey } from "../seal/team-key.js";

export interface AppEnv {
  Variables: {
    requestId: string;
    team: TeamKey;
  };
}
