// Passkeys (WebAuthn): a member's credentials, and the challenges of ceremonies under way. A credential is found
// by the SHA-256 of its id (the browser sends the id back at each sign-in); its public key and counter are
// sealed under the team's key, bound to the row, as a key swapped in would sign anyone in. A challenge is kept
// as its SHA-256 for five minutes and taken once.
// Visible at rest: the hashes, the team, the member, the purpose and the times.

export const version = 11;
export const statements = [
  `CREATE TABLE passkeys (
    id_hash TEXT PRIMARY KEY,
    team_id TEXT NOT NULL,
    member_id TEXT NOT NULL,
    sealed BLOB NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  )`,
  "CREATE INDEX passkeys_of_member ON passkeys (team_id, member_id, created_at)",
  `CREATE TABLE passkey_challenges (
    challenge_hash TEXT PRIMARY KEY,
    purpose TEXT NOT NULL,
    team_id TEXT,
    member_id TEXT,
    expires_at TEXT NOT NULL
  )`,
  // Expired challenges are cleared by time before each new one is kept.
  "CREATE INDEX passkey_challenges_by_expiry ON passkey_challenges (expires_at)",
];
