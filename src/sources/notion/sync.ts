// Keeps a team's Notion pages as documents: a webhook event reads the one page it names and stores its
// document, or deletes it when Notion has the page in the trash or no longer answers for it (a page.deleted
// event is confirmed that way too), and a pull re-reads every page Notion's search reports edited since the
// team's last sync, so a missed webhook heals at the next reindex. Documents carry externalId `notion:<page id>` and are found through its blind
// index; the newest event time applied per page is kept under the blind index of `notion-page:<page id>`.
// Decisions: docs/decisions/0013-notion-sync.md.

import { Limiter } from "../../async/pool.js";
import { KeyedSerialQueue } from "../../async/serial-queue.js";
import type { Clock } from "../../clock.js";
import { isDomainError } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { blindIndex, type TeamKey } from "../../seal/team-key.js";
import type { Storage } from "../../store/storage.js";
import type { SourceSecrets } from "../secrets.js";
import {
  DEFAULT_NOTION_API_URL,
  ListingCursors,
  NotionApiError,
  NotionClient,
  NotionListingError,
  NotionShapeError,
  type RetryPolicy,
  realSleep,
  type Sleep,
} from "./client.js";
import { isDatedAhead, type NotionEvent, pageChangeOf } from "./events.js";
import { PageReader } from "./page-reader.js";
import { canonicalId, type NotionPage } from "./types.js";

/** Notion rounds edit times to the minute, so a pull looks this far behind the last sync. */
export const SYNC_MARGIN_MS = 60_000;
/** Tries of one page's work after an event, each after the client's own retries ran out. */
export const TASK_ATTEMPTS = 3;
/** The wait before the second try of a page's work; each further one is four times longer. */
export const TASK_RETRY_MS = 2_000;
/** A sync time before every edit: the next pull reads every page (set when a page moves). */
export const FULL_PULL = new Date(0).toISOString();
/**
 * Page syncs (events and pulls alike) one team may have in flight in this process. Notion allows an
 * integration about three requests a second on average and a page sync is at least two (the page, its
 * blocks); a burst of events fired all at once would mostly be answered 429 and spend its retries waiting.
 */
export const PAGE_SYNCS_PER_TEAM = 2;
/**
 * The most search requests one pull makes (1 000, so up to 100 000 pages at NOTION_PAGE_SIZE). At Notion's
 * rate limit, reading that many pages (two requests or more each) takes most of a day; a search still
 * saying `has_more` after that is not ending. The pull stops there (as it does on a repeated cursor), logs
 * it, and keeps the team's sync time, so no page edited since the last sync is skipped for good.
 */
export const MAX_SEARCH_REQUESTS = 1_000;

export type EventOutcome =
  /** Not a page event, or one naming no page: acknowledged and ignored. */
  | "ignored"
  /** Dated more than MAX_EVENT_LEAD_MS ahead of the clock: not recorded, nothing fetched. */
  | "ahead"
  /** Older than (or as old as) the newest event applied to the page: ignored. */
  | "stale"
  /** A page event for a team with no Notion token: nothing can be fetched. */
  | "no_token"
  /** The page was fetched and its document stored (for page.deleted too, when Notion still has it live). */
  | "upserted"
  /** The page's document was deleted: Notion has the page in the trash, or answers 404 for it. */
  | "deleted"
  /**
   * A newer event for the page was recorded (by another instance) while this one fetched: nothing written,
   * as the newer event's own processing writes the newer state.
   */
  | "superseded";

/**
 * What the sync asks of the documents service (DocumentService answers it): declared here so this
 * integration does not import the service layer that uses it.
 */
export interface NotionDocuments {
  /** Stores the page's document, or replaces the one holding the same externalId. */
  create(
    key: TeamKey,
    input: { title: string; content: string; format: "markdown"; path: string[]; externalId: string },
  ): Promise<unknown>;
  /** Deletes the document holding externalId; false when none does. */
  deleteByExternalId(key: TeamKey, externalId: string): Promise<boolean>;
}

export interface NotionSyncDeps {
  storage: Storage;
  secrets: SourceSecrets;
  documents: NotionDocuments;
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
  if (isDomainError(error) || error instanceof NotionShapeError) return false;
  if (error instanceof NotionListingError) return false;
  if (error instanceof NotionApiError) return error.transient;
  return true;
}

function errorFields(error: unknown): Record<string, string | number> {
  if (error instanceof NotionApiError) return { error: error.name, status: error.status };
  if (error instanceof NotionListingError) return { error: error.name, reason: error.reason };
  return { error: error instanceof Error ? error.name : "unknown" };
}

/** What a page sync is given besides the page id. */
interface PageWork {
  /** The page object a search already returned: the reader does not ask for it again. */
  known?: NotionPage;
  /** Checked after the fetch and before any write; false skips the write ("superseded"). */
  stillNewest?: () => Promise<boolean>;
}

export class NotionSync {
  /** Work on one page (team and page id) in this process, one at a time and in the order it arrived. */
  readonly #pages = new KeyedSerialQueue();
  /** A team's pull in progress: a second caller shares it instead of pulling again. */
  readonly #pulls = new Map<string, Promise<number>>();
  /** Each team's page syncs in flight, at most PAGE_SYNCS_PER_TEAM (kept only while a team has some). */
  readonly #slots = new Map<string, Limiter>();
  readonly #sleep: Sleep;

  constructor(private readonly deps: NotionSyncDeps) {
    this.#sleep = deps.sleep ?? realSleep;
  }

  /**
   * Applies one webhook event: a page event newer than the newest applied to its page reads the page and
   * upserts its document, or deletes it when Notion has the page in the trash or answers 404 — for
   * page.deleted too, so a forged or overtaken delete cannot remove a page Notion still has live. Anything
   * else is ignored. Events of one page apply one at a time in this process, in the order they reached
   * this call, and the age check runs inside that order; across instances, the write is skipped when a
   * newer event for the page was recorded while this one fetched.
   */
  applyEvent(key: TeamKey, event: NotionEvent): Promise<EventOutcome> {
    const change = pageChangeOf(event);
    if (change.action === "ignore") return Promise.resolve("ignored");
    // The webhook refuses these before they get here (NotionService); checked again where the time is kept.
    if (this.datedAhead(event)) return Promise.resolve("ahead");
    const { pageId, at } = change;
    const { storage, secrets, logger } = this.deps;
    return this.#pages.run(`${key.teamId}/${pageId}`, async (): Promise<EventOutcome> => {
      // Without a token nothing can be read, and a delete that cannot be confirmed is not applied.
      const token = await secrets.get(key, "notion.token");
      if (token === null) {
        logger.warn("notion event without a token", { teamId: key.teamId });
        return "no_token";
      }
      // Its descendants' paths changed too; their edit times did not, so the next pull reads every page. Set
      // before the fetch, so a fetch that fails still leaves the full pull asked for — and for a move older
      // than the page's newest event too, since that newer event refreshed only the page's own path.
      if (change.moved) await storage.sources.setSyncedAt(key.teamId, "notion.token", FULL_PULL);
      const ref = await pageEventRef(key, pageId);
      if (!(await storage.pageEvents.advance(key.teamId, ref, at))) return "stale";
      const reader = new PageReader(this.#client(token));
      // Another instance may record a newer event for the page while this one fetches; its own processing
      // then writes the newer state, and this older read must not land after it.
      const stillNewest = async () => (await storage.pageEvents.newest(key.teamId, ref)) === at;
      return this.#retrying(() =>
        this.#limited(key.teamId, () => this.#syncPage(key, reader, pageId, { stillNewest })),
      );
    });
  }

  /** Whether the event is dated too far after this app's clock to be kept (see MAX_EVENT_LEAD_MS). */
  datedAhead(event: NotionEvent): boolean {
    return isDatedAhead(event, this.deps.clock.now());
  }

  /** Forgets the newest event time of every page of the team: its Notion source was removed. */
  async forgetPages(teamId: string): Promise<void> {
    await this.deps.storage.pageEvents.deleteTeam(teamId);
  }

  /**
   * Re-reads every page Notion's search reports edited since the team's last sync, less a minute's margin
   * (every page on the first sync), upserting each page's document, then records the time the pull started
   * as the team's sync time. Returns how many pages were stored or deleted; 0 for a team with no Notion
   * token. A page whose work still fails after its retries is skipped; when the failure was transient the
   * sync time stays where it was, so the next pull tries the page again. A search that would not end (a
   * repeated cursor, more than MAX_SEARCH_REQUESTS requests) is stopped and logged, keeping the sync time
   * too. Each page is read from the page object its search answer carried, not asked for again. Throws when
   * the search itself fails (a revoked token: a NotionApiError with status 401). Concurrent calls for one
   * team share one pull.
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
    let complete = true;
    const cursors = new ListingCursors("POST /v1/search", MAX_SEARCH_REQUESTS);
    let cursor: string | null = null;
    search: do {
      const list = await client.searchPages(cursor);
      for (const found of list.results) {
        // Most recently edited first: the first page older than the margin ends the pull.
        if (since !== null && Date.parse(found.last_edited_time) < since) break search;
        const pageId = canonicalId(found.id);
        if (!pageId) continue;
        try {
          await this.#pages.run(`${key.teamId}/${pageId}`, () =>
            this.#retrying(() =>
              this.#limited(key.teamId, () => this.#syncPage(key, reader, pageId, { known: found })),
            ),
          );
          synced++;
        } catch (error) {
          // Only a failure a later pull could get past holds the sync time back; a page that can never be
          // stored (too large, refused) would otherwise make every pull start from the same old time.
          if (retryable(error)) failed++;
          logger.warn("notion page failed to sync", { teamId: key.teamId, ...errorFields(error) });
        }
      }
      try {
        cursor = cursors.next(list);
      } catch (error) {
        if (!(error instanceof NotionListingError)) throw error;
        // What was read is kept; the sync time is not moved on, so the next pull starts from the same place.
        logger.warn("notion search stopped", { teamId: key.teamId, reason: error.reason });
        complete = false;
        cursor = null;
      }
    } while (cursor);
    if (failed === 0 && complete) {
      // Unless a moved page asked for a full pull meanwhile (or another instance's pull finished first).
      const current = (await storage.sources.get(key.teamId, "notion.token"))?.syncedAt ?? null;
      if (current === before) await storage.sources.setSyncedAt(key.teamId, "notion.token", startedAt);
    }
    logger.info("notion pull", { teamId: key.teamId, synced, failed, complete, full: since === null });
    return synced;
  }

  /**
   * Fetches a page and stores its document, or deletes the document of a page in the trash or gone — unless
   * `stillNewest` says, after the fetch, that a newer event has been recorded for the page meanwhile.
   */
  async #syncPage(
    key: TeamKey,
    reader: PageReader,
    pageId: string,
    work: PageWork = {},
  ): Promise<"upserted" | "deleted" | "superseded"> {
    let read: Awaited<ReturnType<PageReader["read"]>> | null;
    try {
      read = await reader.read(pageId, work.known);
    } catch (error) {
      // Deleted for good, or no longer shared with the integration: either way not the team's to find.
      if (!(error instanceof NotionApiError && error.notFound)) throw error;
      read = null;
    }
    if (work.stillNewest && !(await work.stillNewest())) return "superseded";
    if (read === null || "trashed" in read) {
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
    await this.deps.documents.deleteByExternalId(key, notionExternalId(pageId));
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

  /** Runs one page sync of a team within its PAGE_SYNCS_PER_TEAM slots, waiting for one if need be. */
  async #limited<T>(teamId: string, task: () => Promise<T>): Promise<T> {
    let slots = this.#slots.get(teamId);
    if (!slots) {
      slots = new Limiter(PAGE_SYNCS_PER_TEAM);
      this.#slots.set(teamId, slots);
    }
    try {
      return await slots.run(task);
    } finally {
      if (slots.idle && this.#slots.get(teamId) === slots) this.#slots.delete(teamId);
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
