// The import's HTTP client over a scripted fetch: the key on every call, paging, retries, and errors.

import { describe, expect, it } from "vitest";
import { ApiError, MemoriaClient } from "../../src/cli/client.js";

type Script = (url: URL, init: RequestInit) => Response | Promise<Response>;

function client(script: Script, base = "http://memoria.test/base") {
  const calls: { url: URL; init: RequestInit }[] = [];
  const fetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : input);
    calls.push({ url, init });
    return script(url, init);
  }) as typeof globalThis.fetch;
  return { calls, c: new MemoriaClient({ baseUrl: new URL(base), key: "mem_t_k", fetch, backoffMs: 1 }) };
}

const envelope = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  Response.json({ error: { code, message, requestId: "r" } }, { status, headers });

describe("MemoriaClient", () => {
  it("follows the pages to the end, under the base URL's path, with the team key", async () => {
    const { calls, c } = client((url) => {
      const cursor = url.searchParams.get("cursor");
      const doc = (id: string) => ({ id, title: id, path: [], format: "markdown" });
      return Response.json(
        cursor === null
          ? { documents: [doc("d1"), doc("d2")], nextCursor: "p2" }
          : { documents: [doc("d3")], nextCursor: null },
      );
    });
    expect((await c.listDocuments()).map((d) => d.id)).toEqual(["d1", "d2", "d3"]);
    expect(calls.map((x) => `${x.url.pathname}${x.url.search}`)).toEqual([
      "/base/v1/documents?limit=200",
      "/base/v1/documents?limit=200&cursor=p2",
    ]);
    for (const call of calls) {
      expect(new Headers(call.init.headers).get("authorization")).toBe("Bearer mem_t_k");
    }
  });

  it("stops when a server repeats a cursor instead of paging forever", async () => {
    const { c } = client(() => Response.json({ documents: [], nextCursor: "same" }));
    await expect(c.listDocuments()).rejects.toThrow("repeated a page cursor");
  });

  it("tells a new document from a replaced one", async () => {
    let status = 201;
    const { calls, c } = client(() => Response.json({ document: {} }, { status }));
    const doc = {
      title: "T",
      content: "c",
      format: "text" as const,
      path: ["a"],
      externalId: "file:a/t.txt",
    };
    expect(await c.upsert(doc)).toBe("created");
    status = 200;
    expect(await c.upsert(doc)).toBe("replaced");
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual(doc);
    expect(new Headers(calls[0]?.init.headers).get("content-type")).toBe("application/json");
  });

  it("sends a batch as {documents}, reads one result per document, and says null without the route", async () => {
    let status = 200;
    const { calls, c } = client((url) =>
      status === 200
        ? Response.json({
            results: [
              { document: { version: 1 } },
              { document: { version: 3 } },
              { error: { code: "payload_too_large", message: "Too big." } },
            ],
          })
        : envelope(status, "method_not_allowed", `${url.pathname} answers other methods`),
    );
    const doc = (n: number) => ({
      title: `T${n}`,
      content: "c",
      format: "text" as const,
      path: [],
      externalId: `file:${n}`,
    });
    const docs = [doc(1), doc(2), doc(3)];
    expect(await c.upsertMany(docs)).toEqual([
      { stored: "created" },
      { stored: "replaced" },
      { code: "payload_too_large", message: "Too big." },
    ]);
    expect(calls[0]?.url.pathname).toBe("/base/v1/documents/batch");
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({ documents: docs });
    for (status of [404, 405]) expect(await c.upsertMany(docs)).toBeNull();
    status = 200;
    await expect(c.upsertMany(docs.slice(0, 2))).rejects.toThrow("answered 3 of 2 results");
  });

  it("waits out a 429 and a 503, then succeeds", async () => {
    const answers = [
      envelope(429, "rate_limited", "Slow down.", { "retry-after": "0" }),
      envelope(503, "unavailable", "Busy."),
      new Response(null, { status: 204 }),
    ];
    const { calls, c } = client(() => answers.shift() as Response);
    await c.delete("d1");
    expect(calls).toHaveLength(3);
    expect(calls[0]?.init.method).toBe("DELETE");
  });

  it("gives up after three tries and reports the last answer", async () => {
    const { calls, c } = client(() => envelope(503, "unavailable", "Storage is not answering."));
    const error = await c.getContent("d1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: "unavailable", message: "Storage is not answering." });
    expect(calls).toHaveLength(3);
  });

  it("does not retry other errors, and reads a body that is not memoria's as just a status", async () => {
    const { calls, c } = client(() => new Response("<html>Bad gateway</html>", { status: 502 }));
    await expect(c.getContent("d1")).rejects.toMatchObject({
      status: 502,
      code: "http_error",
      message: "HTTP 502",
    });
    expect(calls).toHaveLength(1);
  });

  it("names the unreachable origin after retrying a network failure", async () => {
    const { calls, c } = client(() => {
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    });
    await expect(c.listDocuments()).rejects.toMatchObject({
      status: 0,
      code: "network",
      message: "could not reach http://memoria.test: ECONNREFUSED",
    });
    expect(calls).toHaveLength(3);
  });
});
