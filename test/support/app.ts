// Builds a real memoria app over a real libSQL database for one test: `:memory:` by default, or a file in
// a fresh temp directory when the test needs to look at what reached disk or to restart over the same data.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AppConfig, createApp, type Memoria } from "../../src/app.js";
import type { Clock } from "../../src/clock.js";
import type { Extractor } from "../../src/extract/extracted.js";
import type { PassageHit, PassageIndexOptions } from "../../src/index/passages/passage-index.js";
import type { Chunker } from "../../src/ingest/chunker.js";
import { type Logger, silentLogger } from "../../src/logger.js";
import { toBase64Url } from "../../src/seal/bytes.js";
import { Keyring } from "../../src/seal/keyring.js";
import { importMasterKeys } from "../../src/seal/master.js";
import type { ClientMetadataFetcher } from "../../src/services/client-metadata.js";
import type { PassageFinder } from "../../src/services/search.js";
import type { StorageOptions } from "../../src/store/client.js";
import { openStorage, type Storage } from "../../src/store/storage.js";

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const CRON_TOKEN = "test-cron-token-0123456789";

export interface TestApp {
  memoria: Memoria;
  storage: Storage;
  masterKey: Uint8Array<ArrayBuffer>;
  /** app.request with JSON and bearer helpers. */
  request(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>;
  close(): void;
}

export interface TestAppOptions {
  dbUrl?: string;
  /** Remote storage's token, and an embedded replica's primary and sync interval. */
  db?: Omit<StorageOptions, "url">;
  masterKey?: Uint8Array<ArrayBuffer>;
  previousMasterKey?: Uint8Array<ArrayBuffer> | null;
  config?: Partial<AppConfig>;
  clock?: Clock;
  indexOptions?: PassageIndexOptions;
  /** Silent unless a test reads the log. */
  logger?: Logger;
  /** How documents are chunked (inline by default, as the app's own default). */
  chunker?: Chunker;
  /** How PDF and DOCX files are read (inline by default, as the app's own default). */
  extractor?: Extractor;
  /** Where searches run (the search threads); on the test's own thread by default. */
  finder?: PassageFinder;
  /** How OAuth clients' metadata documents are fetched (a test's own HTTPS server on loopback). */
  clientMetadata?: ClientMetadataFetcher;
}

export function newMasterKey(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(32));
}

export function masterKeyText(key: Uint8Array): string {
  return toBase64Url(key);
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const masterKey = options.masterKey ?? newMasterKey();
  const storage = await openStorage({ url: options.dbUrl ?? ":memory:", ...options.db });
  const keyring = new Keyring(await importMasterKeys(masterKey, options.previousMasterKey ?? null));
  const memoria = createApp({
    config: {
      adminToken: ADMIN_TOKEN,
      cronToken: CRON_TOKEN,
      maxDocumentBytes: 5 * 1024 * 1024,
      catchupMs: 2000,
      ...options.config,
    },
    storage,
    keyring,
    clock: options.clock ?? { now: () => new Date() },
    logger: options.logger ?? silentLogger,
    ...(options.indexOptions ? { indexOptions: options.indexOptions } : {}),
    ...(options.chunker ? { chunker: options.chunker } : {}),
    ...(options.extractor ? { extractor: options.extractor } : {}),
    ...(options.finder ? { finder: options.finder } : {}),
    ...(options.clientMetadata ? { clientMetadata: options.clientMetadata } : {}),
  });
  return {
    memoria,
    storage,
    masterKey,
    request(path, init = {}) {
      const { json, token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token) headers.set("authorization", `Bearer ${token}`);
      if (json !== undefined) headers.set("content-type", "application/json");
      return Promise.resolve(
        memoria.app.request(path, {
          ...rest,
          headers,
          ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
        }),
      );
    },
    close() {
      memoria.close();
      storage.close();
    },
  };
}

/** Makes a team through the admin API and returns its id and key. */
export async function makeTeam(app: TestApp, name = "Acme"): Promise<{ teamId: string; apiKey: string }> {
  const res = await app.request("/v1/teams", { method: "POST", token: ADMIN_TOKEN, json: { name } });
  if (res.status !== 201) throw new Error(`team creation answered ${res.status}`);
  const body = (await res.json()) as { team: { id: string }; apiKey: string };
  return { teamId: body.team.id, apiKey: body.apiKey };
}

export async function addDocument(
  app: TestApp,
  apiKey: string,
  doc: { title: string; content: string; format?: string; path?: string[]; externalId?: string },
): Promise<{ id: string; chunks: number; version: number }> {
  const res = await app.request("/v1/documents", { method: "POST", token: apiKey, json: doc });
  if (res.status !== 201 && res.status !== 200) throw new Error(`document creation answered ${res.status}`);
  return ((await res.json()) as { document: { id: string; chunks: number; version: number } }).document;
}

export interface SearchBody {
  query: string;
  hits: PassageHit[];
  corpus: { documents: number; chunks: number; unreadable: number };
}

export async function search(app: TestApp, apiKey: string, q: string, limit?: number): Promise<SearchBody> {
  const params = new URLSearchParams({ q, ...(limit ? { limit: String(limit) } : {}) });
  const res = await app.request(`/v1/search?${params}`, { token: apiKey });
  if (res.status !== 200) throw new Error(`search answered ${res.status}`);
  return (await res.json()) as SearchBody;
}

/** A fresh temp directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; dbUrl: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "memoria-test-"));
  return {
    dir,
    dbUrl: `file:${join(dir, "memoria.db")}`,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
