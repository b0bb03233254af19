// Closing idle keep-alive connections without cutting off a request that has already arrived on one.
//
// Node's server closes a connection whose keep-alive timer fires (5 s after its last answer, plus 1 s of
// slack). After the event loop was held (seconds of synchronous work, a long GC pause), the timers of that
// turn run before the reads that waited on it, so a connection whose next request arrived during the hold is
// closed with that request unread: the client, still sending it, gets EPIPE or ECONNRESET, and the server
// logs nothing. Measured: Node 20's fetch reusing its connection while another upload held the loop for ~15 s
// failed with ECONNRESET; curl and fresh connections never meet a timer. Deferring the close to the check
// phase lets the waiting reads go first: a connection with a new request by then is kept.

import type { Server } from "node:http";
import type { Socket } from "node:net";
import { setImmediate } from "node:timers";

export function closeIdleAfterPendingReads(server: Server): void {
  const requests = new WeakMap<Socket, number>();
  // Sockets with a request being received or answered: not idle, whatever timer fired. The server's idle
  // request timeout (src/runtime/node-server.ts) also fires "timeout", and decides those sockets itself.
  const answering = new WeakSet<Socket>();
  server.on(
    "request",
    (req: { socket: Socket }, res: { once(event: "close", listener: () => void): void }) => {
      requests.set(req.socket, (requests.get(req.socket) ?? 0) + 1);
      answering.add(req.socket);
      res.once("close", () => answering.delete(req.socket));
    },
  );
  // With a listener, Node leaves the timed-out socket to it: the keep-alive timer of a socket between
  // requests, and the idle timeout of one mid-request (left to node-server.ts's listener).
  server.on("timeout", (socket: Socket) => {
    if (answering.has(socket)) return;
    const seen = requests.get(socket);
    setImmediate(() => {
      if (requests.get(socket) === seen) socket.destroy();
    });
  });
}
