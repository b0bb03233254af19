// A small client for Notion's public API over plain `fetch`, so it runs unchanged on Node, Deno and Workers.
// Every request sends the team's integration token and the pinned Notion-Version; a 429 is retried after its
// Retry-After, a 5xx or a network failure with exponential backoff, both a bounded number of times and never
// longer than a bounded wait. Errors carry the status and Notion's error code, never a response body or the
// token, so they can be logged.

import type { z } from "zod";
import {
  blockSchema,
  databaseSchema,
  dataSourceSchema,
  listSchema,
  type NotionBlock,
  type NotionDatabase,
  type NotionDataSource,
  type NotionList,
  type NotionPage,
  pageSchema,
} from "./types.js";

export const NOTION_VERSION = "2025-09-03";
export const DEFAULT_NOTION_API_URL = "https://api.notion.com";

/** Notion's largest page size for lists (block children, search). */
export const NOTION_PAGE_SIZE = 100;

export interface RetryPolicy {
  /** Tries in all for one request, the first included. */
  maxAttempts: number;
  /** The longest Retry-After honoured; a longer one is cut to this. */
  maxRetryAfterMs: number;
  /** The first 5xx backoff; each further one doubles, up to maxBackoffMs. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** How long one request may take before it counts as a network failure. */
  timeoutMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  maxRetryAfterMs: 30_000,
  baseBackoffMs: 500,
  maxBackoffMs: 8_000,
  timeoutMs: 30_000,
};

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export interface NotionClientOptions {
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
  sleep?: Sleep;
  retry?: Partial<RetryPolicy>;
}

/** Notion answered with an error status (after any retries). `code` is Notion's own error code, if given. */
export class NotionApiError extends Error {
  override readonly name = "NotionApiError";
  constructor(
    readonly status: number,
    readonly code: string | null,
    readonly endpoint: string,
  ) {
    super(`Notion answered ${status}${code ? ` ${code}` : ""} to ${endpoint}.`);
  }

  /** The object is gone or this integration may not see it (Notion answers both with 404). */
  get notFound(): boolean {
    return this.status === 404;
  }

  /** Worth trying again later: throttled or a server fault. */
  get transient(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** Notion could not be reached, or did not answer in time (after any retries). */
export class NotionUnreachableError extends Error {
  override readonly name = "NotionUnreachableError";
  constructor(readonly endpoint: string) {
    super(`Notion could not be reached for ${endpoint}.`);
  }
}

/** Notion answered 2xx with something that is not the object its API reference describes. */
export class NotionShapeError extends Error {
  override readonly name = "NotionShapeError";
  constructor(readonly endpoint: string) {
    super(`Notion's answer to ${endpoint} is not in the expected shape.`);
  }
}

/** Why a listing was stopped before Notion said it had ended. */
export type ListingStop = "repeated_cursor" | "too_many_requests";

/**
 * A listing that would not end: Notion answered `has_more` with a cursor it had already given for this
 * listing, or the listing needed more requests than its cap. Not worth retrying: the same listing would be
 * followed the same way again.
 */
export class NotionListingError extends Error {
  override readonly name = "NotionListingError";
  constructor(
    readonly endpoint: string,
    readonly reason: ListingStop,
  ) {
    super(
      reason === "repeated_cursor"
        ? `Notion's listing ${endpoint} gave a cursor it had given already.`
        : `Notion's listing ${endpoint} needed more requests than it may take.`,
    );
  }
}

/**
 * Follows the cursors of one listing (one block's children, one search) and refuses to follow one that
 * cannot end: a `next_cursor` seen before in the same listing, or a request beyond `maxRequests`.
 */
export class ListingCursors {
  readonly #seen = new Set<string>();
  #requests = 0;

  constructor(
    private readonly endpoint: string,
    private readonly maxRequests: number,
  ) {}

  /** The cursor to ask for after `list` (one more answer of the listing), or null when it has ended. */
  next(list: { has_more: boolean; next_cursor?: string | null | undefined }): string | null {
    this.#requests++;
    if (!list.has_more || !list.next_cursor) return null;
    if (this.#seen.has(list.next_cursor)) throw new NotionListingError(this.endpoint, "repeated_cursor");
    if (this.#requests >= this.maxRequests) throw new NotionListingError(this.endpoint, "too_many_requests");
    this.#seen.add(list.next_cursor);
    return list.next_cursor;
  }
}

const blockList = listSchema(blockSchema);
const pageList = listSchema(pageSchema);

/** Seconds of a Retry-After header (an HTTP date is accepted too), as milliseconds; null when unusable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Notion's error code from an error body: a short snake_case word, or null. The rest of the body is dropped. */
async function errorCode(res: Response): Promise<string | null> {
  try {
    const body = (await res.json()) as { code?: unknown };
    return typeof body.code === "string" && /^[a-z_]{1,64}$/.test(body.code) ? body.code : null;
  } catch {
    return null;
  }
}

export class NotionClient {
  readonly #baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #sleep: Sleep;
  readonly #retry: RetryPolicy;

  constructor(options: NotionClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#sleep = options.sleep ?? realSleep;
    this.#retry = { ...defaultRetryPolicy, ...options.retry };
  }

  getPage(pageId: string): Promise<NotionPage> {
    return this.#request(pageSchema, "GET", `/v1/pages/${encodeURIComponent(pageId)}`, "GET /v1/pages/{id}");
  }

  getDatabase(databaseId: string): Promise<NotionDatabase> {
    return this.#request(
      databaseSchema,
      "GET",
      `/v1/databases/${encodeURIComponent(databaseId)}`,
      "GET /v1/databases/{id}",
    );
  }

  getDataSource(dataSourceId: string): Promise<NotionDataSource> {
    return this.#request(
      dataSourceSchema,
      "GET",
      `/v1/data_sources/${encodeURIComponent(dataSourceId)}`,
      "GET /v1/data_sources/{id}",
    );
  }

  getBlock(blockId: string): Promise<NotionBlock> {
    return this.#request(
      blockSchema,
      "GET",
      `/v1/blocks/${encodeURIComponent(blockId)}`,
      "GET /v1/blocks/{id}",
    );
  }

  /** One page of a block's (or a page's) children. */
  listBlockChildren(blockId: string, cursor: string | null): Promise<NotionList<NotionBlock>> {
    const query = new URLSearchParams({ page_size: String(NOTION_PAGE_SIZE) });
    if (cursor) query.set("start_cursor", cursor);
    return this.#request(
      blockList,
      "GET",
      `/v1/blocks/${encodeURIComponent(blockId)}/children?${query}`,
      "GET /v1/blocks/{id}/children",
    );
  }

  /** One page of the pages this integration can see, most recently edited first. */
  searchPages(cursor: string | null): Promise<NotionList<NotionPage>> {
    return this.#request(pageList, "POST", "/v1/search", "POST /v1/search", {
      filter: { property: "object", value: "page" },
      sort: { direction: "descending", timestamp: "last_edited_time" },
      page_size: NOTION_PAGE_SIZE,
      ...(cursor ? { start_cursor: cursor } : {}),
    });
  }

  async #request<T extends z.ZodType>(
    schema: T,
    method: "GET" | "POST",
    path: string,
    endpoint: string,
    body?: unknown,
  ): Promise<z.infer<T>> {
    const { maxAttempts, maxRetryAfterMs, baseBackoffMs, maxBackoffMs, timeoutMs } = this.#retry;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      "notion-version": NOTION_VERSION,
      accept: "application/json",
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    let backoff = baseBackoffMs;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      let res: Response;
      try {
        res = await this.#fetch(`${this.#baseUrl}${path}`, {
          method,
          headers,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch {
        // A refused connection, a reset, a timeout: like a 5xx, worth a bounded number of tries.
        if (last) throw new NotionUnreachableError(endpoint);
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, maxBackoffMs);
        continue;
      }
      if (res.ok) {
        let parsed: z.ZodSafeParseResult<z.infer<T>>;
        try {
          parsed = schema.safeParse(await res.json());
        } catch {
          throw new NotionShapeError(endpoint);
        }
        if (!parsed.success) throw new NotionShapeError(endpoint);
        return parsed.data;
      }
      if (res.status === 429 && !last) {
        const wait = retryAfterMs(res.headers.get("retry-after")) ?? backoff;
        await res.body?.cancel();
        await this.#sleep(Math.min(wait, maxRetryAfterMs));
        continue;
      }
      if (res.status >= 500 && !last) {
        await res.body?.cancel();
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, maxBackoffMs);
        continue;
      }
      throw new NotionApiError(res.status, await errorCode(res), endpoint);
    }
  }
}
