// The startup both server entries share (node.ts, deno.ts): read the environment once, print the local-secret
// notices, load the keys, open storage and build the app. A start that fails prints one line and exits 1.

import process from "node:process";
import { setTimeout } from "node:timers";
import { createApp, type Memoria } from "../app.js";
import { systemClock } from "../clock.js";
import { type Config, ConfigError, parseConfig } from "../config.js";
import { createLogger, type Logger } from "../logger.js";
import { Keyring } from "../seal/keyring.js";
import { importMasterKeys } from "../seal/master.js";
import { SchemaTooNewError } from "../store/migrate.js";
import { openStorage, type Storage } from "../store/storage.js";
import { ChunkPool } from "./chunk-pool.js";
import { withLocalSecrets } from "./local-secrets.js";

/** How long in-flight requests get to finish after a shutdown signal before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** The address a server binds: every interface, as a server in a container must. */
export const HOSTNAME = "0.0.0.0";

export interface Started {
  memoria: Memoria;
  storage: Storage;
  config: Config;
  logger: Logger;
  /** Chunks large documents off the request thread; closed with the app. */
  chunkPool: ChunkPool;
}

export async function startMemoria(env: Record<string, string | undefined>): Promise<Started> {
  const { config, notices } = withLocalSecrets(parseConfig(env));
  const logger = createLogger(config.logLevel);
  for (const notice of notices) console.warn(notice);
  if (!config.masterKey) throw new ConfigError("Invalid configuration: MEMORIA_MASTER_KEY is required.");
  const keyring = new Keyring(await importMasterKeys(config.masterKey, config.previousMasterKey));
  const storage = await openStorage(config.db);
  const chunkPool = new ChunkPool();
  const memoria = createApp({
    config,
    storage,
    keyring,
    clock: systemClock,
    logger,
    chunker: chunkPool.chunker,
  });
  return { memoria, storage, config, logger, chunkPool };
}

/** The line logged once the server listens; tests read the port from it. */
export function logListening({ config, logger }: Started, port: number): void {
  logger.info("listening", { port, storage: config.db.url.split(":")[0] });
}

/**
 * After the server has stopped: lets work begun after an answer (a Notion event's fetching) finish, within
 * the caller's shutdown bound, then ends the chunk workers and releases the app's indexes and storage.
 */
export async function closeMemoria({ memoria, storage, chunkPool }: Started): Promise<void> {
  await memoria.sources.idle();
  await chunkPool.close();
  memoria.close();
  storage.close();
}

/** The one line a failed start prints: a configuration or schema message as is, anything else by name only. */
export function startupMessage(error: unknown): string {
  if (error instanceof ConfigError || error instanceof SchemaTooNewError) return error.message;
  return `memoria failed to start: ${error instanceof Error ? error.name : "unknown error"}`;
}

export function startupFailure(error: unknown): never {
  console.error(startupMessage(error));
  process.exit(1);
}

/**
 * The stop both entries make on SIGTERM or SIGINT, once whatever the signals: log it, `drain` (stop accepting
 * and let the requests in flight answer), then close the app (waiting for its background work) and storage,
 * and exit 0. Past SHUTDOWN_GRACE_MS the process exits 1 whatever is still running.
 */
export function stopOnce(
  { logger, ...started }: Started,
  drain: () => Promise<void>,
  exit: (code: number) => void,
): (signal: string) => void {
  let stopping = false;
  return (signal) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    setTimeout(() => exit(1), SHUTDOWN_GRACE_MS).unref();
    drain()
      .then(() => closeMemoria({ logger, ...started }))
      .then(
        () => exit(0),
        () => exit(1),
      );
  };
}
