/// <reference types="deno" />
// `npm run start:deno`: the same app and environment as node.ts, served with Deno.serve. Shuts down the same
// way on SIGTERM/SIGINT: stop accepting, let in-flight requests finish within a bound, close storage, exit 0.

import process from "node:process";
import { setTimeout } from "node:timers";
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

  const server = Deno.serve(
    { port: config.port, hostname: HOSTNAME, onListen: ({ port }) => logListening(started, port) },
    memoria.app.fetch,
  );

  let stopping = false;
  const stop = (signal: Deno.Signal) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    setTimeout(() => Deno.exit(1), SHUTDOWN_GRACE_MS).unref();
    // shutdown() stops accepting at once and resolves when the requests already in flight have answered.
    server
      .shutdown()
      .then(() => closeMemoria(started))
      .then(
        () => Deno.exit(0),
        () => Deno.exit(1),
      );
  };
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
}

main().catch(startupFailure);
