// The storage connection. Only src/store speaks SQL to storage; everything else goes through the row
// modules beside this file.

import type { Client } from "@libsql/client";
import { createClient as createLocalClient } from "@libsql/client/sqlite3";
import { STORAGE_TIMEOUT_MS } from "../config.js";
import { useBufferForBlobs } from "./blob-base64.js";
import { wholeBodyFetch } from "./whole-body-fetch.js";

export interface StorageOptions {
  url: string;
  authToken?: string | null;
  syncUrl?: string | null;
  /** How often an embedded replica pulls from its primary. */
  syncIntervalSeconds?: number;
  /** MEMORIA_STORAGE_TIMEOUT_MS: the longest a call to storage may take once serving (guarded-client.ts). */
  timeoutMs?: number;
}

/**
 * How many storage timeouts a connection over HTTP may stay silent before it is taken as dead (a minute by
 * default). A request is answered 503 after one timeout (guarded-client.ts); this ends the request itself,
 * which libSQL cannot take back. Well past any statement memoria sends: a 4 MiB snapshot part takes ~130 ms
 * from sqld, and a start's migrations are small DDL.
 */
export const STALLED_CONNECTION_FACTOR = 6;

/** Busy timeout for `file:` databases shared by several processes. */
export const BUSY_TIMEOUT_MS = 5000;

/** A database in this process (a file, an embedded replica's file, memory), not across a network. */
export function isLocalUrl(url: string): boolean {
  return /^(file:|:memory:)/.test(url);
}

/**
 * A connection to `options.url`. The client for remote storage (the Hrana protocol over WebSocket and HTTP,
 * ~220 KB with `ws`) is loaded only for a remote URL: a start on a local database compiled it for nothing
 * (docs/decisions/0106).
 */
export async function openClient(options: StorageOptions): Promise<Client> {
  useBufferForBlobs();
  const createClient = isLocalUrl(options.url)
    ? createLocalClient
    : (await import("@libsql/client")).createClient;
  return createClient({
    url: options.url,
    ...(options.authToken ? { authToken: options.authToken } : {}),
    ...(options.syncUrl ? { syncUrl: options.syncUrl, syncInterval: options.syncIntervalSeconds ?? 5 } : {}),
    intMode: "number",
    // Only the HTTP transport calls it (whole-body-fetch.ts says why it is not the runtime's own).
    fetch: storageFetch(options),
    // How long a local write waits for another process's write lock before failing. Writes are short
    // batches, so a few seconds only runs out when something is truly stuck.
    timeout: BUSY_TIMEOUT_MS,
  });
}

/** The fetch storage's HTTP transport is given (whole-body-fetch.ts). */
export function storageFetch(options: Pick<StorageOptions, "timeoutMs">): ReturnType<typeof wholeBodyFetch> {
  return wholeBodyFetch((options.timeoutMs ?? STORAGE_TIMEOUT_MS) * STALLED_CONNECTION_FACTOR);
}

/** Blobs come back as ArrayBuffer; every caller wants bytes. */
export function blob(value: unknown): Uint8Array {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Uint8Array) return value;
  throw new TypeError("expected a blob column");
}

export function text(value: unknown): string {
  if (typeof value !== "string") throw new TypeError("expected a text column");
  return value;
}

export function num(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  throw new TypeError("expected a numeric column");
}
