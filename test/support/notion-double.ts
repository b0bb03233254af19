// A stand-in for Notion's API on a loopback port: a real HTTP server answering with the response shapes of
// Notion's published API reference (Notion-Version 2025-09-03) for what memoria reads: GET /v1/pages/{id},
// GET /v1/databases/{id}, GET /v1/data_sources/{id}, GET /v1/blocks/{id}, GET /v1/blocks/{id}/children
// (paginated: page_size, start_cursor, has_more, next_cursor), and POST /v1/search (pages, sorted by
// last_edited_time, paginated). It checks every request's Authorization and Notion-Version headers, records
// every request and how many were in flight at once, and can be told to answer the next requests 429 with
// Retry-After, or 5xx; to hold an answer until the test releases it, or delay every answer; and to give a
// listing that never ends (the same cursor again, or new cursors forever).
//
// Tests build pages from small descriptions (a title, a parent, blocks as `{type, text, children}`) and
// change them as a person would in Notion: edit the blocks, rename, move, trash. Edit times are rounded
// down to the minute, as Notion's are.

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const NOTION_DOUBLE_TOKEN = "ntn_double_integration_token_0123456789";
const VERSION = "2025-09-03";
const USER = { object: "user", id: "0c1f5b0e-7f60-4b53-9d8e-2b1a3c4d5e6f" };

/** A block as a test describes it; the double gives it an id and Notion's shape. */
export interface BlockSpec {
  type: string;
  text?: string;
  children?: BlockSpec[];
  /** to_do */
  checked?: boolean;
  /** code */
  language?: string;
  /** child_page, child_database */
  title?: string;
  /** table: rows of cells (the first row is the header) */
  rows?: string[][];
}

export type ParentSpec = "workspace" | { page: string } | { database: string } | { block: string };

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  at: number;
}

/** A held answer: computed when its request arrived (so it shows Notion as it was then), sent on release. */
export interface HeldAnswer {
  /** Resolves once the held request has arrived. */
  arrived: Promise<void>;
  release(): void;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** How a stalled listing answers: `repeat` its first page with the same next_cursor every time; `endless` empty pages with a new cursor each time. */
export type StallMode = "repeat" | "endless";
export const STUCK_CURSOR = "stuck-cursor-0000";

interface PageState {
  id: string;
  title: string;
  titleProperty: string;
  parent: ParentSpec;
  inTrash: boolean;
  createdTime: string;
  lastEdited: string;
}

interface BlockState {
  id: string;
  /** The page or block it sits in. */
  parentId: string;
  parentIsPage: boolean;
  type: string;
  payload: Record<string, unknown>;
}

interface DatabaseState {
  id: string;
  dataSourceId: string;
  title: string;
  parent: ParentSpec;
}

/** Rich text as Notion returns it. */
export function richText(text: string) {
  return {
    type: "text",
    text: { content: text, link: null },
    annotations: {
      bold: false,
      italic: false,
      strikethrough: false,
      underline: false,
      code: false,
      color: "default",
    },
    plain_text: text,
    href: null,
  };
}

/** A time rounded down to the minute, as Notion reports edit times. */
export function minuteOf(time: number | Date = Date.now()): string {
  const ms = typeof time === "number" ? time : time.getTime();
  return new Date(Math.floor(ms / 60_000) * 60_000).toISOString();
}

export class NotionDouble {
  readonly requests: RecordedRequest[] = [];
  /** Requests refused for a wrong Authorization or Notion-Version header (should stay empty). */
  readonly headerFailures: string[] = [];
  /** The token requests must carry. */
  token = NOTION_DOUBLE_TOKEN;
  url = "";
  /** The most requests that were being answered at one time. */
  maxInFlight = 0;
  #inFlight = 0;
  #delayMs = 0;
  #holds: { path: RegExp; arrived: () => void; released: Promise<void> }[] = [];
  #stalls: { path: RegExp; mode: StallMode }[] = [];

  readonly #pages = new Map<string, PageState>();
  readonly #blocks = new Map<string, BlockState>();
  /** Children (block ids, in order) of a page or a block. */
  readonly #children = new Map<string, string[]>();
  readonly #databases = new Map<string, DatabaseState>();
  #rateLimited: { count: number; retryAfter: string }[] = [];
  #failures: { count: number; status: number; path: RegExp | null }[] = [];
  #server: Server | null = null;

  static async start(): Promise<NotionDouble> {
    const double = new NotionDouble();
    const server = createServer((req, res) => {
      double.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    double.#server = server;
    double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return double;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // ---- What a test does in "Notion" -------------------------------------------------------------------

  addPage(spec: {
    id?: string;
    title: string;
    parent?: ParentSpec;
    blocks?: BlockSpec[];
    lastEdited?: string;
    /** The title property's name: "title" for a page under a page, "Name" in a database by default. */
    titleProperty?: string;
  }): string {
    const id = spec.id ?? randomUUID();
    const parent = spec.parent ?? "workspace";
    const now = minuteOf();
    this.#pages.set(id, {
      id,
      title: spec.title,
      titleProperty:
        spec.titleProperty ?? (typeof parent === "object" && "database" in parent ? "Name" : "title"),
      parent,
      inTrash: false,
      createdTime: spec.lastEdited ?? now,
      lastEdited: spec.lastEdited ?? now,
    });
    this.#children.set(id, []);
    this.#appendBlocks(id, true, spec.blocks ?? []);
    return id;
  }

  /** Replaces a page's content, as an edit in Notion does, and moves its edit time on. */
  setBlocks(pageId: string, blocks: BlockSpec[], lastEdited?: string): void {
    const page = this.#page(pageId);
    this.#removeChildren(pageId);
    this.#appendBlocks(pageId, true, blocks);
    page.lastEdited = lastEdited ?? minuteOf();
  }

  rename(pageId: string, title: string, lastEdited?: string): void {
    const page = this.#page(pageId);
    page.title = title;
    page.lastEdited = lastEdited ?? minuteOf();
  }

  move(pageId: string, parent: ParentSpec): void {
    const page = this.#page(pageId);
    page.parent = parent;
    page.lastEdited = minuteOf();
  }

  trash(pageId: string, inTrash = true): void {
    const page = this.#page(pageId);
    page.inTrash = inTrash;
    page.lastEdited = minuteOf();
  }

  /** Forgets a page altogether: Notion then answers 404, as for a page no longer shared. */
  remove(pageId: string): void {
    this.#removeChildren(pageId);
    this.#pages.delete(pageId);
  }

  addDatabase(spec: { id?: string; title: string; parent?: ParentSpec }): string {
    const id = spec.id ?? randomUUID();
    this.#databases.set(id, {
      id,
      dataSourceId: randomUUID(),
      title: spec.title,
      parent: spec.parent ?? "workspace",
    });
    return id;
  }

  /** The id of the first block of a page (or block) whose text is `text`. */
  blockWithText(parentId: string, text: string): string {
    for (const id of this.#children.get(parentId) ?? []) {
      const block = this.#blocks.get(id);
      const parts = (block?.payload.rich_text ?? []) as { plain_text: string }[];
      if (parts.map((p) => p.plain_text).join("") === text) return id;
    }
    throw new Error(`no block with that text under ${parentId}`);
  }

  /** The next `count` requests answer 429 with this Retry-After. */
  rateLimitNext(count: number, retryAfter: string): void {
    this.#rateLimited.push({ count, retryAfter });
  }

  /** The next `count` requests (to a path matching `path`, if given) answer `status` (a 5xx). */
  failNext(count: number, status = 500, path: RegExp | null = null): void {
    this.#failures.push({ count, status, path });
  }

  /** Forgets every programmed 429 and failure not yet answered. */
  recover(): void {
    this.#rateLimited = [];
    this.#failures = [];
  }

  /**
   * Holds the answer to the next request whose path matches: it is computed when the request arrives (Notion
   * as it was then) and sent only when the test calls `release()`.
   */
  holdNext(path: RegExp): HeldAnswer {
    let arrived = () => {};
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#holds.push({ path, arrived, released });
    return { arrived: arrival, release };
  }

  /** Every answer from now on waits this long before it is sent (0: none), so requests overlap. */
  delayAnswers(ms: number): void {
    this.#delayMs = ms;
  }

  /** Block-children listings and searches whose path matches never end, as `mode` says. */
  stallListing(path: RegExp, mode: StallMode): void {
    this.#stalls.push({ path, mode });
  }

  #stall(path: string): StallMode | null {
    return this.#stalls.find((s) => s.path.test(path))?.mode ?? null;
  }

  /** Recorded requests whose path matches. */
  requestsTo(path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => (typeof path === "string" ? r.path === path : path.test(r.path)));
  }

  // ---- Notion's shapes ---------------------------------------------------------------------------------

  #page(id: string): PageState {
    const page = this.#pages.get(id);
    if (!page) throw new Error(`no page ${id}`);
    return page;
  }

  #parentJson(parent: ParentSpec) {
    if (parent === "workspace") return { type: "workspace", workspace: true };
    if ("page" in parent) return { type: "page_id", page_id: parent.page };
    if ("block" in parent) return { type: "block_id", block_id: parent.block };
    const database = this.#databases.get(parent.database);
    return {
      type: "data_source_id",
      data_source_id: database?.dataSourceId ?? randomUUID(),
      database_id: parent.database,
    };
  }

  #pageJson(page: PageState) {
    return {
      object: "page",
      id: page.id,
      created_time: page.createdTime,
      last_edited_time: page.lastEdited,
      created_by: USER,
      last_edited_by: USER,
      cover: null,
      icon: null,
      parent: this.#parentJson(page.parent),
      archived: page.inTrash,
      in_trash: page.inTrash,
      is_locked: false,
      properties: {
        [page.titleProperty]: { id: "title", type: "title", title: [richText(page.title)] },
      },
      url: `https://www.notion.so/${page.id.replaceAll("-", "")}`,
      public_url: null,
    };
  }

  #blockJson(block: BlockState) {
    const children = this.#children.get(block.id) ?? [];
    return {
      object: "block",
      id: block.id,
      parent: block.parentIsPage
        ? { type: "page_id", page_id: block.parentId }
        : { type: "block_id", block_id: block.parentId },
      created_time: minuteOf(0),
      last_edited_time: minuteOf(0),
      created_by: USER,
      last_edited_by: USER,
      has_children: children.length > 0,
      archived: false,
      in_trash: false,
      type: block.type,
      [block.type]: block.payload,
    };
  }

  #appendBlocks(parentId: string, parentIsPage: boolean, specs: BlockSpec[]): void {
    const list = this.#children.get(parentId) ?? [];
    this.#children.set(parentId, list);
    for (const spec of specs) {
      const id = randomUUID();
      this.#blocks.set(id, { id, parentId, parentIsPage, type: spec.type, payload: payloadOf(spec) });
      list.push(id);
      this.#children.set(id, []);
      if (spec.type === "table") {
        const rows = spec.rows ?? [];
        this.#appendBlocks(
          id,
          false,
          rows.map((cells) => ({ type: "table_row", rows: [cells] })),
        );
      }
      this.#appendBlocks(id, false, spec.children ?? []);
    }
  }

  #removeChildren(parentId: string): void {
    for (const id of this.#children.get(parentId) ?? []) {
      this.#removeChildren(id);
      this.#blocks.delete(id);
      this.#children.delete(id);
    }
    this.#children.set(parentId, []);
  }

  // ---- HTTP -----------------------------------------------------------------------------------------

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.#inFlight);
    try {
      const url = new URL(req.url ?? "/", "http://double");
      const answer = await this.#answer(req, url);
      const hold = this.#holds.find((h) => h.path.test(url.pathname));
      if (hold) {
        this.#holds.splice(this.#holds.indexOf(hold), 1);
        hold.arrived();
        await hold.released;
      }
      if (this.#delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#delayMs));
      send(res, answer.status, answer.body, answer.headers);
    } finally {
      this.#inFlight--;
    }
  }

  async #answer(req: IncomingMessage, url: URL): Promise<Answer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        return reply(400, error(400, "invalid_json", "Error parsing JSON body."));
      }
    }
    const method = req.method ?? "GET";
    this.requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body,
      at: Date.now(),
    });

    if (req.headers.authorization !== `Bearer ${this.token}`) {
      this.headerFailures.push(`${method} ${url.pathname}: authorization`);
      return reply(401, error(401, "unauthorized", "API token is invalid."));
    }
    if (req.headers["notion-version"] !== VERSION) {
      this.headerFailures.push(`${method} ${url.pathname}: notion-version`);
      return reply(400, error(400, "missing_version", "Notion-Version header failed validation."));
    }
    const limited = this.#rateLimited[0];
    if (limited) {
      if (--limited.count <= 0) this.#rateLimited.shift();
      return reply(429, error(429, "rate_limited", "You have been rate limited."), {
        "retry-after": limited.retryAfter,
      });
    }
    const failure = this.#failures.find((f) => f.path === null || f.path.test(url.pathname));
    if (failure) {
      if (--failure.count <= 0) this.#failures.splice(this.#failures.indexOf(failure), 1);
      return reply(failure.status, error(failure.status, "internal_server_error", "Unexpected error."));
    }

    const parts = url.pathname.split("/").filter(Boolean);
    const [v1, resource, id, sub] = parts;
    if (v1 !== "v1") return reply(404, error(404, "invalid_request_url", "Invalid request URL."));
    if (method === "GET" && resource === "pages" && id && parts.length === 3) {
      const page = this.#pages.get(id);
      return page ? reply(200, this.#pageJson(page)) : notFound(id);
    }
    if (method === "GET" && resource === "databases" && id && parts.length === 3) {
      const database = this.#databases.get(id);
      if (!database) return notFound(id);
      return reply(200, {
        object: "database",
        id: database.id,
        title: [richText(database.title)],
        description: [],
        parent: this.#parentJson(database.parent),
        is_inline: false,
        in_trash: false,
        is_locked: false,
        created_time: minuteOf(0),
        last_edited_time: minuteOf(0),
        data_sources: [{ id: database.dataSourceId, name: database.title }],
        icon: null,
        cover: null,
        url: `https://www.notion.so/${database.id.replaceAll("-", "")}`,
        public_url: null,
      });
    }
    if (method === "GET" && resource === "data_sources" && id && parts.length === 3) {
      const database = [...this.#databases.values()].find((d) => d.dataSourceId === id);
      if (!database) return notFound(id);
      return reply(200, {
        object: "data_source",
        id,
        title: [richText(database.title)],
        description: [],
        parent: { type: "database_id", database_id: database.id },
        database_parent: this.#parentJson(database.parent),
        properties: { Name: { id: "title", name: "Name", type: "title", title: {} } },
        created_time: minuteOf(0),
        last_edited_time: minuteOf(0),
      });
    }
    if (method === "GET" && resource === "blocks" && id && parts.length === 3) {
      const block = this.#blocks.get(id);
      if (block) return reply(200, this.#blockJson(block));
      const page = this.#pages.get(id);
      if (!page) return notFound(id);
      // A page is a block too: its child_page block, which sits in the page's parent.
      return reply(200, {
        object: "block",
        id,
        parent: this.#parentJson(page.parent),
        has_children: (this.#children.get(id) ?? []).length > 0,
        archived: page.inTrash,
        in_trash: page.inTrash,
        type: "child_page",
        child_page: { title: page.title },
      });
    }
    if (method === "GET" && resource === "blocks" && id && sub === "children" && parts.length === 4) {
      if (!this.#blocks.has(id) && !this.#pages.has(id)) return notFound(id);
      const ids = this.#children.get(id) ?? [];
      const stalled = this.#stall(url.pathname);
      const page = stalled
        ? stalledPage(ids, stalled, url.searchParams.get("page_size"))
        : paginate(ids, url.searchParams.get("start_cursor"), url.searchParams.get("page_size"));
      if (!page) return reply(400, error(400, "validation_error", "start_cursor is invalid."));
      return reply(200, {
        object: "list",
        results: page.items.map((blockId) => this.#blockJson(this.#blocks.get(blockId) as BlockState)),
        next_cursor: page.next,
        has_more: page.next !== null,
        type: "block",
        block: {},
      });
    }
    if (method === "POST" && resource === "search" && parts.length === 2) {
      const query = (body ?? {}) as {
        filter?: { property?: string; value?: string };
        sort?: { direction?: string; timestamp?: string };
        start_cursor?: string;
        page_size?: number;
      };
      const pages = [...this.#pages.values()]
        .filter((p) => !p.inTrash)
        .filter(() => query.filter?.value !== "data_source")
        .sort((a, b) => {
          const order = a.lastEdited < b.lastEdited ? -1 : a.lastEdited > b.lastEdited ? 1 : 0;
          return query.sort?.direction === "ascending" ? order : -order;
        });
      const size = query.page_size === undefined ? null : String(query.page_size);
      const stalled = this.#stall(url.pathname);
      const page = stalled
        ? stalledPage(
            pages.map((p) => p.id),
            stalled,
            size,
          )
        : paginate(
            pages.map((p) => p.id),
            query.start_cursor ?? null,
            size,
          );
      if (!page) return reply(400, error(400, "validation_error", "start_cursor is invalid."));
      return reply(200, {
        object: "list",
        results: page.items.map((pageId) => this.#pageJson(this.#page(pageId))),
        next_cursor: page.next,
        has_more: page.next !== null,
        type: "page_or_data_source",
        page_or_data_source: {},
      });
    }
    return reply(404, error(404, "invalid_request_url", "Invalid request URL."));
  }
}

function payloadOf(spec: BlockSpec): Record<string, unknown> {
  const rich = [richText(spec.text ?? "")];
  switch (spec.type) {
    case "child_page":
    case "child_database":
      return { title: spec.title ?? spec.text ?? "" };
    case "divider":
    case "table_of_contents":
    case "breadcrumb":
    case "column_list":
    case "column":
      return {};
    case "table": {
      const rows = spec.rows ?? [];
      return { table_width: rows[0]?.length ?? 1, has_column_header: true, has_row_header: false };
    }
    case "table_row":
      return { cells: (spec.rows?.[0] ?? []).map((cell) => [richText(cell)]) };
    case "code":
      return { caption: [], rich_text: rich, language: spec.language ?? "plain text" };
    case "to_do":
      return { rich_text: rich, checked: spec.checked ?? false, color: "default" };
    case "heading_1":
    case "heading_2":
    case "heading_3":
      return { rich_text: rich, is_toggleable: false, color: "default" };
    case "callout":
      return { rich_text: rich, icon: { type: "emoji", emoji: "💡" }, color: "gray_background" };
    default:
      return { rich_text: rich, color: "default" };
  }
}

/** Notion-style cursor pagination: the cursor is the id of the first item of the next page. */
function paginate(
  ids: string[],
  cursor: string | null,
  pageSize: string | null,
): { items: string[]; next: string | null } | null {
  const size = pageSize === null ? 100 : Number(pageSize);
  if (!Number.isInteger(size) || size < 1 || size > 100) return null;
  let start = 0;
  if (cursor) {
    start = ids.indexOf(cursor);
    if (start < 0) return null;
  }
  const items = ids.slice(start, start + size);
  return { items, next: ids[start + size] ?? null };
}

/** A listing that never ends: whatever the cursor, `has_more` with the same cursor, or a new one. */
function stalledPage(
  ids: string[],
  mode: StallMode,
  pageSize: string | null,
): { items: string[]; next: string } | null {
  const first = paginate(ids, null, pageSize);
  if (!first) return null;
  return mode === "repeat" ? { items: first.items, next: STUCK_CURSOR } : { items: [], next: randomUUID() };
}

function error(status: number, code: string, message: string) {
  return { object: "error", status, code, message, request_id: randomUUID() };
}

function reply(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return { status, body, headers };
}

function notFound(id: string): Answer {
  return reply(
    404,
    error(
      404,
      "object_not_found",
      `Could not find object with ID: ${id}. Make sure the relevant pages and databases are shared with your integration.`,
    ),
  );
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
