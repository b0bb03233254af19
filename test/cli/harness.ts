// The import CLI as a user runs it: `node bin/memoria.mjs import …` as a child process, against a real
// memoria app served over HTTP on a loopback port, over a folder tree in a fresh temp directory.

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { serve } from "@hono/node-server";
import { buildTestApp, makeTeam, type TestApp, type TestAppOptions } from "../support/app.js";

export const BIN = join(import.meta.dirname, "../../bin/memoria.mjs");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the command with a bare environment (PATH only, plus `env`), so nothing of the caller's MEMORIA_*
 * leaks in. Asynchronous on purpose: the server answering it lives in this process.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The summary's four counts, read back from stdout. */
export function summaryOf(stdout: string): {
  sent: number;
  unchanged: number;
  deleted: number;
  failed: number;
} {
  const m = stdout.match(/sent (\d+), unchanged (\d+), deleted (\d+), failed (\d+)/);
  if (!m) throw new Error(`no summary in: ${stdout}`);
  return { sent: Number(m[1]), unchanged: Number(m[2]), deleted: Number(m[3]), failed: Number(m[4]) };
}

/** Writes `files` (relative path → content) under `root`, making folders as needed. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

export interface ListedDocument {
  id: string;
  title: string;
  path: string[];
  format: string;
  externalId?: string;
  version: number;
}

export interface Served {
  app: TestApp;
  apiKey: string;
  url: string;
  /** A fresh temp directory for this test (the folder goes in `${tmp}/notes`). */
  tmp: string;
  folder: string;
  /** `import <folder> --url … --key …` plus `extra`. */
  importCli(extra?: string[]): Promise<CliRun>;
  documents(): Promise<ListedDocument[]>;
  /** The team's documents by externalId. */
  byExternalId(): Promise<Map<string, ListedDocument>>;
}

export type FetchWrapper = (req: Request, app: TestApp) => Promise<Response> | Response;

/** A fresh app, team, server and temp folder for `body`; all torn down afterwards whatever happens. */
export async function withServer<T>(
  body: (s: Served) => Promise<T>,
  options: { wrap?: FetchWrapper; app?: TestAppOptions } = {},
): Promise<T> {
  const app = await buildTestApp(options.app);
  const tmp = mkdtempSync(join(tmpdir(), "memoria-cli-"));
  const folder = join(tmp, "notes");
  mkdirSync(folder);
  const { apiKey } = await makeTeam(app);
  const wrap = options.wrap;
  const server = serve({
    fetch: wrap ? (req: Request) => wrap(req, app) : app.memoria.app.fetch,
    port: 0,
    hostname: "127.0.0.1",
  });
  try {
    await new Promise<void>((resolve, reject) => {
      if (server.listening) return resolve();
      server.once("listening", () => resolve());
      server.once("error", reject);
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}`;
    const documents = async () => {
      const all: ListedDocument[] = [];
      let cursor: string | null = null;
      do {
        const res = await app.request(`/v1/documents?limit=200${cursor ? `&cursor=${cursor}` : ""}`, {
          token: apiKey,
        });
        const page = (await res.json()) as { documents: ListedDocument[]; nextCursor: string | null };
        all.push(...page.documents);
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    };
    return await body({
      app,
      apiKey,
      url,
      tmp,
      folder,
      importCli: (extra = []) => runCli(["import", folder, "--url", url, "--key", apiKey, ...extra]),
      documents,
      async byExternalId() {
        return new Map((await documents()).map((d) => [d.externalId ?? `(none) ${d.id}`, d]));
      },
    });
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ("closeAllConnections" in server) server.closeAllConnections();
    });
    app.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}
