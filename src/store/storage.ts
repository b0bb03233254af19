// The storage handle the rest of memoria is given: one client, the row modules over it, and a readiness
// probe. Built once at start and passed in through createApp's dependencies.

import type { Client } from "@libsql/client";
import { ChangeLog } from "./changes.js";
import { openClient, type StorageOptions } from "./client.js";
import { DocumentRows } from "./documents.js";
import { EntryRows } from "./entries.js";
import { IdempotencyRows } from "./idempotency.js";
import { migrate } from "./migrate.js";
import { DeliveryRows, PageEventRows, SourceRows } from "./sources.js";
import { TeamRows } from "./teams.js";

export class Storage {
  readonly teams: TeamRows;
  readonly documents: DocumentRows;
  readonly entries: EntryRows;
  readonly changes: ChangeLog;
  readonly sources: SourceRows;
  readonly pageEvents: PageEventRows;
  readonly deliveries: DeliveryRows;
  readonly idempotency: IdempotencyRows;

  constructor(readonly client: Client) {
    this.teams = new TeamRows(client);
    this.documents = new DocumentRows(client);
    this.entries = new EntryRows(client);
    this.changes = new ChangeLog(client);
    this.sources = new SourceRows(client);
    this.pageEvents = new PageEventRows(client);
    this.deliveries = new DeliveryRows(client);
    this.idempotency = new IdempotencyRows(client);
  }

  async ping(): Promise<void> {
    await this.client.execute("SELECT 1");
  }

  close(): void {
    this.client.close();
  }
}

/** Opens storage and brings its schema up to date; a schema newer than this code is a startup error. */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  const client = openClient(options);
  try {
    await migrate(client);
  } catch (error) {
    client.close();
    throw error;
  }
  return new Storage(client);
}
