// A Node server set up as src/runtime/node.ts sets up memoria's (@hono/node-server, closeIdleAfterPendingReads
// unless KEEP_ALIVE_FIX=off), with three routes for test/runtime/keep-alive.test.ts: /ping, /hold (holds the
// event loop `ms` milliseconds, as seconds of synchronous work would) and /upload (reads the whole body).

import type { Server } from "node:http";
import { type HttpBindings, serve } from "@hono/node-server";
import { Hono } from "hono";
import { closeIdleAfterPendingReads } from "../../src/runtime/keep-alive.js";

const app = new Hono<{ Bindings: HttpBindings }>();
app.get("/ping", (c) => c.json({ port: c.env.incoming.socket.remotePort }));
app.get("/hold", (c) => {
  const until = Date.now() + Number(c.req.query("ms"));
  while (Date.now() < until) {
    // Holding the loop is the point.
  }
  return c.json({ held: true });
});
app.post("/upload", async (c) => {
  const body = await c.req.arrayBuffer();
  return c.json({ bytes: body.byteLength, port: c.env.incoming.socket.remotePort });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
  console.log(JSON.stringify({ message: "listening", port: info.port })),
);
if (process.env.KEEP_ALIVE_FIX !== "off") closeIdleAfterPendingReads(server as Server);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
