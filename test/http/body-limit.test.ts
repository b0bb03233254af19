// Request bodies over their limit, sent to the server as `npm start` runs it (a child process, real sockets):
// each is refused as its bytes arrive, the process holds no more than the limit of any of them (its peak RSS,
// the kernel's VmHWM, read before and after), and it goes on answering. Batch bodies are capped by
// MEMORIA_MAX_BATCH_BYTES, streamed or chunked, whatever their Content-Length says; every other route that
// reads a body is bounded too. Also here: DELETEs whose empty body node:http sends chunked.

import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BODY_LIMIT } from "../../src/http/body-limit.js";
import { rawClient } from "../runtime/raw-http.js";
import { ADMIN_TOKEN, masterKeyText, newMasterKey, tempDir } from "../support/app.js";
import { finished, listening, startNode } from "../support/processes.js";

const MIB = 1024 * 1024;
/** The batch cap the server is started with: small, so a refusal costs the test little. */
const MAX_BATCH_BYTES = 4 * MIB;
/** Documents of 64 KiB: a JSON document body's limit is then 6 × 64 KiB + 64 KiB (src/http/body-limit.ts). */
const MAX_DOCUMENT_BYTES = 64 * 1024;
/** What each hostile body offers to send: 64× the batch cap, far more than any limit of the server. */
const OFFERED_BYTES = 256 * MIB;
/**
 * How far the server's peak RSS may rise over all of this file's bodies. Generous (each limit is ≤ 4 MiB,
 * so a bounded server stays within a few tens of MB), and far under what one body read whole costs: the
 * code before the cap read a 256 MiB batch whole (RSS +214 MiB measured for 200 MiB in process).
 */
const PEAK_RSS_GROWTH_BOUND = 96 * MIB;
/** A server that stops reading leaves at most its socket buffers and one drain (≤ 64 MiB) unread. */
const SENT_BOUND = 96 * MIB;

let child: ChildProcess;
let exited: ReturnType<typeof finished>;
let port: number;
let apiKey: string;
let teamId: string;
let baselinePeak: number;
let cleanupDir: () => void = () => {};
/** Everything the server has logged so far. */
let logged = "";

/** The access log's lines for one route and method. */
function accessLines(method: string, route: string): { status: number }[] {
  return logged
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { message: string; method?: string; route?: string; status: number })
    .filter((line) => line.message === "request" && line.method === method && line.route === route);
}

/** The child's peak resident set (VmHWM), in bytes: the most it ever held, whenever that was. */
function peakRss(): number {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error("no VmHWM in /proc/<pid>/status");
  return Number(kb) * 1024;
}

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const { token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  return fetch(`http://127.0.0.1:${port}${path}`, { ...rest, headers });
}

interface Sent {
  /** Everything the server wrote back. */
  answer: string;
  /** Body bytes the socket took before the server closed it, or all of them. */
  sentBytes: number;
}

/**
 * Sends a request's head, then up to `offered` bytes of body in 1 MiB writes (the same buffer each time, so
 * the test holds nothing), chunked or raw, waiting on back-pressure, until the server closes the socket.
 */
async function sendHostile(head: string, framing: "chunked" | "raw", offered = OFFERED_BYTES): Promise<Sent> {
  const client = await rawClient(port);
  const data = Buffer.alloc(MIB, "a");
  const piece =
    framing === "chunked"
      ? Buffer.concat([Buffer.from(`${MIB.toString(16)}\r\n`), data, Buffer.from("\r\n")])
      : data;
  let open = true;
  client.closed.then(() => {
    open = false;
  });
  client.socket.write(head);
  let sentBytes = 0;
  while (open && sentBytes < offered) {
    const flushed = client.socket.write(piece);
    sentBytes += MIB;
    if (!flushed) {
      await new Promise<void>((resolve) => {
        client.socket.once("drain", resolve);
        client.closed.then(resolve);
      });
    }
  }
  if (open && framing === "chunked") client.socket.write("0\r\n\r\n");
  // Every answer here ends its connection (the rest of the body is not waited for): the whole answer is in.
  await client.closed;
  return { answer: client.received(), sentBytes };
}

function head(method: string, path: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: `127.0.0.1:${port}`, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`;
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? Number.NaN);
}

function errorCodeOf(answer: string): string | undefined {
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  const json = body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1);
  return (JSON.parse(json) as { error: { code: string } }).error.code;
}

async function expectStillServing(): Promise<void> {
  expect((await call("/healthz")).status).toBe(200);
  const batch = await call("/v1/documents/batch", {
    method: "POST",
    token: apiKey,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ documents: [{ title: "After", content: "still taking batches" }] }),
  });
  expect(batch.status).toBe(200);
}

beforeAll(async () => {
  const dir = tempDir();
  cleanupDir = dir.cleanup;
  child = startNode({
    PORT: "0",
    MEMORIA_DB_URL: dir.dbUrl,
    MEMORIA_MASTER_KEY: masterKeyText(newMasterKey()),
    MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
    MEMORIA_MAX_BATCH_BYTES: String(MAX_BATCH_BYTES),
    MEMORIA_MAX_DOCUMENT_BYTES: String(MAX_DOCUMENT_BYTES),
    // A multipart body may be a PDF or DOCX file, bounded by the upload limit: the same bound here.
    MEMORIA_MAX_UPLOAD_BYTES: String(MAX_DOCUMENT_BYTES),
    MEMORIA_RATE_LIMIT: "0",
  });
  exited = finished(child);
  child.stdout?.on("data", (d: Buffer) => {
    logged += d.toString();
  });
  port = await listening(child);
  const team = await call("/v1/teams", {
    method: "POST",
    token: ADMIN_TOKEN,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bodies" }),
  });
  const created = (await team.json()) as { team: { id: string }; apiKey: string };
  apiKey = created.apiKey;
  teamId = created.team.id;
  // Warm: the team's index loaded and the batch path compiled, so the peak afterwards is the bodies' alone.
  await expectStillServing();
  baselinePeak = peakRss();
}, 120_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await exited;
  cleanupDir();
});

describe("POST /v1/documents/batch over MEMORIA_MAX_BATCH_BYTES", () => {
  it("refuses a chunked body 413 once the cap is passed, takes in none of the rest, and keeps serving", async () => {
    const { answer, sentBytes } = await sendHostile(
      head("POST", "/v1/documents/batch", {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
      }),
      "chunked",
    );
    expect(statusOf(answer)).toBe(413);
    expect(errorCodeOf(answer)).toBe("payload_too_large");
    expect(answer).toContain(`larger than ${MAX_BATCH_BYTES} bytes`);
    expect(sentBytes).toBeLessThan(SENT_BOUND);
    expect(peakRss() - baselinePeak).toBeLessThan(PEAK_RSS_GROWTH_BOUND);
    await expectStillServing();
  });

  it("refuses a body whose Content-Length is over the cap 413 before reading it, though it is sent anyway", async () => {
    const { answer, sentBytes } = await sendHostile(
      head("POST", "/v1/documents/batch", {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "content-length": String(OFFERED_BYTES),
      }),
      "raw",
    );
    expect(statusOf(answer)).toBe(413);
    expect(errorCodeOf(answer)).toBe("payload_too_large");
    expect(sentBytes).toBeLessThan(SENT_BOUND);
    expect(peakRss() - baselinePeak).toBeLessThan(PEAK_RSS_GROWTH_BOUND);
    await expectStillServing();
  });

  it("reads no more than a lying Content-Length under the cap says, and none of the bytes that follow it", async () => {
    // 1 MiB declared, 256 MiB sent: the body is the first MiB; what follows is not a request.
    const { answer, sentBytes } = await sendHostile(
      head("POST", "/v1/documents/batch", {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "content-length": String(MIB),
      }),
      "raw",
    );
    // Node's parser answers the bytes after the body, which are no request, 400 and destroys the socket at
    // once: with the client still sending, that 400 can be lost to the reset (Node's own handling, not
    // lingered), so the answer is a 400 or nothing. What holds either way: nothing past it is kept.
    if (answer !== "") expect(statusOf(answer)).toBe(400);
    expect(sentBytes).toBeLessThan(SENT_BOUND);
    expect(peakRss() - baselinePeak).toBeLessThan(PEAK_RSS_GROWTH_BOUND);
    await expectStillServing();
  });
});

describe("every route that reads a body", () => {
  it("refuses a chunked body over its limit with 413 (or answers without reading it), holding none of it", async () => {
    const notion = await call("/v1/sources/notion", {
      method: "PUT",
      token: apiKey,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: "ntn_body_limit_test_token" }),
    });
    expect(notion.status).toBe(200);
    const { source } = (await (await call("/v1/sources/notion", { token: apiKey })).json()) as {
      source: { webhookUrl: string };
    };
    const notionHook = new URL(source.webhookUrl).pathname;
    // A signing secret, so a delivery is admitted on its headers and its body is read (to check its signature).
    expect((await call("/v1/sources/webhook", { method: "PUT", token: apiKey })).status).toBe(200);
    const delivery = {
      "webhook-id": "msg_body_limit",
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")}`,
    };
    const signIn = await call("/page/sign-in", {
      method: "POST",
      headers: { origin: `http://127.0.0.1:${port}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: apiKey }).toString(),
      redirect: "manual",
    });
    const cookie = signIn.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    expect(cookie).toMatch(/^memoria_session=/);
    const { document } = (await (
      await call("/v1/documents", {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Target", content: "to be replaced" }),
      })
    ).json()) as { document: { id: string } };

    const team = { authorization: `Bearer ${apiKey}` };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const json = { "content-type": "application/json" };
    const page = { cookie, origin: `http://127.0.0.1:${port}` };
    const routes: [string, string, Record<string, string>, number][] = [
      ["POST", "/v1/documents", { ...team, ...json }, 413],
      ["POST", "/v1/documents", { ...team, "content-type": "text/markdown" }, 413],
      ["POST", "/v1/documents", { ...team, "content-type": "multipart/form-data; boundary=x" }, 413],
      ["PUT", `/v1/documents/${document.id}`, { ...team, ...json }, 413],
      ["POST", "/v1/entries", { ...team, ...json }, 413],
      ["POST", "/mcp", { ...team, ...json, accept: "application/json, text/event-stream" }, 413],
      ["PUT", "/v1/sources/notion", { ...team, ...json }, 413],
      ["POST", notionHook, json, 413],
      ["POST", `/v1/webhooks/ingest/${teamId}`, { ...json, ...delivery }, 413],
      ["POST", "/v1/teams", { ...admin, ...json }, 413],
      ["POST", "/v1/reindex", { ...admin, ...json }, 413],
      [
        "POST",
        "/page/sign-in",
        { origin: page.origin, "content-type": "application/x-www-form-urlencoded" },
        413,
      ],
      ["POST", "/page/notes", { ...page, "content-type": "multipart/form-data; boundary=x" }, 413],
      ["POST", "/page/sign-out", { ...page, "content-type": "application/x-www-form-urlencoded" }, 413],
      // Routes that take no body answer without reading one, and the rest is not waited for.
      ["PUT", "/v1/sources/webhook", team, 200],
      ["POST", `/v1/teams/${teamId}/keys`, admin, 201],
    ];
    for (const [method, path, headers, status] of routes) {
      const { answer, sentBytes } = await sendHostile(
        head(method, path, { ...headers, "transfer-encoding": "chunked" }),
        "chunked",
        // Past every limit here (the largest: a JSON document's 6 × 64 KiB + 64 KiB; else 1 MiB).
        4 * DEFAULT_BODY_LIMIT + 8 * MAX_DOCUMENT_BYTES,
      );
      expect(statusOf(answer), `${method} ${path} ${headers["content-type"] ?? ""}`).toBe(status);
      if (status === 413) expect(errorCodeOf(answer)).toBe("payload_too_large");
      expect(sentBytes).toBeLessThan(SENT_BOUND);
    }
    expect(peakRss() - baselinePeak).toBeLessThan(PEAK_RSS_GROWTH_BOUND);
    await expectStillServing();
  });
});

describe("a DELETE whose empty body node:http sends chunked", () => {
  it("is answered 204, as one without a body, and logged as 204", async () => {
    for (const [kind, path] of [
      ["entry", "/v1/entries"],
      ["document", "/v1/documents"],
    ] as const) {
      const made = await call(path, {
        method: "POST",
        token: apiKey,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: `Chunked delete ${kind}`, content: "gone soon" }),
      });
      expect(made.status).toBe(201);
      const id = ((await made.json()) as Record<string, { id: string }>)[kind]?.id ?? "";
      // node:http sends `Transfer-Encoding: chunked` and then only the last chunk, `0\r\n\r\n`.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "DELETE",
            path: `${path}/${id}`,
            headers: { authorization: `Bearer ${apiKey}`, "transfer-encoding": "chunked" },
          },
          (res) => {
            let body = "";
            res.on("data", (d: Buffer) => {
              body += d.toString();
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        req.write("");
        req.end();
      });
      expect(answer).toEqual({ status: 204, body: "" });
      expect((await call(`${path}/${id}`, { token: apiKey })).status).toBe(404);
      await expect.poll(() => accessLines("DELETE", `${path}/:id`).map((line) => line.status)).toEqual([204]);
    }
  });
});
