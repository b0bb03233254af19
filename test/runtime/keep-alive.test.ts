// A large upload from Node's own fetch on a reused keep-alive connection, while the server's event loop is
// held past that connection's keep-alive timer: the failure reported as EPIPE. Real
// processes, real HTTP on loopback, Node's fetch as the client.

import { spawn } from "node:child_process";
import { get } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { finished, listening, root } from "../support/processes.js";

const server = join(root, "test/support/keep-alive-server.ts");

/** Node's default keep-alive timeout (5 s, which the server announces) plus the 1 s it adds before closing. */
const SERVER_CLOSES_IDLE_AFTER_MS = 6_000;
/**
 * When the upload is sent after the small request: Node's fetch (undici) drops an idle connection 2 s before
 * the announced 5 s, so it still reuses the connection at 1.5 s (the answer's port proves it did).
 */
const HOLD_AT_MS = 1_000;
const UPLOAD_AT_MS = 1_500;

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", server], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { child, done: finished(child), port: listening(child) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks the server to hold its loop, on a connection of its own (not the one fetch keeps alive). */
function hold(port: number, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: `/hold?ms=${ms}`, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve());
    }).on("error", reject);
  });
}

/**
 * A small request, then — once the server is held across the moment it would close the idle connection —
 * a 5 MB JSON upload that fetch sends on that same connection, well within the time fetch reuses it.
 */
async function uploadOnReusedConnection(port: number) {
  const base = `http://127.0.0.1:${port}`;
  const ping = (await (await fetch(`${base}/ping`)).json()) as { port: number };
  await sleep(HOLD_AT_MS);
  const held = hold(port, SERVER_CLOSES_IDLE_AFTER_MS);
  await sleep(UPLOAD_AT_MS - HOLD_AT_MS);
  const body = JSON.stringify({
    title: "Big",
    content: "The ledger balances once reconciled.\n".repeat(140_000),
  });
  expect(body.length).toBeGreaterThan(5_000_000);
  const upload = fetch(`${base}/upload`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  }).then(
    async (res) => ({ status: res.status, answer: (await res.json()) as { bytes: number; port: number } }),
    (error: Error & { cause?: { code?: string } }) => ({ error: error.cause?.code ?? error.message }),
  );
  await held;
  return { ping, sent: body.length, result: await upload };
}

describe("a large upload on a reused keep-alive connection while the server was held", () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it("is read and answered, on the same connection", async () => {
    const { child, done, port } = start({});
    stops.push(() => {
      child.kill("SIGTERM");
      return done;
    });
    const { ping, sent, result } = await uploadOnReusedConnection(await port);
    expect(result).toEqual({ status: 200, answer: { bytes: sent, port: ping.port } });
  }, 30_000);

  it("is cut off unread by Node's own keep-alive close, which memoria's server replaces", async () => {
    const { child, done, port } = start({ KEEP_ALIVE_FIX: "off" });
    stops.push(() => {
      child.kill("SIGTERM");
      return done;
    });
    const { result } = await uploadOnReusedConnection(await port);
    expect(result).toHaveProperty("error");
    expect(["EPIPE", "ECONNRESET", "UND_ERR_SOCKET"]).toContain((result as { error: string }).error);
  }, 30_000);
});
