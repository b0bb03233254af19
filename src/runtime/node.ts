// The embedded default: `npm start`. Reads the environment once, opens storage, serves on PORT, and shuts
// down cleanly on SIGTERM/SIGINT (stop accepting, let in-flight requests finish within a bound, close storage).

import { serveNode } from "./node-server.js";
import { HOSTNAME, logListening, startMemoria, startupFailure, stopOnce } from "./start.js";

async function main(): Promise<void> {
  const started = await startMemoria(process.env);
  const { memoria, config } = started;

  const server = serveNode({ fetch: memoria.app.fetch, port: config.port, hostname: HOSTNAME }, (info) => {
    logListening(started, info.port);
  });

  const stop = stopOnce(
    started,
    () =>
      new Promise<void>((drained) => {
        server.close(() => drained());
        // Node's close() waits for keep-alive sockets too; idle ones are closed so only real work is waited for.
        if ("closeIdleConnections" in server) server.closeIdleConnections();
      }),
    (code) => process.exit(code),
  );
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch(startupFailure);
