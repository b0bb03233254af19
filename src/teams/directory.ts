// Moved to src/services/teams.ts (TeamService) and src/http/api-key.ts (the key format). Nothing in src/ or
// test/ imports this any more; it stays only for branches still importing it, and can then go.

export { formatApiKey, teamIdOfApiKey } from "../http/api-key.js";
export { type ApiKeyInfo, type Team, TeamService as TeamDirectory } from "../services/teams.js";
