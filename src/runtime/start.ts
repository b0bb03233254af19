// The startup both server entries share (node.ts, deno.ts): read the environment once, print the local-secret
// notices, load the keys, check them against storage, migrate it and build the app; the entry then listens
// on MEMORIA_HOST:PORT. A start that fails prints one line naming the cause and exits 1.

import { availableParallelism, totalmem } from "node:os";
import process from "node:process";
import { setTimeout } from "node:timers";
import type { Memoria } from "../app.js";
import { systemClock } from "../clock.js";
import { type Config, ConfigError, parseConfig } from "../config.js";
import { createLogger, type Logger } from "../logger.js";
import { Keyring } from "../seal/keyring.js";
import { importMasterKeys, type MasterKeys } from "../seal/master.js";
import { checkMasterKeys } from "../seal/master-check.js";
import { SchemaTooNewError } from "../store/migrate.js";
import type { Preflight } from "../store/preflight.js";
import { REPLICA_PULL_RETRY_MS } from "../store/replica-client.js";
import { openStorage, type Storage, StorageOpenError } from "../store/storage.js";
import { ChunkPool } from "./chunk-pool.js";
import { ExtractPool } from "./extract-pool.js";
import { withLocalSecrets } from "./local-secrets.js";
import { SearchThreads } from "./search-threads.js";

/** How long in-flight requests get to finish after a shutdown signal before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * The umask a start sets before it creates anything: files it makes (the database and its journal, the
 * generated master key and admin token) come out 0600 and folders 0700, readable by this user only, whatever
 * the shell's umask. A umask rather than a chmod after the fact, because SQLite creates its journal and
 * libSQL its files on their own, and there is no moment at which they exist readable to others. Files and
 * folders that already exist keep the modes the operator gave them.
 */
export const PRIVATE_UMASK = 0o077;

const MIB = 1024 * 1024;

/**
 * MEMORIA_INDEX_MEMORY_MB's default: a quarter of the machine's memory, so the indexes leave room for the
 * process's own heap, the build's transient copies (~5 bytes of RSS a byte of text while building)
 * and other processes; capped at 8 GiB, past which one instance should rather be several.
 */
export function defaultIndexMemoryMb(totalBytes = totalmem()): number {
  return Math.max(1, Math.min(8 * 1024, Math.floor(totalBytes / 4 / MIB)));
}

export interface Started {
  memoria: Memoria;
  storage: Storage;
  config: Config;
  logger: Logger;
  /** Chunks large documents off the request thread; closed with the app. */
  chunkPool: ChunkPool;
  /** Reads PDF and DOCX uploads off the request thread; closed with the app. */
  extractPool: ExtractPool;
  /** Runs searches on every core (MEMORIA_SEARCH_THREADS); null when searches run on the main thread alone. */
  searchThreads: SearchThreads | null;
}

/**
 * The search threads MEMORIA_SEARCH_THREADS asks for, one per core when unset; none at 1. A search waits for a
 * write's commit as long as it may wait for its turn (MEMORIA_QUEUE_TIMEOUT_MS), then it is the same 503.
 */
export function searchThreadsFor(
  config: Pick<Config, "searchThreads" | "searchQueueTimeoutMs"> & Partial<Pick<Config, "tuning">>,
): SearchThreads | null {
  const threads = config.searchThreads ?? availableParallelism();
  const { searchQueueTimeoutMs: busyTimeoutMs, tuning } = config;
  return threads > 1 ? new SearchThreads({ threads, busyTimeoutMs, ...(tuning ? { tuning } : {}) }) : null;
}

export async function startMemoria(env: Record<string, string | undefined>): Promise<Started> {
  process.umask(PRIVATE_UMASK);
  const { config, notices } = withLocalSecrets(parseConfig(env));
  const logger = createLogger(config.logLevel);
  for (const notice of notices) console.warn(notice);
  if (!config.masterKey) throw new ConfigError("Invalid configuration: MEMORIA_MASTER_KEY is required.");
  const master = await importMasterKeys(config.masterKey, config.previousMasterKey);
  // The app's code (most of what a start compiles) loads while storage answers the start's first calls: over
  // a network, their round trips pass during the compiling rather than after it (decision 0107).
  const appModule = import("../app.js");
  // A failure to load is thrown where it is awaited below, not as an unhandled rejection meanwhile.
  appModule.catch(() => undefined);
  const storage = await openStorage(config.db, {
    beforeWriting: (found) => requireMasterKeyOpens(master, found, logger),
    replica: {
      tookOver: (ms) => logger.info("replica took over from its primary", { ms: Math.round(ms) }),
      // The driver's message names what failed (a refused connection, a certificate, a status); it carries
      // no content, only what storage said of itself.
      failed: (error) =>
        logger.warn("replica pull failed; the primary answers meanwhile", {
          error: error instanceof Error ? error.message.slice(0, 200) : "unknown",
          retryInMs: REPLICA_PULL_RETRY_MS,
        }),
    },
  });
  const chunkPool = new ChunkPool();
  const extractPool = new ExtractPool();
  const searchThreads = searchThreadsFor(config);
  const { snapshotMinChunks, ...appConfig } = config;
  const { createApp } = await appModule;
  const memoria = createApp({
    config: {
      ...appConfig,
      indexMemoryBytes: (config.indexMemoryMb ?? defaultIndexMemoryMb()) * MIB,
      ...(snapshotMinChunks !== null ? { snapshotMinChunks } : {}),
    },
    storage,
    keyring: new Keyring(master),
    clock: systemClock,
    logger,
    chunker: chunkPool.chunker,
    packText: (documents) => chunkPool.packText(documents),
    extractor: extractPool.extractor,
    ...(searchThreads ? { finder: searchThreads } : {}),
  });
  return { memoria, storage, config, logger, chunkPool, extractPool, searchThreads };
}

/**
 * Refuses a master key that opens none of the team keys storage already holds: such a start would serve
 * every team as unreadable and wrap each new team with the wrong key. Some but not all opening is a team
 * left behind by a rotation (or copied in): the start goes on, and says how many.
 */
async function requireMasterKeyOpens(master: MasterKeys, found: Preflight, logger: Logger): Promise<void> {
  const { tried, unopened } = await checkMasterKeys(master, found.teamKeys);
  if (tried > 0 && unopened === tried) {
    throw new ConfigError(
      `Invalid configuration: MEMORIA_MASTER_KEY does not open the team keys in storage (none of the ${tried} ` +
        `checked${master.previous ? ", with MEMORIA_MASTER_KEY_PREVIOUS too" : ""}); nothing was written. ` +
        "Start with the key this storage was made with.",
    );
  }
  if (unopened > 0) logger.warn("team keys the master key does not open", { checked: tried, unopened });
}

/**
 * The address to open in a browser: a wildcard host (0.0.0.0, ::) is served on loopback too, so it is named
 * as localhost; an IPv6 literal goes in brackets.
 */
export function listeningUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" || host === "" ? "localhost" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}/`;
}

/** The line logged once the server listens; tests read the port from it, people the URL. */
export function logListening({ config, logger }: Started, port: number): void {
  logger.info("listening", {
    port,
    host: config.host,
    storage: config.db.url.split(":")[0],
    url: listeningUrl(config.host, port),
  });
}

/** A listen that failed, told in one line naming the variable to change. */
export class ListenError extends Error {
  override readonly name = "ListenError";
}

/**
 * Names the cause of a failed listen from Node's error codes or Deno's (Deno's errors carry the same
 * `code`, except a host name that does not resolve, which is a plain Error saying so).
 */
export function listenError(error: unknown, { host, port }: Config): ListenError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  const cannot = "memoria cannot listen:";
  if (code === "EADDRINUSE") return new ListenError(`${cannot} PORT ${port} is already in use on ${host}.`);
  if (code === "EACCES") {
    return new ListenError(`${cannot} PORT ${port} on ${host} needs privileges this process does not have.`);
  }
  if (code === "EADDRNOTAVAIL") {
    return new ListenError(`${cannot} MEMORIA_HOST ${host} is not an address of this machine.`);
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || /failed to lookup address/.test(message)) {
    return new ListenError(`${cannot} MEMORIA_HOST ${host} does not resolve to an address.`);
  }
  const cause = typeof code === "string" ? code : error instanceof Error ? error.name : "unknown error";
  return new ListenError(`${cannot} MEMORIA_HOST ${host}, PORT ${port}: ${cause}.`);
}

/**
 * How long of the shutdown a stop spends writing the sealed snapshots of loaded teams whose stored one is
 * behind: half of SHUTDOWN_GRACE_MS, so the requests' drain before it and the closing after it keep the rest.
 * Teams are written one at a time while this lasts; one begun is finished if the grace allows (the reindex
 * ping that wrote an 87k-passage team's took 7.1 s on `file:` and 14.4 s on sqld when measured). One
 * cut short by the grace exit leaves the old snapshot in place: its head moves only at the end.
 */
export const SHUTDOWN_SNAPSHOT_MS = SHUTDOWN_GRACE_MS / 2;

/**
 * How long a stop waits for held audit events to be written (services/audit.ts): one statement, a round
 * trip or two when storage answers; when it does not, the snapshots are worth more of the grace.
 */
export const SHUTDOWN_AUDIT_MS = 2_000;

/**
 * After the server has stopped: lets work begun after an answer (a Notion event's fetching) finish, writes
 * the snapshots of loaded teams that are behind (within SHUTDOWN_SNAPSHOT_MS), all within the caller's
 * shutdown bound, then ends the chunk threads and releases the app's indexes and storage.
 */
export async function closeMemoria({
  memoria,
  storage,
  chunkPool,
  extractPool,
  searchThreads,
  logger,
}: Started): Promise<void> {
  await memoria.sources.idle();
  // Held audit events get one more try, bounded: a stalled storage must not eat the snapshots' time.
  await memoria.audit.flush(SHUTDOWN_AUDIT_MS);
  await snapshotLoadedTeams(memoria, logger, performance.now() + SHUTDOWN_SNAPSHOT_MS);
  await chunkPool.close();
  await extractPool.close();
  await searchThreads?.close();
  memoria.close();
  storage.close();
}

/** Refreshes each loaded team's snapshot, one team at a time, starting none past `until` (performance.now()). */
async function snapshotLoadedTeams(memoria: Memoria, logger: Logger, until: number): Promise<void> {
  // Snapshots a build began in the background come first, within the same bound.
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    memoria.indexes.snapshotsSettled(),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, until - performance.now()));
    }),
  ]);
  clearTimeout(timer);
  for (const teamId of memoria.indexes.loadedTeams()) {
    if (performance.now() >= until) {
      logger.warn("shutdown left index snapshots behind", { teamId });
      return;
    }
    try {
      const key = await memoria.directory.teamKey(teamId);
      if (key) await memoria.indexes.refreshSnapshot(key);
    } catch (error) {
      logger.warn("index snapshot not written", {
        teamId,
        error: error instanceof Error ? error.name : "unknown",
      });
    }
  }
}

/**
 * The one line a failed start prints: a configuration, schema or listen message as is, anything else by
 * name only.
 */
export function startupMessage(error: unknown): string {
  if (
    error instanceof ConfigError ||
    error instanceof SchemaTooNewError ||
    error instanceof ListenError ||
    error instanceof StorageOpenError
  ) {
    return error.message;
  }
  return `memoria failed to start: ${error instanceof Error ? error.name : "unknown error"}`;
}

export function startupFailure(error: unknown): never {
  console.error(startupMessage(error));
  process.exit(1);
}

/**
 * The stop both entries make on SIGTERM or SIGINT, once whatever the signals: log it, stop the entry's own
 * housekeeping (`quiet`), `drain` (stop accepting and let the requests in flight answer), then close the app
 * (waiting for its background work) and storage, and exit 0. Past SHUTDOWN_GRACE_MS the process exits 1
 * whatever is still running.
 *
 * `quiet` comes first because the housekeeping acts on what is about to close: an idle moment during a long
 * drain or a snapshot written at the stop would otherwise ask storage, being closed, to release its page cache.
 */
export function stopOnce(
  { logger, ...started }: Started,
  drain: () => Promise<void>,
  exit: (code: number) => void,
  quiet: () => void = () => {},
): (signal: string) => void {
  let stopping = false;
  return (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    quiet();
    setTimeout(() => exit(1), SHUTDOWN_GRACE_MS).unref();
    drain()
      .then(() => closeMemoria({ logger, ...started }))
      .then(
        () => exit(0),
        () => exit(1),
      );
  };
}
