// The Deno entry against a client that sends a body without valid credentials: answered 401 before the
// body ends, as on Node; and /docs' assets read from node_modules under Deno too.

import { afterEach, describe, expect } from "vitest";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { needs, outside } from "../support/outside.js";
import { listening, startDeno } from "../support/processes.js";
import { chunk, chunkedPost, rawClient } from "./raw-http.js";

/** Deno's first start compiles the whole app. */
const TIMEOUT_MS = 120_000;

describe("the Deno entry's edge", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  needs(outside.deno).it(
    "answers a trickled upload with a wrong key 401 before its body ends, and serves /docs offline",
    async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const child = startDeno({
        PORT: "0",
        MEMORIA_DB_URL: tmp.dbUrl,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      cleanups.push(() => child.kill("SIGKILL"));
      const port = await listening(child);

      const client = await rawClient(port);
      cleanups.push(() => client.socket.destroy());
      client.socket.write(
        chunkedPost("/v1/documents", {
          authorization: "Bearer mem_wrong_key",
          "content-type": "application/json",
        }),
      );
      client.socket.write(chunk(`{"title": "t", "content": "`));
      const trickle = setInterval(() => {
        if (!client.socket.destroyed) client.socket.write(chunk("x".repeat(1024)));
      }, 20);
      try {
        const head = await client.until(/\r\n\r\n/);
        expect(head).toMatch(/^HTTP\/1\.1 401 /);
        expect(head.toLowerCase()).toContain("www-authenticate: bearer");
      } finally {
        clearInterval(trickle);
      }

      const page = await fetch(`http://127.0.0.1:${port}/docs`);
      const html = await page.text();
      const bundle = html.match(/src="([^"]*swagger-ui-bundle\.js)"/)?.[1] ?? "";
      const asset = await fetch(`http://127.0.0.1:${port}${bundle}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(/^text\/javascript/);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    },
    TIMEOUT_MS,
  );
});
