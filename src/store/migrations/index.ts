// Every migration, in order. A migration is a TypeScript module rather than a .sql file so it travels in
// the bundle on every runtime (Workers and Deno have no file system to read it from).

import * as initial from "./001_initial.js";

export interface Migration {
  version: number;
  statements: string[];
}

export const migrations: Migration[] = [initial];

export const latestSchemaVersion = Math.max(...migrations.map((m) => m.version));
