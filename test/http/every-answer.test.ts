// docs/api.md "Every answer": security headers on every answer, no-store on secrets, WWW-Authenticate on 401,
// 405 with Allow, a size limit on content rather than its escaping, and /docs without a CDN.

import { describe, expect, it } from "vitest";
import { expectError, withApp } from "../routes/contract.js";
import { ADMIN_TOKEN, makeTeam } from "../support/app.js";

const MiB = 1024 * 1024;

function expectSecurityHeaders(res: Response): void {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
}

describe("security headers", () => {
  it("are on answers and errors alike: 200, 401, 404, 405, 413, 415", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const answers = [
        [200, await app.request("/v1/documents", { token: apiKey })],
        [401, await app.request("/v1/documents", { token: "mem_wrong" })],
        [404, await app.request("/v1/nowhere", { token: apiKey })],
        [405, await app.request("/v1/documents", { method: "PATCH", token: apiKey })],
        [
          413,
          await app.request("/v1/entries", {
            method: "POST",
            token: apiKey,
            headers: { "content-type": "application/json", "content-length": String(2 * MiB) },
            body: "x".repeat(2 * MiB),
          }),
        ],
        [415, await app.request("/v1/entries", { method: "POST", token: apiKey, body: "x" })],
        [200, await app.request("/docs")],
      ] as const;
      for (const [status, res] of answers) {
        expect(res.status).toBe(status);
        expectSecurityHeaders(res);
        // HSTS is the TLS terminator's to send.
        expect(res.headers.get("strict-transport-security")).toBeNull();
      }
    }));

  it("no-store is on every answer that carries a secret, and not on others", () =>
    withApp(async (app) => {
      const created = await app.request("/v1/teams", {
        method: "POST",
        token: ADMIN_TOKEN,
        json: { name: "A" },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get("cache-control")).toBe("no-store");
      const { team, apiKey } = (await created.json()) as { team: { id: string }; apiKey: string };

      const key = await app.request(`/v1/teams/${team.id}/keys`, { method: "POST", token: ADMIN_TOKEN });
      expect(key.status).toBe(201);
      expect(key.headers.get("cache-control")).toBe("no-store");

      const secret = await app.request("/v1/sources/webhook", { method: "PUT", token: apiKey });
      expect(secret.status).toBe(200);
      expect(secret.headers.get("cache-control")).toBe("no-store");

      const notion = await app.request("/v1/sources/notion", { token: apiKey });
      expect(notion.headers.get("cache-control")).toBe("no-store");

      const keys = await app.request(`/v1/teams/${team.id}/keys`, { token: ADMIN_TOKEN });
      expect(keys.status).toBe(200);
      expect(keys.headers.get("cache-control")).toBeNull();
    }));
});

describe("401", () => {
  it("carries WWW-Authenticate: Bearer on every route, admin routes included; /mcp's names where to sign in", () =>
    withApp(async (app) => {
      const answers = [
        await app.request("/v1/documents", { token: "mem_wrong" }),
        await app.request("/v1/search?q=x"),
        await app.request("/v1/teams", { token: "not-the-admin-token" }),
        await app.request("/v1/reindex", { method: "POST", token: "nope" }),
      ];
      for (const res of answers) {
        expect(res.headers.get("www-authenticate")).toBe("Bearer");
        await expectError(res, 401, "unauthorized");
      }
      for (const token of ["mem_wrong", "moa_wrong", "moa_tabcdefghijklmnop_wrong"]) {
        const mcp = await app.request("/mcp", {
          method: "POST",
          token,
          json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
        });
        expect(mcp.headers.get("www-authenticate")).toBe(
          'Bearer error="invalid_token", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp", scope="read write"',
        );
        await expectError(mcp, 401, "unauthorized");
      }
      // Only 401s carry it.
      expect((await app.request("/v1/nowhere")).headers.get("www-authenticate")).toBeNull();
    }));
});

describe("405", () => {
  it("answers a known path's unserved method with method_not_allowed and Allow", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const cases: [string, string, string][] = [
        ["PATCH", "/v1/documents/dxxxxxxxxxxxxxxxx", "DELETE, GET, HEAD, PUT"],
        ["DELETE", "/v1/documents", "GET, HEAD, POST"],
        ["GET", "/mcp", "POST"],
        ["DELETE", "/mcp", "POST"],
        ["PUT", "/mcp", "POST"],
        ["POST", "/healthz", "GET, HEAD"],
      ];
      for (const [method, path, allow] of cases) {
        const res = await app.request(path, { method, token: apiKey });
        expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
        await expectError(res, 405, "method_not_allowed");
      }
    }));

  it("keeps HEAD where GET is served, and 404 for unknown paths", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const head = await app.request("/v1/documents", { method: "HEAD", token: apiKey });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
      const unknown = await app.request("/v1/documentz", { method: "PATCH", token: apiKey });
      expect(unknown.headers.get("allow")).toBeNull();
      await expectError(unknown, 404, "not_found");
      // A served method on a served pattern that still finds nothing is a 404, not a 405.
      await expectError(await app.request("/docs/assets/0/none.js"), 404, "not_found");
    }));
});

describe("document size limit", () => {
  // Small enough to index quickly; the old limit (content + an eighth + 64 KiB) refused twice this in JSON.
  const LIMIT = 256 * 1024;
  const config = { maxDocumentBytes: LIMIT };

  it("counts the content, not its JSON escaping: a content of quotes at the limit is stored", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        // Each quote is two bytes in JSON: the body is twice the content limit.
        const res = await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          json: { title: "Quotes", content: '"'.repeat(LIMIT) },
        });
        expect(res.status).toBe(201);
      },
      { config },
    ));

  it("still refuses content one byte over the limit, however it was sent", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        await expectError(
          await app.request("/v1/documents", {
            method: "POST",
            token: apiKey,
            json: { title: "Quotes", content: '"'.repeat(LIMIT + 1) },
          }),
          413,
          "payload_too_large",
        );
        await expectError(
          await app.request("/v1/documents?title=raw", {
            method: "POST",
            token: apiKey,
            headers: { "content-type": "text/plain" },
            body: "x".repeat(LIMIT + 1),
          }),
          413,
          "payload_too_large",
        );
        expect(
          (
            await app.request("/v1/documents?title=raw", {
              method: "POST",
              token: apiKey,
              headers: { "content-type": "text/plain" },
              body: "x".repeat(LIMIT),
            })
          ).status,
        ).toBe(201);
      },
      { config },
    ));

  it("refuses a body above the worst-case escaping by Content-Length, before reading it", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        let pulled = 0;
        const body = new ReadableStream({
          pull(controller) {
            pulled += 1;
            controller.enqueue(new Uint8Array(1024));
          },
        });
        const res = await app.request("/v1/documents", {
          method: "POST",
          token: apiKey,
          headers: {
            "content-type": "application/json",
            "content-length": String(6 * LIMIT + 64 * 1024 + 1),
          },
          body,
          duplex: "half",
        } as RequestInit);
        await expectError(res, 413, "payload_too_large");
        expect(res.headers.get("connection")).toBe("close");
        // The first pull a stream makes on its own, at most: nothing was read for the answer.
        expect(pulled).toBeLessThanOrEqual(1);
      },
      { config },
    ));

  it("refuses a chunked body while reading it, once it passes the limit, with 413 (not a parser's 400)", () =>
    withApp(
      async (app) => {
        const { apiKey } = await makeTeam(app);
        for (const type of ["application/json", "text/plain"]) {
          let sent = 0;
          const body = new ReadableStream({
            pull(controller) {
              sent += 64 * 1024;
              controller.enqueue(new TextEncoder().encode("y".repeat(64 * 1024)));
            },
          });
          const res = await app.request("/v1/documents?title=chunked", {
            method: "POST",
            token: apiKey,
            headers: { "content-type": type },
            body,
            duplex: "half",
          } as RequestInit);
          await expectError(res, 413, "payload_too_large");
          expect(sent).toBeLessThan(7 * LIMIT + 128 * 1024);
        }
      },
      { config },
    ));

  it("answers a chunked body with a wrong key 401 without reading it", () =>
    withApp(
      async (app) => {
        let pulled = 0;
        const body = new ReadableStream({
          pull(controller) {
            pulled += 1;
            controller.enqueue(new Uint8Array(1024));
          },
        });
        const res = await app.request("/v1/documents", {
          method: "POST",
          headers: { authorization: "Bearer mem_wrong", "content-type": "application/json" },
          body,
          duplex: "half",
        } as RequestInit);
        await expectError(res, 401, "unauthorized");
        // Connection: close needs framing headers on the wire: test/runtime/node-server.test.ts checks it.
        expect(pulled).toBeLessThanOrEqual(1);
      },
      { config },
    ));
});

describe("/docs", () => {
  it("is a page that loads only same-origin files and runs no inline script", () =>
    withApp(async (app) => {
      const res = await app.request("/docs");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await res.text();
      const refs = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? "");
      expect(refs.length).toBeGreaterThanOrEqual(3);
      for (const ref of refs) expect(ref, ref).toMatch(/^\/[^/]/);
      expect(html).not.toMatch(/\/\/|cdn|unpkg|jsdelivr/i);
      // Every script has a src: nothing inline for a later CSP to allow.
      expect([...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)]).toEqual([]);

      const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/ };
      for (const ref of refs) {
        const asset = await app.request(ref);
        expect(asset.status, ref).toBe(200);
        const ext = ref.split(".").pop() ?? "";
        expect(asset.headers.get("content-type"), ref).toMatch(types[ext] ?? /^$/);
        expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
        expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
      }
      const bundle = refs.find((r) => r.endsWith("swagger-ui-bundle.js")) ?? "";
      expect(bundle).toContain("/docs/assets/5.35.0/");
      expect((await app.request(bundle)).headers.get("cache-control")).toMatch(/immutable/);
      const init = await (await app.request("/docs/init.js")).text();
      expect(init).toContain("SwaggerUIBundle");
      expect(init).not.toMatch(/https?:/);
    }));

  it("serves only the files the page needs from swagger-ui-dist", () =>
    withApp(async (app) => {
      for (const path of [
        "/docs/assets/5.35.0/package.json",
        "/docs/assets/5.35.0/..%2Fpackage.json",
        "/docs/assets/5.35.0/index.html",
      ])
        await expectError(await app.request(path), 404, "not_found");
    }));
});
