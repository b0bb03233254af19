// The embedded default: `npm start`. Reads the environment once, opens storage, serves on PORT, and shuts
// down cleanly on SIGTERM/SIGINT (stop accepting, let in-flight requests finish within a bound, close storage).

import { serve } from "@hono/node-server";
import { createApp } from "../app.js";
import { systemClock } from "../clock.js";
import { ConfigError, parseConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { Keyring } from "../seal/keyring.js";
import { importMasterKeys } from "../seal/master.js";
import { SchemaTooNewError } from "../store/migrate.js";
import { openStorage } from "../store/storage.js";
import { withLocalSecrets } from "./local-secrets.js";

/** How long in-flight requests get to finish after a shutdown signal before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const { config, notices } = withLocalSecrets(parseConfig(process.env));
  const logger = createLogger(config.logLevel);
  for (const notice of notices) console.warn(notice);
  if (!config.masterKey) throw new ConfigError("Invalid configuration: MEMORIA_MASTER_KEY is required.");
  const keyring = new Keyring(await importMasterKeys(config.masterKey, config.previousMasterKey));
  const storage = await openStorage(config.db);
  const memoria = createApp({ config, storage, keyring, clock: systemClock, logger });

  const server = serve({ fetch: memoria.app.fetch, port: config.port, hostname: "0.0.0.0" }, (info) => {
    logger.info("listening", { port: info.port, storage: config.db.url.split(":")[0] });
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      memoria.close();
      storage.close();
      process.exit(0);
    });
    // Node's close() waits for keep-alive sockets too; idle ones are closed so only real work is waited for.
    if ("closeIdleConnections" in server) server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof SchemaTooNewError) {
    console.error(error.message);
  } else {
    console.error(`memoria failed to start: ${error instanceof Error ? error.name : "unknown error"}`);
  }
  process.exit(1);
});
