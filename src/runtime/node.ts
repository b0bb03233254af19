// The embedded default: `npm start`. Reads the environment once, opens storage, serves on PORT, and shuts
// down cleanly on SIGTERM/SIGINT (stop accepting, let in-flight requests finish within a bound, close storage).

import { serve } from "@hono/node-server";
import {
  closeMemoria,
  HOSTNAME,
  logListening,
  SHUTDOWN_GRACE_MS,
  startMemoria,
  startupFailure,
} from "./start.js";

async function main(): Promise<void> {
  const started = await startMemoria(process.env);
  const { memoria, config, logger } = started;

  const server = serve({ fetch: memoria.app.fetch, port: config.port, hostname: HOSTNAME }, (info) => {
    logListening(started, info.port);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      closeMemoria(started).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    // Node's close() waits for keep-alive sockets too; idle ones are closed so only real work is waited for.
    if ("closeIdleConnections" in server) server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch(startupFailure);
