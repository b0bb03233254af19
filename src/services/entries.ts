// Memory entries: seal and store with the change record, then bring the team's live index level before the
// write is acknowledged; reads open the sealed rows.

import { type Actor, events } from "../audit.js";
import type { Clock } from "../clock.js";
import { DomainError } from "../errors.js";
import { newId } from "../ids.js";
import type { LiveIndexes } from "../live/indexes.js";
import type { TeamKey } from "../seal/team-key.js";
import { sealAuditEvents } from "../sealed-rows/audit.js";
import { type EntryContent, openEntry, projectRef, sealEntry } from "../sealed-rows/entries.js";
import { openReadable } from "../sealed-rows/readable.js";
import type { EntryCursor, EntryRow } from "../store/entries.js";
import { pageOf } from "../store/page.js";
import type { Storage } from "../store/storage.js";

export interface EntryInput {
  title: string;
  impact: string | null;
  project: string | null;
  type: string | null;
  body: string | null;
}

export interface EntryView extends EntryContent {
  id: string;
  createdAt: string;
}

export interface EntriesDeps {
  storage: Storage;
  indexes: LiveIndexes;
  clock: Clock;
}

export class EntryService {
  constructor(private readonly deps: EntriesDeps) {}

  /**
   * Stores a new entry. With `delivery` (the blind index of a webhook delivery id), the id is recorded in the
   * same write; a DuplicateDeliveryError means it was recorded before and nothing was stored. With `by`, who
   * remembered it is recorded in the same write too (the audit trail).
   */
  async create(
    key: TeamKey,
    input: EntryInput,
    origin: { delivery?: { ref: Uint8Array; at: string }; by?: Actor } = {},
  ): Promise<EntryView> {
    const { storage, indexes, clock } = this.deps;
    const id = newId("e");
    const content: EntryContent = {
      project: input.project,
      type: input.type,
      title: input.title,
      impact: input.impact,
      body: input.body,
    };
    const row: EntryRow = {
      teamId: key.teamId,
      id,
      createdAt: clock.now().toISOString(),
      projectRef: input.project === null ? null : await projectRef(key, input.project),
      sealed: await sealEntry(key, id, content),
    };
    const event = origin.by
      ? (await sealAuditEvents(key, origin.by, [events.entryRemembered(id)], row.createdAt))[0]
      : undefined;
    await storage.entries.insert(row, origin.delivery, event);
    await indexes.committed(key);
    return { id, createdAt: row.createdAt, ...content };
  }

  /**
   * Stores restored entries (an import) with the ids and creation times they were exported with, in one
   * transaction, then brings the live index level. The caller leaves out ids the team already holds.
   */
  async restoreMany(key: TeamKey, entries: readonly EntryView[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = await Promise.all(
      entries.map(async (entry): Promise<EntryRow> => {
        const content: EntryContent = {
          project: entry.project,
          type: entry.type,
          title: entry.title,
          impact: entry.impact,
          body: entry.body,
        };
        return {
          teamId: key.teamId,
          id: entry.id,
          createdAt: entry.createdAt,
          projectRef: entry.project === null ? null : await projectRef(key, entry.project),
          sealed: await sealEntry(key, entry.id, content),
        };
      }),
    );
    await this.deps.storage.entries.insertMany(rows);
    await this.deps.indexes.committed(key);
  }

  async get(key: TeamKey, id: string): Promise<EntryView> {
    const row = await this.deps.storage.entries.get(key.teamId, id);
    if (!row) throw new DomainError("not_found", `No entry ${id}.`);
    return this.#view(key, row);
  }

  /**
   * Newest first, optionally one project's only. A row that does not open is left out and counted in
   * `unreadable` (see DocumentService.list).
   */
  async list(
    key: TeamKey,
    options: { project: string | null; limit: number; after: EntryCursor | null },
  ): Promise<{ entries: EntryView[]; unreadable: number; next: EntryCursor | null }> {
    const ref = options.project === null ? null : await projectRef(key, options.project);
    const rows = await this.deps.storage.entries.list(key.teamId, options.limit + 1, options.after, ref);
    const { page, next } = pageOf(rows, options.limit);
    const { values, unreadable } = await openReadable(page, (row) => this.#view(key, row));
    return { entries: values, unreadable, next };
  }

  /** Deletes an entry; `by`, who forgot it, is recorded in the delete's own transaction. */
  async delete(key: TeamKey, id: string, by?: Actor): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    const event = by ? (await sealAuditEvents(key, by, [events.entryForgotten(id)], at))[0] : undefined;
    const deleted = await this.deps.storage.entries.delete(key.teamId, id, at, event);
    if (!deleted) throw new DomainError("not_found", `No entry ${id}.`);
    await this.deps.indexes.committed(key);
  }

  async #view(key: TeamKey, row: EntryRow): Promise<EntryView> {
    return { id: row.id, createdAt: row.createdAt, ...(await openEntry(key, row.id, row.sealed)) };
  }
}
