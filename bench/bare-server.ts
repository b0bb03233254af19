// The machine's own HTTP floor: a process that answers every request with `{"ok":true}` from node:http and does
// nothing else. The real suite asks it in the same turn as memoria (each question's floor first, then one
// request), so a run shows what a request over this loopback costs before any of memoria's code: on the
// machine of 2026-12-06, 0.8 ms back to back and 2.0–2.3 ms after the 40 ms pause a long question's floor
// makes (docs/decisions/0094-short-questions-time-by-phase.md).

import { spawn } from "node:child_process";
import { listeningPort } from "./server.js";

const SOURCE = `
const server = require("node:http").createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"ok":true}');
});
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ message: "listening", port: server.address().port })));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`;

export interface BareServer {
  /** Where it answers, e.g. `http://127.0.0.1:40123`. */
  base: string;
  close(): Promise<void>;
}

/** Starts the bare server in a process of its own; resolves once it listens. */
export async function startBareServer(): Promise<BareServer> {
  const child = spawn(process.execPath, ["-e", SOURCE], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const port = await listeningPort(child, "the bare server");
  return {
    base: `http://127.0.0.1:${port}`,
    async close() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
