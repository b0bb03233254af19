// The storage handle the rest of memoria is given: one client, the row modules over it, and a readiness
// probe. Built once at start and passed in through createApp's dependencies.

import type { Client } from "@libsql/client";
import { ConfigError, STORAGE_TIMEOUT_MS } from "../config.js";
import { AuditRows } from "./audit.js";
import { BinaryReads, binaryReadsTarget, type RowReads } from "./binary-reads.js";
import { ChangeLog } from "./changes.js";
import { isLocalUrl, openClient, type StorageOptions, storageFetch } from "./client.js";
import { DocumentRows } from "./documents.js";
import { EntryRows } from "./entries.js";
import { guardedClient, guardedReads, isStorageAway } from "./guarded-client.js";
import { IdempotencyRows } from "./idempotency.js";
import { InviteRows } from "./invites.js";
import { MemberRows } from "./members.js";
import { assertSchemaKnown, migrate } from "./migrate.js";
import { latestSchemaVersion } from "./migrations/index.js";
import { OAuthRows } from "./oauth.js";
import { PasskeyRows } from "./passkeys.js";
import { type Preflight, readPreflight } from "./preflight.js";
import { QuietReads, type QuietReadsOptions } from "./quiet-reads.js";
import { ReplicaClient, type ReplicaClientOptions } from "./replica-client.js";
import { pullReplica, type ReplicaPull, replicaUrlProblem } from "./replica-pull.js";
import { replicaReads } from "./replica-reads.js";
import { SessionRows } from "./sessions.js";
import { SnapshotRows } from "./snapshots.js";
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
  readonly sessions: SessionRows;
  readonly snapshots: SnapshotRows;
  readonly audit: AuditRows;
  readonly members: MemberRows;
  readonly invites: InviteRows;
  readonly passkeys: PasskeyRows;
  readonly oauth: OAuthRows;

  readonly #inProcess: () => boolean;
  readonly #closeReads: () => void;
  /** When a call to storage last succeeded (performance.now()), or null when the newest one failed. */
  #answeredAt: number | null = null;

  /**
   * `inProcess` says whether the database is this process's own file (or memory, or an embedded replica's
   * copy once it has taken over from its primary): its page cache is then in this process, and a read is
   * answered here without a round trip. `reads` bring sealed rows and snapshot parts in bulk (binary-reads.ts);
   * by default the client's own.
   */
  constructor(
    readonly client: Client,
    inProcess: boolean | (() => boolean),
    reads: { rows: RowReads; close: () => void } = { rows: client, close: () => undefined },
  ) {
    this.#inProcess = typeof inProcess === "boolean" ? () => inProcess : inProcess;
    this.#closeReads = reads.close;
    this.teams = new TeamRows(client);
    this.documents = new DocumentRows(client, reads.rows);
    this.entries = new EntryRows(client, reads.rows);
    this.changes = new ChangeLog(client);
    this.sources = new SourceRows(client);
    this.pageEvents = new PageEventRows(client);
    this.deliveries = new DeliveryRows(client);
    this.idempotency = new IdempotencyRows(client);
    this.sessions = new SessionRows(client);
    this.snapshots = new SnapshotRows(client, reads.rows);
    this.audit = new AuditRows(client);
    this.members = new MemberRows(client);
    this.invites = new InviteRows(client);
    this.passkeys = new PasskeyRows(client);
    this.oauth = new OAuthRows(client);
  }

  get inProcess(): boolean {
    return this.#inProcess();
  }

  /** Records how a call to storage ended (guarded-client.ts). */
  answered(ok: boolean): void {
    this.#answeredAt = ok ? performance.now() : null;
  }

  /** Whether the newest call to storage succeeded, no more than `ms` ago. */
  answeredWithin(ms: number): boolean {
    return this.#answeredAt !== null && performance.now() - this.#answeredAt <= ms;
  }

  async ping(): Promise<void> {
    await this.client.execute("SELECT 1");
  }

  /**
   * Gives this connection's page cache back to malloc (SQLite's shrink_memory): the pages a burst of writes
   * or reads left cached are copies of the file, read again when next needed. Measured after a 20,002-passage
   * build through the batch route: ~1.6 MiB of the main thread's malloc heap. Remote storage caches nothing
   * here, so nothing is sent to it.
   */
  async releaseMemory(): Promise<void> {
    if (this.inProcess) await this.client.execute("PRAGMA shrink_memory");
  }

  close(): void {
    this.#closeReads();
    this.client.close();
  }
}

/**
 * How many of the newest teams a start's check reads. Each costs one unwrap (tens of microseconds) and a
 * row of about 80 bytes; 16 is enough that one odd team (say, copied in from elsewhere) does not decide the
 * check alone, and stays one small query over remote storage.
 */
export const PREFLIGHT_TEAM_SAMPLE = 16;

export interface OpenStorageOptions {
  /**
   * Runs on what storage holds before anything is written (no migration, no row); throwing refuses the
   * start and leaves storage untouched. The start checks the master key against the team keys here.
   */
  beforeWriting?: (found: Preflight) => Promise<void>;
  /** An embedded replica's progress: its copy took over from the primary, or a pull failed (and is retried). */
  replica?: Pick<ReplicaClientOptions, "tookOver" | "failed" | "retryMs">;
  /** How an embedded replica's copy is pulled (another process, replica-pull.ts); a test holds it to see the primary answer. */
  pullReplica?: (url: string, syncUrl: string, authToken: string | null) => ReplicaPull;
  /** When an embedded replica's copy begins (quiet-reads.ts); a test shortens the times. */
  copyAfter?: QuietReadsOptions;
}

/** Opens storage and brings its schema up to date; a schema newer than this code is a startup error. */
export async function openStorage(options: StorageOptions, open: OpenStorageOptions = {}): Promise<Storage> {
  const timeoutMs = options.timeoutMs ?? STORAGE_TIMEOUT_MS;
  let client: Client;
  const quiet = new QuietReads(open.copyAfter);
  try {
    client = options.syncUrl
      ? await replicaClient(options, options.syncUrl, timeoutMs, open, quiet)
      : await openClient(options);
  } catch (error) {
    throw storageOpenError(options, error);
  }
  try {
    const found = await readPreflight(client, PREFLIGHT_TEAM_SAMPLE);
    assertSchemaKnown(found.schemaVersion);
    await open.beforeWriting?.(found);
    // A replica whose driver cannot open it (no CA certificates for libSQL's native client, say) fails the
    // start before anything is written, as it did when the start pulled first. Its opening ran beside the
    // preflight's round trip.
    if (client instanceof ReplicaClient) await client.opened;
    // Storage already at this code's schema needs no migrating: two round trips fewer on every wake, ~40 ms
    // with storage 20 ms away.
    if (found.schemaVersion < latestSchemaVersion) await migrate(client);
  } catch (error) {
    client.close();
    throw storageOpenError(options, error);
  }
  // The start's own reads and migrations are not bounded by the storage timeout: a start waits for storage as
  // long as it answers (over HTTP, a connection silent for STALLED_CONNECTION_FACTOR timeouts is ended).
  const inProcess = client instanceof ReplicaClient ? () => client.local : isLocalUrl(options.url);
  const answered = (ok: boolean) => storage.answered(ok);
  const guarded = guardedClient(client, timeoutMs, answered);
  const storage: Storage = new Storage(
    guarded,
    inProcess,
    remoteReads(options, client, guarded, quiet, timeoutMs, answered) ?? undefined,
  );
  // The preflight has just been answered.
  storage.answered(true);
  return storage;
}

/**
 * Bulk reads over Hrana 3 for remote storage (binary-reads.ts), and for an embedded replica's primary until its
 * copy takes over (replica-reads.ts); null for a database in this process, whose reads are the client's.
 */
function remoteReads(
  options: StorageOptions,
  client: Client,
  guarded: Client,
  quiet: QuietReads,
  timeoutMs: number,
  answered: (ok: boolean) => void,
): { rows: RowReads; close: () => void } | null {
  const remote = client instanceof ReplicaClient ? (options.syncUrl ?? "") : options.url;
  if (isLocalUrl(remote)) return null;
  const target = binaryReadsTarget(remote);
  if (!target) return null;
  const reads = new BinaryReads({
    ...target,
    authToken: options.authToken ?? null,
    fetch: storageFetch(options),
  });
  const rows = guardedReads(reads, timeoutMs, answered);
  if (!(client instanceof ReplicaClient)) return { rows, close: () => reads.close() };
  return replicaReads({
    tookOver: client.whenLocal,
    local: guarded,
    primary: rows,
    quiet,
    closePrimary: () => reads.close(),
  });
}

/**
 * An embedded replica answering from its primary until its first pull is done (replica-client.ts). The start
 * checks and migrates the primary itself, so a fresh copy is never what a check reads.
 */
async function replicaClient(
  options: StorageOptions,
  syncUrl: string,
  timeoutMs: number,
  open: OpenStorageOptions,
  quiet: QuietReads,
): Promise<ReplicaClient> {
  const problem = replicaUrlProblem(options.url);
  if (problem) {
    throw new ConfigError(
      `Invalid configuration: MEMORIA_DB_URL cannot be an embedded replica's file: ${problem}.`,
    );
  }
  const pull = open.pullReplica ?? pullReplica;
  const authToken = options.authToken ?? null;
  const primary = await openClient({ ...options, url: syncUrl, syncUrl: null });
  try {
    return new ReplicaClient({
      primary,
      pull: () => pull(options.url, syncUrl, authToken),
      openReplica: () => openClient(options),
      settleMs: timeoutMs,
      copyWhen: () => quiet.quiet(),
      ...open.replica,
    });
  } catch (error) {
    primary.close();
    throw error;
  }
}

/**
 * Storage that could not be opened at start, for a reason a person can act on. Its message names where (the
 * URL's scheme and host: never a path's query, a user or a token) and why, and is printed as the start's
 * one line; an error of any other kind keeps its own type and is printed by name only.
 */
export class StorageOpenError extends Error {
  override readonly name = "StorageOpenError";
}

function storageOpenError(options: StorageOptions, error: unknown): unknown {
  const why =
    error instanceof Error && /no valid native root CA certificates/.test(error.message)
      ? "the system has no CA certificates for libSQL's native client to check the server with " +
        "(an embedded replica needs them: apt-get install ca-certificates, or set SSL_CERT_FILE)"
      : isStorageAway(error)
        ? "it cannot be reached"
        : null;
  if (why === null) return error;
  const where = options.syncUrl
    ? `${placeOf(options.url)}, an embedded replica of ${placeOf(options.syncUrl)}`
    : placeOf(options.url);
  return new StorageOpenError(`memoria failed to start: storage at ${where} could not be opened: ${why}.`, {
    cause: error,
  });
}

/** A storage URL as it may be printed: its scheme and host, or a file's path. */
function placeOf(url: string): string {
  if (isLocalUrl(url)) return url.split("?")[0] ?? url;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return "the configured URL";
  }
}
