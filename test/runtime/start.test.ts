// Starts that refuse clearly, on the Node entry as a user runs it (a real process, real HTTP on loopback):
// the address it binds by default, a busy port, a master key that does not open storage's team keys, and
// the modes of the files and folders a start creates.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { listenError, listeningUrl, startupMessage } from "../../src/runtime/start.js";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { type Exit, finished, listening, startNode } from "../support/processes.js";

/** A Node start takes a second or two on a busy machine; each test runs at most three. */
const TIMEOUT_MS = 60_000;

/** The lines a failed start printed on stderr. */
function lines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** Every file in a folder with a hash of its bytes: a database, and its journal if one is left. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [
        name,
        createHash("sha256")
          .update(readFileSync(join(dir, name)))
          .digest("hex"),
      ]),
  );
}

function occupy(port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/** Whether something accepts a TCP connection at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("a start that cannot serve, and what a start creates", () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function temp() {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    return tmp;
  }

  /** Runs the Node entry to its exit; killed at the end of the test if a refusal did not come. */
  function exitOf(env: Record<string, string>): Promise<Exit> {
    const child = startNode(env);
    cleanups.push(() => {
      child.kill("SIGKILL");
    });
    return finished(child);
  }

  /** Starts the Node entry and waits until it listens; stopped with SIGTERM at the end of the test. */
  async function serving(env: Record<string, string>) {
    const child = startNode({ PORT: "0", ...env });
    const done = finished(child);
    const port = await listening(child);
    const stop = async (): Promise<Exit> => {
      child.kill("SIGTERM");
      return done;
    };
    cleanups.push(async () => {
      if (child.exitCode === null) await stop();
    });
    return { port, stop };
  }

  it(
    "listens on 127.0.0.1 unless MEMORIA_HOST says otherwise, and its listening line names the host and URL",
    async () => {
      const tmp = temp();
      const server = await serving({
        MEMORIA_DB_URL: tmp.dbUrl,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
      // An address of this machine other than loopback, where one exists, does not reach it.
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
      if (external) expect(await accepts(external, server.port)).toBe(false);
      const exit = await server.stop();
      expect(exit.code).toBe(0);
      const listened = lines(exit.stdout).find((line) => line.includes('"message":"listening"'));
      expect(JSON.parse(listened ?? "{}")).toMatchObject({
        host: "127.0.0.1",
        port: server.port,
        url: `http://127.0.0.1:${server.port}/`,
      });

      // Told MEMORIA_HOST=0.0.0.0, the same address does reach it: the check above could have failed.
      if (external) {
        const everywhere = await serving({
          MEMORIA_HOST: "0.0.0.0",
          MEMORIA_DB_URL: tmp.dbUrl,
          MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
          MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
        });
        expect(await accepts(external, everywhere.port)).toBe(true);
        await everywhere.stop();
      }
    },
    TIMEOUT_MS,
  );

  it(
    "storage that cannot be reached exits 1 with one line naming where, with no token in it",
    async () => {
      // A port nothing listens on: bound, then closed.
      const closed = await occupy();
      const address = closed.address();
      const port = typeof address === "object" && address ? address.port : 0;
      await new Promise<void>((done) => closed.close(() => done()));
      const exit = await exitOf({
        PORT: "0",
        MEMORIA_DB_URL: `http://127.0.0.1:${port}`,
        MEMORIA_DB_AUTH_TOKEN: "token-that-must-not-print",
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      expect(exit.code).toBe(1);
      expect(lines(exit.stderr)).toEqual([
        `memoria failed to start: storage at http://127.0.0.1:${port} could not be opened: it cannot be reached.`,
      ]);
      expect(exit.stderr + exit.stdout).not.toContain("token-that-must-not-print");
    },
    TIMEOUT_MS,
  );

  it(
    "a busy port exits 1 with one line naming PORT, and no stack trace",
    async () => {
      const tmp = temp();
      const busy = await occupy();
      cleanups.push(() => new Promise<void>((closed) => busy.close(() => closed())));
      const address = busy.address();
      const port = typeof address === "object" && address ? address.port : 0;
      const exit = await exitOf({
        PORT: String(port),
        MEMORIA_DB_URL: tmp.dbUrl,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      expect(exit.code).toBe(1);
      expect(lines(exit.stderr)).toEqual([
        `memoria cannot listen: PORT ${port} is already in use on 127.0.0.1.`,
      ]);
      expect(exit.stdout).toBe("");
    },
    TIMEOUT_MS,
  );

  it(
    "a master key that does not open storage's teams exits 1 naming it, writes nothing, and the right key reads on",
    async () => {
      const tmp = temp();
      const right = masterKeyText(newMasterKey());
      const env = { MEMORIA_DB_URL: tmp.dbUrl, MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN };
      const content = "Restart the ingest worker when the queue stalls.";
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

      const first = await serving({ ...env, MEMORIA_MASTER_KEY: right });
      const made = await fetch(`http://127.0.0.1:${first.port}/v1/teams`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ name: "Acme" }),
      });
      expect(made.status).toBe(201);
      const { apiKey } = (await made.json()) as { apiKey: string };
      const doc = await fetch(`http://127.0.0.1:${first.port}/v1/documents`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "Runbook", content }),
      });
      expect(doc.status).toBe(201);
      const { document } = (await doc.json()) as { document: { id: string } };
      expect((await first.stop()).code).toBe(0);

      const before = snapshot(tmp.dir);
      expect(Object.keys(before)).toContain("memoria.db");
      const wrongKeys: Record<string, string>[] = [
        { MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()) },
        // The previous key is tried too; a wrong one rescues nothing.
        {
          MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
          MEMORIA_MASTER_KEY_PREVIOUS: masterKeyText(newMasterKey()),
        },
      ];
      for (const wrong of wrongKeys) {
        const exit = await exitOf({ ...env, PORT: "0", ...wrong });
        expect(exit.code).toBe(1);
        const said = lines(exit.stderr);
        expect(said).toHaveLength(1);
        expect(said[0]).toContain("MEMORIA_MASTER_KEY does not open the team keys in storage");
        expect(exit.stdout).toBe("");
        // No migration, no row, no journal left: every file byte for byte as it was, and no new file.
        expect(snapshot(tmp.dir)).toEqual(before);
      }

      const again = await serving({ ...env, MEMORIA_MASTER_KEY: right });
      const base = `http://127.0.0.1:${again.port}`;
      const teams = await fetch(`${base}/v1/teams`, { headers: admin });
      expect(teams.status).toBe(200);
      expect(((await teams.json()) as { teams: { name: string }[] }).teams.map((t) => t.name)).toEqual([
        "Acme",
      ]);
      const read = await fetch(`${base}/v1/documents/${document.id}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { document: { content: string } }).document.content).toBe(content);
      await again.stop();

      // The right key given as the previous one still opens the teams, as during a rotation: that starts.
      const rotating = await serving({
        ...env,
        MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
        MEMORIA_MASTER_KEY_PREVIOUS: right,
      });
      expect((await fetch(`http://127.0.0.1:${rotating.port}/healthz`)).status).toBe(200);
    },
    TIMEOUT_MS,
  );

  it(
    "creates its folder 0700 and the database and generated secrets 0600, whatever the umask",
    async () => {
      const tmp = temp();
      const dir = join(tmp.dir, "state", "memoria");
      // 022 is the usual umask, under which files come out 0644 and folders 0755 unless memoria says otherwise.
      const child = startNode(
        { PORT: "0", MEMORIA_DB_URL: `file:${join(dir, "memoria.db")}` },
        { umask: 0o022 },
      );
      const done = finished(child);
      const port = await listening(child);
      const made = await fetch(`http://127.0.0.1:${port}/v1/teams`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${readFileSync(join(dir, "admin.token"), "utf8").trim()}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ name: "Acme" }),
      });
      expect(made.status).toBe(201);
      child.kill("SIGTERM");
      expect((await done).code).toBe(0);

      const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
      expect(mode(join(tmp.dir, "state"))).toBe("700");
      expect(mode(dir)).toBe("700");
      expect(readdirSync(dir).sort()).toEqual(["admin.token", "master.key", "memoria.db"]);
      for (const name of readdirSync(dir)) expect([name, mode(join(dir, name))]).toEqual([name, "600"]);
      expect(existsSync(join(dir, "memoria.db-journal"))).toBe(false);
    },
    TIMEOUT_MS,
  );
});

describe("the URL the listening line names", () => {
  it("is the host as configured, localhost for a wildcard, an IPv6 literal in brackets", () => {
    expect(listeningUrl("127.0.0.1", 8787)).toBe("http://127.0.0.1:8787/");
    expect(listeningUrl("0.0.0.0", 8080)).toBe("http://localhost:8080/");
    expect(listeningUrl("::", 8080)).toBe("http://localhost:8080/");
    expect(listeningUrl("::1", 8787)).toBe("http://[::1]:8787/");
    expect(listeningUrl("memoria.internal", 80)).toBe("http://memoria.internal:80/");
  });
});

describe("the line a failed listen prints", () => {
  // The codes this machine cannot produce for a test (it runs as root, so a low port is no EACCES) are
  // checked on the errors Node and Deno give: Node's `code`, and Deno's, which carries the same code.
  const config = parseConfig({ MEMORIA_HOST: "10.0.0.5", PORT: "80" });
  const failed = (fields: object) =>
    startupMessage(listenError(Object.assign(new Error("x"), fields), config));

  it("names the variable to change for each cause", () => {
    expect(failed({ code: "EADDRINUSE" })).toBe(
      "memoria cannot listen: PORT 80 is already in use on 10.0.0.5.",
    );
    expect(failed({ code: "EACCES" })).toBe(
      "memoria cannot listen: PORT 80 on 10.0.0.5 needs privileges this process does not have.",
    );
    expect(failed({ code: "EADDRNOTAVAIL" })).toBe(
      "memoria cannot listen: MEMORIA_HOST 10.0.0.5 is not an address of this machine.",
    );
    expect(failed({ code: "EAI_AGAIN" })).toMatch(/MEMORIA_HOST 10\.0\.0\.5 does not resolve/);
    expect(failed({ code: "EMFILE" })).toBe("memoria cannot listen: MEMORIA_HOST 10.0.0.5, PORT 80: EMFILE.");
  });

  it("never repeats the error's own message, which may carry more than a code", () => {
    expect(startupMessage(listenError(new Error("secret detail"), config))).not.toContain("secret detail");
  });
});
