// Note sources: the credentials and secrets a team gives memoria (sealed, one row per kind), the newest event
// applied per Notion page (found by the page id's blind index), and the generic webhook's recent delivery ids
// (blind-indexed too), so a redelivery changes nothing.

export const version = 3;
export const statements = [
  `CREATE TABLE sources (
    team_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    synced_at TEXT,
    sealed BLOB NOT NULL,
    PRIMARY KEY (team_id, kind)
  )`,
  `CREATE TABLE source_pages (
    team_id TEXT NOT NULL,
    page_ref BLOB NOT NULL,
    event_at TEXT NOT NULL,
    PRIMARY KEY (team_id, page_ref)
  )`,
  `CREATE TABLE webhook_deliveries (
    team_id TEXT NOT NULL,
    delivery_ref BLOB NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (team_id, delivery_ref)
  )`,
  "CREATE INDEX webhook_deliveries_by_age ON webhook_deliveries (received_at)",
];
