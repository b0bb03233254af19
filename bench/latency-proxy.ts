// A TCP proxy on loopback that adds a round trip to every exchange with the server behind it: each chunk of
// bytes is held half the round trip on its way in and half on its way out, in order, with no bandwidth
// limit. It stands between memoria and a real sqld so the remote suite sees what storage across a network
// costs (Turso's region a few milliseconds away, or across a continent at 20 ms), without any network here.

import { connect, createServer, type Server, type Socket } from "node:net";

export interface LatencyProxy {
  /** The proxy's own `http://127.0.0.1:<port>` URL, to give memoria instead of the server's. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Forwards `from`'s bytes to `to`, each chunk `delayMs` after it arrived; order is kept, pauses are not. */
function delayed(from: Socket, to: Socket, delayMs: number): void {
  const queue: { at: number; chunk: Buffer }[] = [];
  let scheduled = false;
  let ended = false;
  const flush = () => {
    scheduled = false;
    const now = performance.now();
    while (queue.length > 0 && (queue[0]?.at ?? Infinity) <= now) {
      const next = queue.shift();
      if (next && !to.destroyed) to.write(next.chunk);
    }
    const head = queue[0];
    if (head) schedule(head.at - now);
    else if (ended && !to.destroyed) to.end();
  };
  function schedule(ms: number) {
    if (scheduled) return;
    scheduled = true;
    setTimeout(flush, Math.max(0, ms));
  }
  from.on("data", (chunk: Buffer) => {
    queue.push({ at: performance.now() + delayMs, chunk });
    schedule(delayMs);
  });
  from.on("end", () => {
    ended = true;
    schedule(delayMs);
  });
}

/** Starts a proxy to `target` (`host:port`) that adds `roundTripMs` to every round trip through it. */
export async function startLatencyProxy(target: { host: string; port: number }, roundTripMs: number) {
  const sockets = new Set<Socket>();
  const oneWay = roundTripMs / 2;
  // Half-open sockets: when one side ends, what is still held for its delay is delivered before the other
  // side is ended (delayed's flush), as a network would deliver it.
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ port: target.port, host: target.host, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on("close", () => sockets.delete(socket));
      // A reset on one side ends the other: the client sees what a dropped connection looks like.
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    delayed(client, upstream, oneWay);
    delayed(upstream, client, oneWay);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  } satisfies LatencyProxy;
}
