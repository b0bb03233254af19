// Moved to src/services/teams.ts (TeamService). Kept only for importers outside the service-layer change
// (src/http/auth.ts, test/runtime/worker-routing.test.ts) until they import from there; add nothing here.

export { formatApiKey, teamIdOfApiKey } from "../http/api-key.js";
export { type ApiKeyInfo, type Team, TeamService as TeamDirectory } from "../services/teams.js";
