// Every runtime that reads the environment rejects the same bad environment the same way: exit 1 and the same
// message on stderr. The Node and Deno entries run side by side over each environment. Besides values that
// do not parse: starts that parse but cannot serve (a busy port, an address that is not this machine's, a
// master key that does not open storage's teams).

import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { ADMIN_TOKEN, buildTestApp, makeTeam, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { needs, outside } from "../support/outside.js";
import { type Exit, finished, startDeno, startNode } from "../support/processes.js";

/** Lines a runtime prints on its own that are not memoria's message; none are known today. */
const noise: RegExp[] = [];

function messageLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !noise.some((n) => n.test(line)));
}

interface Case {
  name: string;
  env: Record<string, string>;
  /** A fragment the message must hold, so that agreeing on an unhelpful message does not pass. */
  says: string;
}

/** A port on 127.0.0.1 held by another listener for the test. */
function occupiedPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({ port: typeof address === "object" && address ? address.port : 0, server });
    });
  });
}

/**
 * An address no interface of this machine has: TEST-NET-3 (RFC 5737) is never assigned, and this test
 * machine happens to sit in TEST-NET-1, so that one is not used.
 */
const foreignAddress = "203.0.113.7";

describe("configuration parity between the Node and Deno entries", () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  needs(outside.deno).it(
    "rejects each bad environment with exit 1 and the same message on both",
    async () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const key = masterKeyText(newMasterKey());
      const badKeyFile = join(tmp.dir, "master.key");
      writeFileSync(badKeyFile, "not a key\n", { mode: 0o600 });

      const bad: Case[] = [
        { name: "PORT=abc", env: { PORT: "abc" }, says: "PORT must be a port number" },
        { name: "MEMORIA_LOG_LEVEL=loud", env: { MEMORIA_LOG_LEVEL: "loud" }, says: "MEMORIA_LOG_LEVEL" },
        {
          name: "MEMORIA_MASTER_KEY=short",
          env: { MEMORIA_MASTER_KEY: "short" },
          says: "MEMORIA_MASTER_KEY",
        },
        {
          name: "production without a master key",
          env: { NODE_ENV: "production", MEMORIA_MASTER_KEY: "" },
          says: "MEMORIA_MASTER_KEY is required in production",
        },
        { name: "MEMORIA_CATCHUP_MS=-1", env: { MEMORIA_CATCHUP_MS: "-1" }, says: "MEMORIA_CATCHUP_MS" },
        {
          name: "MEMORIA_DB_URL=postgres://…",
          env: { MEMORIA_DB_URL: "postgres://db.example/memoria" },
          says: "MEMORIA_DB_URL must start with file:",
        },
        {
          name: "several bad values at once",
          env: { PORT: "70000", MEMORIA_ADMIN_TOKEN: "short", MEMORIA_MAX_DOCUMENT_BYTES: "0" },
          says: "MEMORIA_ADMIN_TOKEN must be at least 16 characters",
        },
        {
          name: "a replica sync URL over a remote database",
          env: { MEMORIA_DB_URL: "libsql://db.example", MEMORIA_DB_SYNC_URL: "libsql://primary.example" },
          says: "MEMORIA_DB_SYNC_URL needs MEMORIA_DB_URL to be a file: path",
        },
        {
          // Fails after parsing, in the local-secrets step that reads files beside the database.
          name: "a generated master key file that holds no key",
          env: { MEMORIA_MASTER_KEY: "" },
          says: `${badKeyFile} does not hold a 32-byte base64 key`,
        },
      ];

      // Starts that parse but cannot serve. Each has its own database, an admin token and a key, so the only
      // line printed is the refusal (no generated-secret notices).
      const busy = await occupiedPort();
      cleanups.push(() => new Promise<void>((closed) => busy.server.close(() => closed())));
      expect(
        Object.values(networkInterfaces())
          .flat()
          .map((a) => a?.address),
      ).not.toContain(foreignAddress);
      const teamsDb = tempDir();
      cleanups.push(teamsDb.cleanup);
      const made = await buildTestApp({ dbUrl: teamsDb.dbUrl });
      await makeTeam(made);
      made.close();
      const serving = (env: Record<string, string>) => {
        const own = tempDir();
        cleanups.push(own.cleanup);
        return { MEMORIA_DB_URL: own.dbUrl, MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN, PORT: "0", ...env };
      };
      bad.push(
        {
          name: "MEMORIA_HOST=bad host",
          env: { MEMORIA_HOST: "bad host" },
          says: "MEMORIA_HOST must be an IP address",
        },
        {
          name: "a busy port",
          env: serving({ PORT: String(busy.port) }),
          says: `memoria cannot listen: PORT ${busy.port} is already in use on 127.0.0.1.`,
        },
        {
          name: "an address not of this machine",
          env: serving({ MEMORIA_HOST: foreignAddress }),
          says: `memoria cannot listen: MEMORIA_HOST ${foreignAddress} is not an address of this machine.`,
        },
        {
          // .invalid never resolves (RFC 6761); without DNS at all the lookup fails the same way.
          name: "a host name that does not resolve",
          env: serving({ MEMORIA_HOST: "memoria.invalid" }),
          says: "memoria cannot listen: MEMORIA_HOST memoria.invalid does not resolve to an address.",
        },
        {
          name: "a master key that opens none of storage's teams",
          env: { MEMORIA_DB_URL: teamsDb.dbUrl, MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN, PORT: "0" },
          says: "MEMORIA_MASTER_KEY does not open the team keys in storage",
        },
      );

      const cases = bad.map((c) => ({
        ...c,
        // A good master key and a temp database unless the case says otherwise, so each environment fails
        // for the one reason it is about. An empty value is unset, as for a shell's `VAR=`.
        env: { MEMORIA_DB_URL: tmp.dbUrl, MEMORIA_MASTER_KEY: key, ...c.env },
      }));

      const runs = await Promise.all(
        cases.map(async (c) => {
          const [node, deno] = await Promise.all([finished(startNode(c.env)), finished(startDeno(c.env))]);
          return { c, node, deno };
        }),
      );

      const summary = (exit: Exit) => ({ code: exit.code, message: messageLines(exit.stderr) });
      for (const { c, node, deno } of runs) {
        expect(summary(node), `node, ${c.name}: ${node.stdout}`).toEqual({
          code: 1,
          message: [expect.stringContaining(c.says)],
        });
        expect(summary(deno), `deno, ${c.name}`).toEqual(summary(node));
        expect(node.stdout, `node, ${c.name}`).toBe("");
        expect(deno.stdout, `deno, ${c.name}`).toBe("");
      }
    },
    120_000,
  );
});
