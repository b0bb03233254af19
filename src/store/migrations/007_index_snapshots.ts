// Sealed index snapshots (src/sealed-rows/snapshots.ts): per team, a readable head naming the current snapshot, the
// format it was written in, the change-log seq it reflects, its part count and size — metadata only — and the
// sealed parts themselves. A new snapshot's parts are written under a new id before its head points at it, so
// a reader never meets half of one.

export const version = 7;
export const statements = [
  `CREATE TABLE index_snapshots (
    team_id TEXT PRIMARY KEY,
    snapshot_id TEXT NOT NULL,
    format TEXT NOT NULL,
    seq INTEGER NOT NULL,
    parts INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    created_at TEXT NOT NULL
  )`,
  `CREATE TABLE index_snapshot_parts (
    team_id TEXT NOT NULL,
    snapshot_id TEXT NOT NULL,
    part INTEGER NOT NULL,
    sealed BLOB NOT NULL,
    PRIMARY KEY (team_id, snapshot_id, part)
  )`,
];
