// Members: the people of a team, each with a role (src/role.ts), and the one-time invites that bring them in.
// A member's name, sign-in address and password hash are sealed under the team's key, bound to the row; the
// address is found by a keyed hash under an instance key derived from the master key (a sign-in names no team,
// so no team key can hash it). An invite's code is stored as its SHA-256 alone. A key a member made names them
// in `owner`. An invite names who made it (`member:<id>`, `key:<id>` or the admin token), so removing a member,
// changing their role or revoking a key withdraws the invites it made and nobody has spent.
// Visible at rest: ids, teams, roles, times, hashes; never a name, an address or a password.

export const version = 10;
export const statements = [
  `CREATE TABLE members (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL,
    role TEXT NOT NULL,
    sign_in_hash TEXT NOT NULL,
    sealed BLOB NOT NULL,
    created_at TEXT NOT NULL,
    last_seen_at TEXT,
    removed_at TEXT
  )`,
  // One live member an address on an instance: signing in names an address and a password, not a team.
  "CREATE UNIQUE INDEX members_by_sign_in ON members (sign_in_hash) WHERE removed_at IS NULL",
  "CREATE INDEX members_of_team ON members (team_id, created_at, id)",
  `CREATE TABLE invites (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL,
    code_hash TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    member_id TEXT,
    created_by TEXT NOT NULL
  )`,
  "CREATE INDEX invites_of_team ON invites (team_id, created_at)",
  "ALTER TABLE api_keys ADD COLUMN owner TEXT",
];
