// The Node HTTP server around the app (@hono/node-server), with the one timeout Node leaves open: a client
// that stops sending in the middle of a request is dropped after `idleTimeoutMs` without a byte, instead of
// holding its socket and buffers until Node's 300 s request timeout (a trickled body was measured still
// held at 170 s). A slow but steady upload is never cut: every byte that arrives restarts the clock.

import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { closeIdleAfterPendingReads } from "./keep-alive.js";
import { lingerOnEarlyAnswers } from "./lingering-close.js";

/**
 * 30 s of silence mid-request: nginx's client_body_timeout is 60 s; docs/api.md asks for at most 30. Longer than
 * any pause a live client makes between two packets, short enough that a stalled body is gone quickly.
 */
export const IDLE_REQUEST_TIMEOUT_MS = 30_000;

export interface NodeServerOptions {
  fetch: (request: Request) => Response | Promise<Response>;
  port: number;
  hostname: string;
  /** Tests shorten it; the entry uses IDLE_REQUEST_TIMEOUT_MS. */
  idleTimeoutMs?: number;
}

export function serveNode(
  options: NodeServerOptions,
  onListen: (info: { port: number }) => void,
): ServerType {
  const { fetch, port, hostname, idleTimeoutMs = IDLE_REQUEST_TIMEOUT_MS } = options;
  const server = serve({ fetch, port, hostname }, onListen) as Server;
  // Keep-alive sockets between requests close only after the reads waiting on a held event loop ran.
  closeIdleAfterPendingReads(server);
  // An answer sent before its request's body ended reaches a client that is still sending.
  lingerOnEarlyAnswers(server);
  // The request each socket is on, so a timeout can tell a stalled body from an answer being worked on.
  const current = new WeakMap<Socket, IncomingMessage>();
  server.on("request", (req: IncomingMessage) => current.set(req.socket, req));
  // A socket idle this long emits "timeout"; with a listener here, Node leaves the decision to it.
  server.setTimeout(idleTimeoutMs);
  server.on("timeout", (socket: Socket) => {
    const req = current.get(socket);
    // No request yet (headers stalled), or a body still due: drop. A complete request whose answer is
    // still being made (a long reindex) keeps its socket; keep-alive sockets have their own 5 s timeout.
    if (!req?.complete) socket.destroy();
  });
  return server;
}
