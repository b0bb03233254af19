// The documents API as the import uses it, over fetch with the team key. 429 and 503 answers and network
// failures are retried a few times (every call here is safe to repeat: a POST upserts by externalId);
// anything else comes back as an ApiError naming the status and the server's code and message, which never
// quote content (src/errors.ts).

import type { DocumentFormat } from "../ingest/formats.js";
import type { RemoteDocument } from "./plan.js";

export interface DocumentUpload {
  title: string;
  content: string;
  format: DocumentFormat;
  path: string[];
  externalId: string;
}

/** A PDF or DOCX sent as it is, as a multipart file; the server reads its text and title. */
export interface FileUpload {
  /** The file's own name (its title of last resort). */
  name: string;
  bytes: Uint8Array;
  path: string[];
  externalId: string;
}

/** One item's answer in a batch: stored (new or replacing), or refused with the server's code and message. */
export type BatchItemResult = { stored: "created" | "replaced" } | { code: string; message: string };

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  baseUrl: URL;
  key: string;
  fetch?: typeof fetch;
  /** Attempts per call for 429, 503 and network failures (default 3). */
  attempts?: number;
  /** First backoff in ms, doubled per attempt (default 500); a Retry-After answer is waited out instead. */
  backoffMs?: number;
  timeoutMs?: number;
}

const PAGE_SIZE = 200;
const MAX_RETRY_AFTER_MS = 30_000;

function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class MemoriaClient {
  readonly #base: URL;
  readonly #key: string;
  readonly #fetch: typeof fetch;
  readonly #attempts: number;
  readonly #backoffMs: number;
  readonly #timeoutMs: number;

  constructor(options: ClientOptions) {
    // A base with a path (https://host/memoria) keeps it: endpoints resolve relative to a trailing slash.
    const base = new URL(options.baseUrl.href);
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    base.search = "";
    base.hash = "";
    this.#base = base;
    this.#key = options.key;
    this.#fetch = options.fetch ?? fetch;
    this.#attempts = options.attempts ?? 3;
    this.#backoffMs = options.backoffMs ?? 500;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
  }

  /** Every document of the team, following the pages to the end. */
  async listDocuments(): Promise<RemoteDocument[]> {
    const all: RemoteDocument[] = [];
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) };
      const page = (await this.#call("GET", "v1/documents", query)) as {
        documents: RemoteDocument[];
        nextCursor: string | null;
      };
      all.push(...page.documents);
      cursor = page.nextCursor;
      if (cursor !== null) {
        if (seen.has(cursor)) throw new Error("the server repeated a page cursor");
        seen.add(cursor);
      }
    } while (cursor !== null);
    return all;
  }

  async getContent(id: string): Promise<string> {
    const body = (await this.#call("GET", `v1/documents/${encodeURIComponent(id)}`)) as {
      document: { content: string };
    };
    return body.document.content;
  }

  /** Stores or replaces (by externalId) a document; says which. */
  async upsert(doc: DocumentUpload): Promise<"created" | "replaced"> {
    const res = await this.#request("POST", "v1/documents", {}, doc);
    await this.#ok(res);
    return res.status === 201 ? "created" : "replaced";
  }

  /** Replaces the document `id` (PUT), its externalId included. */
  async replace(id: string, doc: DocumentUpload): Promise<void> {
    const res = await this.#request("PUT", `v1/documents/${encodeURIComponent(id)}`, {}, doc);
    await this.#ok(res);
    await res.body?.cancel();
  }

  /** Stores or replaces (by externalId) a PDF or DOCX, sent as a multipart file; says which. */
  async uploadFile(file: FileUpload): Promise<"created" | "replaced"> {
    const form = new FormData();
    form.append("file", new File([file.bytes as Uint8Array<ArrayBuffer>], file.name));
    form.append("externalId", file.externalId);
    if (file.path.length > 0) form.append("path", file.path.join("/"));
    const res = await this.#request("POST", "v1/documents", {}, form);
    await this.#ok(res);
    return res.status === 201 ? "created" : "replaced";
  }

  /**
   * Stores or replaces many documents in one request (POST /v1/documents/batch), one result per document in
   * order. Null when the server has no such route (404 or 405: a server before v1.1); then send one by one.
   */
  async upsertMany(docs: readonly DocumentUpload[]): Promise<BatchItemResult[] | null> {
    const res = await this.#request("POST", "v1/documents/batch", {}, { documents: docs });
    if (res.status === 404 || res.status === 405) {
      await res.body?.cancel();
      return null;
    }
    await this.#ok(res);
    const body = (await res.json()) as {
      results?: { document?: { version?: unknown }; error?: { code?: unknown; message?: unknown } }[];
    };
    const results = body.results ?? [];
    if (results.length !== docs.length) {
      throw new ApiError(
        res.status,
        "http_error",
        `the batch answered ${results.length} of ${docs.length} results`,
      );
    }
    return results.map((result) => {
      if (result.document) {
        // A replacement always raises the version, so version 1 is a document this request created.
        return { stored: result.document.version === 1 ? "created" : "replaced" };
      }
      return {
        code: typeof result.error?.code === "string" ? result.error.code : "http_error",
        message: typeof result.error?.message === "string" ? result.error.message : "no result",
      };
    });
  }

  async delete(id: string): Promise<void> {
    await this.#ok(await this.#request("DELETE", `v1/documents/${encodeURIComponent(id)}`));
  }

  async #call(method: string, path: string, query: Record<string, string> = {}): Promise<unknown> {
    const res = await this.#request(method, path, query);
    await this.#ok(res);
    return res.json();
  }

  async #ok(res: Response): Promise<void> {
    if (res.ok) {
      if (res.status === 204) await res.body?.cancel();
      return;
    }
    const text = await res.text().catch(() => "");
    let code = "http_error";
    let message = `HTTP ${res.status}`;
    try {
      const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
      if (typeof body.error?.code === "string") code = body.error.code;
      if (typeof body.error?.message === "string") message = body.error.message;
    } catch {
      // Not memoria's envelope (a proxy's page, say): the status is all there is to say.
    }
    throw new ApiError(res.status, code, message);
  }

  async #request(
    method: string,
    path: string,
    query: Record<string, string> = {},
    json?: unknown,
  ): Promise<Response> {
    const url = new URL(path, this.#base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#key}`,
      accept: "application/json",
      "user-agent": "memoria-import",
    };
    // A form sets its own multipart content type (with its boundary); anything else given is JSON.
    const isForm = json instanceof FormData;
    if (json !== undefined && !isForm) headers["content-type"] = "application/json";
    const body = json === undefined ? undefined : isForm ? json : JSON.stringify(json);
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.#fetch(url, { method, headers, body, signal: AbortSignal.timeout(this.#timeoutMs) });
      } catch (error) {
        if (attempt >= this.#attempts) {
          throw new ApiError(0, "network", `could not reach ${url.origin}: ${describeFailure(error)}`);
        }
        await sleep(this.#backoffMs * 2 ** (attempt - 1));
        continue;
      }
      if ((res.status !== 429 && res.status !== 503) || attempt >= this.#attempts) return res;
      const header = res.headers.get("retry-after");
      const retryAfter = header === null || header.trim() === "" ? Number.NaN : Number(header);
      await res.body?.cancel();
      await sleep(
        Number.isFinite(retryAfter) && retryAfter >= 0
          ? Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS)
          : this.#backoffMs * 2 ** (attempt - 1),
      );
    }
  }
}
