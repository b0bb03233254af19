// Memory entries: short decision, incident and learning records. Everything a person or agent wrote is in the
// sealed blob; readable are the id, the creation time (recency is the order of these two) and a blind index
// of the project, so one project's entries can be listed without the project's name being stored.

export const version = 2;
export const statements = [
  `CREATE TABLE entries (
    team_id TEXT NOT NULL,
    id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    project_ref BLOB,
    sealed BLOB NOT NULL,
    PRIMARY KEY (team_id, id)
  )`,
  "CREATE INDEX entries_newest ON entries (team_id, created_at, id)",
  "CREATE INDEX entries_of_project ON entries (team_id, project_ref, created_at, id) WHERE project_ref IS NOT NULL",
];
