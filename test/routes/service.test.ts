import { describe, expect, it } from "vitest";
import { okSchema } from "../../src/routes/health.js";
import { searchAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { addDocument, makeTeam, type TestApp } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

async function stats(app: TestApp, apiKey: string) {
  return expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer);
}

describe("health", () => {
  it("GET /healthz answers 200 {ok: true} without credentials", () =>
    withApp(async (app) => {
      const body = await expectOk(await app.request("/healthz"), 200, okSchema);
      expect(body).toEqual({ ok: true });
    }));

  it("GET /readyz answers 200 {ok: true} while storage answers", () =>
    withApp(async (app) => {
      const body = await expectOk(await app.request("/readyz"), 200, okSchema);
      expect(body).toEqual({ ok: true });
    }));

  it("keeps a plain x-request-id the caller sent and replaces anything else", () =>
    withApp(async (app) => {
      const kept = await app.request("/healthz", { headers: { "x-request-id": "trace-123.abc_DEF" } });
      expect(kept.headers.get("x-request-id")).toBe("trace-123.abc_DEF");
      const replaced = await app.request("/v1/stats", { headers: { "x-request-id": "bad id <script>" } });
      const body = await expectError(replaced, 401, "unauthorized");
      expect(body.error.requestId).not.toBe("bad id <script>");
      const echoed = await app.request("/v1/stats", { headers: { "x-request-id": "trace-456" } });
      expect((await expectError(echoed, 401, "unauthorized")).error.requestId).toBe("trace-456");
    }));

  it("gives every request its own id", () =>
    withApp(async (app) => {
      const ids = new Set<string | null>();
      for (let i = 0; i < 5; i++) ids.add((await app.request("/healthz")).headers.get("x-request-id"));
      expect(ids.size).toBe(5);
    }));
});

describe("OpenAPI", () => {
  it("GET /openapi.json is an OpenAPI 3.1 document listing the v1 routes", () =>
    withApp(async (app) => {
      const res = await app.request("/openapi.json");
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      const doc = (await res.json()) as {
        openapi: string;
        info: { title: string; version: string };
        paths: Record<string, Record<string, unknown>>;
        components?: { securitySchemes?: Record<string, unknown> };
      };
      expect(doc.openapi).toMatch(/^3\.1\./);
      expect(doc.info.title).toBe("memoria");
      for (const path of [
        "/v1/documents",
        "/v1/search",
        "/v1/teams",
        "/v1/stats",
        "/v1/entries",
        "/v1/memory",
      ]) {
        expect(Object.keys(doc.paths)).toContain(path);
      }
      expect(Object.keys(doc.paths)).toContain("/v1/documents/{id}");
      expect(Object.keys(doc.paths)).toContain("/v1/teams/{teamId}/keys");
      expect(Object.keys(doc.paths["/v1/documents"] ?? {}).sort()).toEqual(["get", "post"]);
      expect(Object.keys(doc.paths["/v1/documents/{id}"] ?? {}).sort()).toEqual(["delete", "get", "put"]);
      expect(Object.keys(doc.paths["/v1/entries/{id}"] ?? {}).sort()).toEqual(["delete", "get"]);
      // The budget is documented as the integer it is, though a query string carries it as text.
      const memory = doc.paths["/v1/memory"]?.get as { parameters: { name: string; schema: unknown }[] };
      expect(memory.parameters.find((p) => p.name === "budget")?.schema).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: 100000,
      });
      expect(Object.keys(doc.components?.securitySchemes ?? {}).sort()).toEqual([
        "adminToken",
        "cronToken",
        "teamKey",
      ]);
    }));

  it("GET /docs answers an HTML page that loads /openapi.json", () =>
    withApp(async (app) => {
      const res = await app.request("/docs");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type") ?? "").toMatch(/^text\/html/);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      const html = await res.text();
      expect(html.toLowerCase()).toContain("<html");
      expect(html).toContain("/openapi.json");
    }));
});

describe("GET /v1/stats", () => {
  it("answers storage counts while the index is cold, without starting a build", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const empty = await stats(app, apiKey);
      expect(empty).toEqual({
        documents: 0,
        chunks: 0,
        entries: 0,
        unreadable: null,
        index: {
          state: "cold",
          appliedSeq: null,
          builtAt: null,
          buildMs: null,
          source: null,
          loadMs: null,
          memoryBytes: null,
        },
      });
      const a = await addDocument(app, apiKey, { title: "One", content: "# A\n\na\n\n# B\n\nb" });
      const b = await addDocument(app, apiKey, { title: "Two", content: "two" });
      const counted = await stats(app, apiKey);
      expect(counted.documents).toBe(2);
      expect(counted.chunks).toBe(a.chunks + b.chunks);
      expect(counted.index.state).toBe("cold");
      // Asking again still finds it cold: stats never builds.
      const again = await stats(app, apiKey);
      expect(again.index).toEqual({
        state: "cold",
        appliedSeq: null,
        builtAt: null,
        buildMs: null,
        source: null,
        loadMs: null,
        memoryBytes: null,
      });
      expect(app.memoria.indexes.status((await app.memoria.directory.list()).teams[0]?.id ?? "").state).toBe(
        "cold",
      );
    }));

  it("reports ready with an applied seq after a search, and follows later writes", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await addDocument(app, apiKey, { title: "One", content: "one" });
      await expectOk(await app.request("/v1/search?q=one", { token: apiKey }), 200, searchAnswer);
      const ready = await stats(app, apiKey);
      expect(ready.index.state).toBe("ready");
      expect(ready.index.appliedSeq).toEqual(expect.any(Number));
      expect(ready.index.builtAt).toEqual(expect.any(String));
      expect(Number.isNaN(Date.parse(ready.index.builtAt ?? ""))).toBe(false);
      expect(ready.index.buildMs).toEqual(expect.any(Number));
      // Too small a team for a snapshot: built from its rows, and loadMs is the same measure as buildMs.
      expect(ready.index.source).toBe("rows");
      expect(ready.index.loadMs).toBe(ready.index.buildMs);
      expect(ready.index.memoryBytes ?? 0).toBeGreaterThan(0);
      expect(ready.documents).toBe(1);

      await addDocument(app, apiKey, { title: "Two", content: "two" });
      const after = await stats(app, apiKey);
      expect(after.index.state).toBe("ready");
      expect(after.index.appliedSeq ?? 0).toBeGreaterThan(ready.index.appliedSeq ?? 0);
      expect(after.documents).toBe(2);
      expect(after.index.memoryBytes ?? 0).toBeGreaterThanOrEqual(ready.index.memoryBytes ?? 0);
    }));

  it("keeps each team's index state its own", () =>
    withApp(async (app) => {
      const a = await makeTeam(app, "A");
      const b = await makeTeam(app, "B");
      await addDocument(app, a.apiKey, { title: "One", content: "one" });
      await expectOk(await app.request("/v1/search?q=one", { token: a.apiKey }), 200, searchAnswer);
      expect((await stats(app, a.apiKey)).index.state).toBe("ready");
      const other = await stats(app, b.apiKey);
      expect(other.index.state).toBe("cold");
      expect(other.documents).toBe(0);
    }));

  it("answers 401 without a valid team key", () =>
    withApp(async (app) => {
      await expectError(await app.request("/v1/stats"), 401, "unauthorized");
      await expectError(await app.request("/v1/stats", { token: "mem_x_y" }), 401, "unauthorized");
    }));
});
