// The embedded default: `npm start`. Reads the environment once, opens storage, serves on MEMORIA_HOST:PORT,
// and shuts down cleanly on SIGTERM/SIGINT (stop accepting, let in-flight requests finish within a bound,
// close storage). A listen that fails (a busy port, a host that is not this machine's) is one line, exit 1.

import type { Server } from "node:http";
import { serveNode } from "./node-server.js";
import { closeMemoria, listenError, logListening, startMemoria, startupFailure, stopOnce } from "./start.js";
import { IdleCollection } from "./tuning/idle-collection.js";
import { MallocTrim } from "./tuning/malloc-trim.js";

/** Resolves once the server listens, rejects with its listen error; later errors are not swallowed here. */
function listened(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      resolve();
    });
  });
}

async function main(): Promise<void> {
  const started = await startMemoria(process.env);
  const { memoria, config } = started;
  const { tuning } = config;
  const MiB = 1024 * 1024;
  const trim = tuning["malloc-trim"]
    ? new MallocTrim({
        trimmed: (ms) => started.logger.debug("malloc trim", { ms: Math.round(ms * 10) / 10 }),
      })
    : null;
  const collection = new IdleCollection({
    collects: tuning["idle-collection"],
    busy: () => memoria.indexes.backgroundBusy(),
    collected: (ms, heldBefore, heldAfter) => {
      started.logger.debug("idle collection", {
        ms: Math.round(ms),
        heldBeforeMiB: Math.round(heldBefore / MiB),
        heldAfterMiB: Math.round(heldAfter / MiB),
      });
      // What the collection freed went back to malloc, which keeps most of it (malloc-trim.ts).
      trim?.request();
    },
    // A burst of searches with too little growth for a collection still leaves malloc's arenas holding what
    // the engine freed: 5–9 MiB after 300 long questions, given back by the trim (decision 0080). The page
    // caches of the index writers and of storage go back to malloc first (decision 0082).
    idled: () => {
      if (!tuning["page-cache-release"]) {
        trim?.request();
        return;
      }
      memoria.indexes.releaseMemory();
      started.storage
        .releaseMemory()
        .catch((error: unknown) =>
          started.logger.warn("storage memory release failed", {
            error: error instanceof Error ? error.name : "unknown",
          }),
        )
        .finally(() => trim?.request());
    },
  });

  const server = serveNode(
    { fetch: collection.around(memoria.app.fetch), port: config.port, hostname: config.host },
    (info) => {
      logListening(started, info.port);
    },
  );
  try {
    await listened(server as Server);
  } catch (error) {
    await closeMemoria(started);
    throw listenError(error, config);
  }

  const stop = stopOnce(
    started,
    () =>
      new Promise<void>((drained) => {
        server.close(() => drained());
        // Node's close() waits for keep-alive sockets too; idle ones are closed so only real work is waited for.
        if ("closeIdleConnections" in server) server.closeIdleConnections();
      }),
    (code) => process.exit(code),
    () => {
      collection.stop();
      trim?.stop();
    },
  );
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch(startupFailure);
