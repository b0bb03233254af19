/// <reference types="deno" />
// `npm run start:deno`: the same app and environment as node.ts, served with Deno.serve. Shuts down the same
// way on SIGTERM/SIGINT: stop accepting, let in-flight requests finish within a bound, close storage, exit 0.
// A listen that fails prints the same one line as Node's and exits 1.

import process from "node:process";
import { closeMemoria, listenError, logListening, startMemoria, startupFailure, stopOnce } from "./start.js";

async function main(): Promise<void> {
  const started = await startMemoria(process.env);
  const { memoria, config } = started;

  // Deno.serve (2.9) has no header, body or idle timeout to set: a client that stalls mid-body holds its
  // connection until it goes away. What it holds is bounded: no body is read before the route's
  // credentials (src/http/body-limit.ts), and then only as far as the limit.
  let server: Deno.HttpServer;
  try {
    // Deno.serve throws at once when it cannot listen.
    server = Deno.serve(
      { port: config.port, hostname: config.host, onListen: ({ port }) => logListening(started, port) },
      memoria.app.fetch,
    );
  } catch (error) {
    await closeMemoria(started);
    throw listenError(error, config);
  }

  // shutdown() stops accepting at once and resolves when the requests already in flight have answered.
  const stop = stopOnce(
    started,
    () => server.shutdown(),
    (code) => Deno.exit(code),
  );
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
}

main().catch(startupFailure);
