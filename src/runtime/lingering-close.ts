// Lingering close (as Apache's lingering_close, RFC 9112 §9.6): an answer given before its request's body
// ended (a 413, a 401 to an upload) says `Connection: close`, and Node then closes the socket as soon as the
// answer is written. Closing a socket with unread bytes in its receive buffer makes the kernel send a reset
// instead of a FIN, and a client still sending its body loses the answer queued for it: seen over loopback,
// a chunked upload past its limit got no 413 at all, one try in three. So such a socket is half-closed
// instead (the answer and a FIN go out), what the client still sends is read and dropped, and the socket is
// destroyed when the client stops sending, after LINGER_MS, or past LINGER_MAX_BYTES, whichever comes first.

import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/** Long enough for a client on any network to read an answer and stop; short enough to hold nothing long. */
export const LINGER_MS = 2_000;
/**
 * Bytes read and dropped while lingering, at most: a client that reads no answer stops costing anything
 * here. 16 MiB is far more than any client sends after an answer it reads (its socket buffers).
 */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
/** How often the bytes read while lingering are checked against LINGER_MAX_BYTES. */
const CHECK_EVERY_MS = 50;

export function lingerOnEarlyAnswers(server: Server): void {
  server.on("request", (req: IncomingMessage) => {
    const socket = req.socket as Socket & { destroySoon?: () => void };
    const destroySoon = socket.destroySoon;
    if (typeof destroySoon !== "function") return;
    // Node's server calls destroySoon once an answer marked `Connection: close` is written; on a socket
    // whose request is still arriving, it lingers instead. Set for each request, as a socket carries many.
    socket.destroySoon = function lingeringDestroySoon(this: Socket) {
      if (req.complete) return destroySoon.call(this);
      linger(this, req);
    };
  });
}

function linger(socket: Socket, req: IncomingMessage): void {
  socket.end();
  const readAtStart = socket.bytesRead;
  const done = () => {
    clearTimeout(timer);
    clearInterval(check);
    socket.destroy();
  };
  const timer = setTimeout(done, LINGER_MS);
  const check = setInterval(() => {
    if (socket.bytesRead - readAtStart > LINGER_MAX_BYTES) done();
  }, CHECK_EVERY_MS);
  timer.unref();
  check.unref();
  // The client's FIN: it has stopped sending, and has the answer. (Node's HTTP sockets allow half-open
  // connections, so its end does not close this one by itself.)
  socket.once("end", done);
  socket.once("close", done);
  // The HTTP parser reads the socket only as fast as the request is read, and the route stopped reading it:
  // its rest is dropped as Node drops a body nobody reads (IncomingMessage's own _dump), or the client's
  // bytes back up, it never sees the FIN, and the socket waits out LINGER_MS.
  req.removeAllListeners("data");
  req.resume();
}
