// Keeps a team's Notion pages as documents: a webhook event fetches (or deletes) the one page it names, and
// a pull re-reads every page Notion's search reports edited since the team's last sync, so a missed webhook
// heals at the next reindex. Documents carry externalId `notion:<page id>` and are found through its blind
// index; the newest event time applied per page is kept under the blind index of `notion-page:<page id>`.
// Decisions: docs/decisions/0013-notion-sync.md.

import type { Clock } from "../../clock.js";
import type { DocumentService } from "../../documents/service.js";
import { DomainError, NotFoundError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { blindIndex, type TeamKey } from "../../seal/team-key.js";
import type { Storage } from "../../store/storage.js";
import type { SourceSecrets } from "../secrets.js";
import {
  DEFAULT_NOTION_API_URL,
  NotionApiError,
  NotionClient,
  NotionShapeError,
  type RetryPolicy,
  realSleep,
  type Sleep,
} from "./client.js";
import { type NotionEvent, pageChangeOf } from "./events.js";
import { PageReader } from "./page-reader.js";
import { canonicalId } from "./types.js";

/** Notion rounds edit times to the minute, so a pull looks this far behind the last sync. */
export const SYNC_MARGIN_MS = 60_000;
/** Tries of one page's work after an event, each after the client's own retries ran out. */
export const TASK_ATTEMPTS = 3;
/** The wait before the second try of a page's work; each further one is four times longer. */
export const TASK_RETRY_MS = 2_000;
/** A sync time before every edit: the next pull reads every page (set when a page moves). */
const FULL_PULL = new Date(0).toISOString();

export type EventOutcome =
  /** Not a page event, or one naming no page: acknowledged and ignored. */
  | "ignored"
  /** Older than (or as old as) the newest event applied to the page: ignored. */
  | "stale"
  /** A page event for a team with no Notion token: nothing can be fetched. */
  | "no_token"
  /** The page was fetched and its document stored. */
  | "upserted"
  /** The page's document was deleted (page.deleted, or the page is in the trash or no longer shared). */
  | "deleted";

export interface NotionSyncDeps {
  storage: Storage;
  secrets: SourceSecrets;
  documents: DocumentService;
  clock: Clock;
  logger: Logger;
  /** Notion's API base URL; default https://api.notion.com. */
  apiUrl?: string;
  fetch?: typeof fetch;
  /** How retries wait; tests pass a fast one. */
  sleep?: Sleep;
  retry?: Partial<RetryPolicy>;
}

export const notionExternalId = (pageId: string): string => `notion:${pageId}`;
const pageEventRef = (key: TeamKey, pageId: string) => blindIndex(key, `notion-page:${pageId}`);

/** Errors worth trying the page's work again for: Notion throttled or failed, storage hiccuped. */
function retryable(error: unknown): boolean {
  if (error instanceof DomainError || error instanceof NotionShapeError) return false;
  if (error instanceof NotionApiError) return error.transient;
  return true;
}

function errorFields(error: unknown): Record<string, string | number> {
  if (error instanceof NotionApiError) return { error: error.name, status: error.status };
  return { error: error instanceof Error ? error.name : "unknown" };
}

export class NotionSync {
  /** Work on one page (team and page id) in this process, one at a time and in the order it arrived. */
  readonly #pages = new Map<string, Promise<unknown>>();
  /** A team's pull in progress: a second caller shares it instead of pulling again. */
  readonly #pulls = new Map<string, Promise<number>>();
  readonly #sleep: Sleep;

  constructor(private readonly deps: NotionSyncDeps) {
    this.#sleep = deps.sleep ?? realSleep;
  }

  /**
   * Applies one webhook event: a page event newer than the newest applied to its page fetches the page and
   * upserts its document (or deletes it); anything else is ignored. Events of one page apply one at a time,
   * in the order they reached this call, and the age check runs inside that order.
   */
  applyEvent(key: TeamKey, event: NotionEvent): Promise<EventOutcome> {
    const change = pageChangeOf(event);
    if (change.action === "ignore") return Promise.resolve("ignored");
    const { pageId, at } = change;
    return this.#serially(key.teamId, pageId, async (): Promise<EventOutcome> => {
      const token = change.action === "upsert" ? await this.deps.secrets.get(key, "notion.token") : null;
      if (change.action === "upsert" && token === null) {
        this.deps.logger.warn("notion event without a token", { teamId: key.teamId });
        return "no_token";
      }
      const ref = await pageEventRef(key, pageId);
      if (!(await this.deps.storage.pageEvents.advance(key.teamId, ref, at))) return "stale";
      if (change.action === "delete" || token === null) {
        await this.#retrying(() => this.#deleteDocument(key, pageId));
        return "deleted";
      }
      const reader = new PageReader(this.#client(token));
      const outcome = await this.#retrying(() => this.#syncPage(key, reader, pageId));
      // Its descendants' paths changed too; their edit times did not, so the next pull reads every page.
      if (change.moved) await this.deps.storage.sources.setSyncedAt(key.teamId, "notion.token", FULL_PULL);
      return outcome;
    });
  }

  /**
   * Re-reads every page Notion's search reports edited since the team's last sync, less a minute's margin
   * (every page on the first sync), upserting each page's document, then records the time the pull started
   * as the team's sync time. Returns how many pages were stored or deleted; 0 for a team with no Notion
   * token. A page whose work still fails after its retries is skipped; when the failure was transient the
   * sync time stays where it was, so the next pull tries the page again. Throws when the search itself fails (a revoked token: a
   * NotionApiError with status 401). Concurrent calls for one team share one pull.
   */
  pullSince(key: TeamKey): Promise<number> {
    const running = this.#pulls.get(key.teamId);
    if (running) return running;
    const pull = this.#pull(key).finally(() => this.#pulls.delete(key.teamId));
    this.#pulls.set(key.teamId, pull);
    return pull;
  }

  async #pull(key: TeamKey): Promise<number> {
    const { storage, secrets, clock, logger } = this.deps;
    const token = await secrets.get(key, "notion.token");
    if (token === null) return 0;
    const before = (await storage.sources.get(key.teamId, "notion.token"))?.syncedAt ?? null;
    const startedAt = clock.now().toISOString();
    const since = before === null ? null : Date.parse(before) - SYNC_MARGIN_MS;
    const client = this.#client(token);
    const reader = new PageReader(client);
    let synced = 0;
    let failed = 0;
    let cursor: string | null = null;
    search: do {
      const list = await client.searchPages(cursor);
      for (const found of list.results) {
        // Most recently edited first: the first page older than the margin ends the pull.
        if (since !== null && Date.parse(found.last_edited_time) < since) break search;
        const pageId = canonicalId(found.id);
        if (!pageId) continue;
        try {
          await this.#serially(key.teamId, pageId, () =>
            this.#retrying(() => this.#syncPage(key, reader, pageId)),
          );
          synced++;
        } catch (error) {
          // Only a failure a later pull could get past holds the sync time back; a page that can never be
          // stored (too large, refused) would otherwise make every pull start from the same old time.
          if (retryable(error)) failed++;
          logger.warn("notion page failed to sync", { teamId: key.teamId, ...errorFields(error) });
        }
      }
      cursor = list.has_more && list.next_cursor ? list.next_cursor : null;
    } while (cursor);
    if (failed === 0) {
      // Unless a moved page asked for a full pull meanwhile (or another instance's pull finished first).
      const current = (await storage.sources.get(key.teamId, "notion.token"))?.syncedAt ?? null;
      if (current === before) await storage.sources.setSyncedAt(key.teamId, "notion.token", startedAt);
    }
    logger.info("notion pull", { teamId: key.teamId, synced, failed, full: since === null });
    return synced;
  }

  /** Fetches a page and stores its document, or deletes the document of a page in the trash or gone. */
  async #syncPage(key: TeamKey, reader: PageReader, pageId: string): Promise<"upserted" | "deleted"> {
    let read: Awaited<ReturnType<PageReader["read"]>>;
    try {
      read = await reader.read(pageId);
    } catch (error) {
      // Deleted for good, or no longer shared with the integration: either way not the team's to find.
      if (error instanceof NotionApiError && error.notFound) {
        await this.#deleteDocument(key, pageId);
        return "deleted";
      }
      throw error;
    }
    if ("trashed" in read) {
      await this.#deleteDocument(key, pageId);
      return "deleted";
    }
    await this.deps.documents.create(key, {
      title: read.title,
      content: read.content,
      format: "markdown",
      path: read.path,
      externalId: notionExternalId(pageId),
    });
    return "upserted";
  }

  async #deleteDocument(key: TeamKey, pageId: string): Promise<void> {
    const ref = await blindIndex(key, notionExternalId(pageId));
    const row = await this.deps.storage.documents.findByExternalRef(key.teamId, ref);
    if (!row) return;
    try {
      await this.deps.documents.delete(key, row.id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }

  /** Runs a page's work up to TASK_ATTEMPTS times while it fails with something worth retrying. */
  async #retrying<T>(work: () => Promise<T>): Promise<T> {
    let wait = TASK_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (attempt >= TASK_ATTEMPTS || !retryable(error)) throw error;
        this.deps.logger.warn("notion page work retried", { attempt, ...errorFields(error) });
        await this.#sleep(wait);
        wait *= 4;
      }
    }
  }

  async #serially<T>(teamId: string, pageId: string, task: () => Promise<T>): Promise<T> {
    const lock = `${teamId}/${pageId}`;
    const before = this.#pages.get(lock) ?? Promise.resolve();
    const result = before.then(task, task);
    const tail = result.catch(() => undefined);
    this.#pages.set(lock, tail);
    try {
      return await result;
    } finally {
      if (this.#pages.get(lock) === tail) this.#pages.delete(lock);
    }
  }

  #client(token: string): NotionClient {
    const { apiUrl, fetch, sleep, retry } = this.deps;
    return new NotionClient({
      baseUrl: apiUrl ?? DEFAULT_NOTION_API_URL,
      token,
      ...(fetch ? { fetch } : {}),
      ...(sleep ? { sleep } : {}),
      ...(retry ? { retry } : {}),
    });
  }
}
