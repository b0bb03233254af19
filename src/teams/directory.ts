// Moved to src/services/teams.ts (TeamService). Kept only for importers outside the service-layer change
// (src/http/auth.ts, test/runtime/worker-routing.test.ts) until they import from there; add nothing here.

export {
  type ApiKeyInfo,
  formatApiKey,
  type Team,
  TeamService as TeamDirectory,
  teamIdOfApiKey,
} from "../services/teams.js";
