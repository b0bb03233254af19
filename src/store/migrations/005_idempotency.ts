// Idempotency keys: per team, the keyed hash of a client's Idempotency-Key, the keyed hash of the request it
// came with (method, path, content type and body bytes), when it was first seen, and the sealed answer once
// there is one (null while the first request is still being answered). Nothing readable: the key, the
// request and the answer (which holds titles) are all hashed or sealed under the team's key.

export const version = 5;
export const statements = [
  `CREATE TABLE idempotency_keys (
    team_id TEXT NOT NULL,
    key_ref BLOB NOT NULL,
    request_ref BLOB NOT NULL,
    created_at TEXT NOT NULL,
    sealed BLOB,
    PRIMARY KEY (team_id, key_ref)
  )`,
  "CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)",
];
