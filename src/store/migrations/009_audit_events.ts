// The audit trail (src/audit.ts): one row an event, its actor, action and target sealed under the team's key.
// Visible at rest: the team, the event's id (random for each request, then its place in it) and the time; not who
// acted, nor what they did, nor to which row.
// Append-only in the schema itself: an update is refused always, a delete while the team exists (deleting a
// team deletes its key row first, then its rows, this table's among them).

export const version = 9;
export const statements = [
  `CREATE TABLE audit_events (
    team_id TEXT NOT NULL,
    id TEXT NOT NULL,
    at TEXT NOT NULL,
    sealed BLOB NOT NULL,
    PRIMARY KEY (team_id, id)
  )`,
  // The trail is read newest first, a page at a time (GET /v1/audit).
  "CREATE INDEX audit_events_by_time ON audit_events (team_id, at, id)",
  `CREATE TRIGGER audit_events_never_updated BEFORE UPDATE ON audit_events
   BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END`,
  `CREATE TRIGGER audit_events_kept_with_team BEFORE DELETE ON audit_events
   WHEN EXISTS (SELECT 1 FROM teams WHERE id = OLD.team_id)
   BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END`,
];
