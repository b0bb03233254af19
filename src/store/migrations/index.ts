// Every migration, in order. A migration is a TypeScript module rather than a .sql file so it travels in
// the bundle on every runtime (Workers and Deno have no file system to read it from).

import * as initial from "./001_initial.js";
import * as entries from "./002_entries.js";
import * as sources from "./003_sources.js";
import * as sourcePaths from "./004_source_paths.js";
import * as idempotency from "./005_idempotency.js";
import * as sessions from "./006_sessions.js";
import * as indexSnapshots from "./007_index_snapshots.js";
import * as keyScopes from "./008_key_scopes.js";
import * as auditEvents from "./009_audit_events.js";
import * as members from "./010_members.js";
import * as passkeys from "./011_passkeys.js";
import * as oauth from "./012_oauth.js";

export interface Migration {
  version: number;
  statements: string[];
}

export const migrations: Migration[] = [
  initial,
  entries,
  sources,
  sourcePaths,
  idempotency,
  sessions,
  indexSnapshots,
  keyScopes,
  auditEvents,
  members,
  passkeys,
  oauth,
];

export const latestSchemaVersion = Math.max(...migrations.map((m) => m.version));
