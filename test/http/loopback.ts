// Serves a test app on a loopback port with @hono/node-server, as `npm start` does, so the app sees a real
// socket (and its peer address) and real headers.

import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { TestApp } from "../support/app.js";

export interface Served {
  /** http://127.0.0.1:<port> */
  base: string;
  close(): Promise<void>;
}

export async function serveOnLoopback(app: TestApp): Promise<Served> {
  const server = serve({ fetch: app.memoria.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}
