// Keys with scopes (src/scope.ts): what each key may do, when it stops working, when it was last used, and its
// name sealed under the team's key (a name is something a person typed). Every key made before this migration
// is `admin`, the power it always had, so existing keys and the README's quick start keep working as written.
// Visible at rest: the scope and the two times, beside the id, hash and times the row already held.

export const version = 8;
export const statements = [
  "ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin'",
  "ALTER TABLE api_keys ADD COLUMN expires_at TEXT",
  "ALTER TABLE api_keys ADD COLUMN last_used_at TEXT",
  "ALTER TABLE api_keys ADD COLUMN sealed BLOB",
];
