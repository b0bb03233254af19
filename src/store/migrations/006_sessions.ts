// Page sessions (a person signed in through the browser). Readable are only the hash of the session's secret,
// the team it belongs to and two times; the team key the session signs in with is sealed under a key derived
// from the secret, which only the person's cookie holds (src/seal/page-session.ts).

export const version = 6;
export const statements = [
  `CREATE TABLE page_sessions (
    id_hash TEXT PRIMARY KEY,
    team_id TEXT NOT NULL,
    sealed BLOB NOT NULL,
    created_at TEXT NOT NULL,
    seen_at TEXT NOT NULL
  )`,
  "CREATE INDEX page_sessions_by_team ON page_sessions (team_id)",
  "CREATE INDEX page_sessions_by_age ON page_sessions (seen_at)",
];
