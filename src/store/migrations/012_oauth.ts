// MCP clients that sign in (OAuth 2.1). An approval (`oauth_grants`) is one member letting one client act for
// them at a scope; what the client is (its id, name and where it is sent back) is sealed under the team's key,
// and found again by the team's blind index of its id.
// Codes, access tokens and refresh tokens are rows of `oauth_tokens` under the SHA-256 of the token alone; a
// code's PKCE challenge and redirect URI are sealed. A family is what one code started: every token a refresh
// rotated out of it, so a refresh token used twice (stolen, or replayed) ends the whole family. Clients that
// register dynamically are not stored: their record travels sealed inside the client id they are given.
// Visible at rest: ids, teams, members, scopes, the resource URL, times and hashes.

export const version = 12;
export const statements = [
  `CREATE TABLE oauth_grants (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL,
    member_id TEXT NOT NULL,
    client_ref BLOB NOT NULL,
    scope TEXT NOT NULL,
    sealed BLOB NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  )`,
  "CREATE INDEX oauth_grants_of_team ON oauth_grants (team_id, created_at, id)",
  // A member's one live approval of one client, found by the team's blind index of the client id.
  "CREATE UNIQUE INDEX oauth_grants_of_client ON oauth_grants (team_id, member_id, client_ref) WHERE revoked_at IS NULL",
  `CREATE TABLE oauth_tokens (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    team_id TEXT NOT NULL,
    grant_id TEXT NOT NULL,
    family_id TEXT NOT NULL,
    resource TEXT NOT NULL,
    sealed BLOB,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  )`,
  "CREATE INDEX oauth_tokens_of_family ON oauth_tokens (family_id)",
  "CREATE INDEX oauth_tokens_of_grant ON oauth_tokens (grant_id)",
  // Expired rows are cleared by time as new ones are made.
  "CREATE INDEX oauth_tokens_by_expiry ON oauth_tokens (expires_at)",
];
