// The scope table (src/http/scopes.ts) against the app as served: every team-key route is in it, each answers
// 403 `forbidden` to every key below its scope (before reading a body, and doing nothing), and lets the
// keys at or above it through.

import { describe, expect, it } from "vitest";
import { ROUTE_SCOPES, scopeOfRoute } from "../../src/http/scopes.js";
import { webhookSourceAnswer } from "../../src/routes/webhooks.js";
import { allows, type Scope, scopes } from "../../src/scope.js";
import { expectError, expectNoContent, expectOk, withApp } from "../routes/contract.js";
import { addDocument, makeTeam } from "../support/app.js";
import { keysOfEveryScope } from "../support/keys.js";

/** Routes under /v1 and /mcp that take no team key: the admin token's, the cron token's, signed deliveries. */
const NOT_TEAM_KEYED = [
  "POST /v1/teams",
  "GET /v1/teams",
  "DELETE /v1/teams/:teamId",
  "GET /v1/teams/:teamId/keys",
  "POST /v1/teams/:teamId/keys",
  "DELETE /v1/teams/:teamId/keys/:keyId",
  "POST /v1/reindex",
  "POST /v1/webhooks/ingest/:teamId",
  "POST /v1/webhooks/notion/:teamId/:token",
];

describe("the scope table", () => {
  it("names every team-key route the app serves, and no other", () =>
    withApp(async (app) => {
      const served = new Set(
        app.memoria.app.routes
          .filter((r) => r.method !== "ALL" && (r.path.startsWith("/v1/") || r.path === "/mcp"))
          .map((r) => `${r.method} ${r.path}`),
      );
      const teamKeyed = [...served].filter((route) => !NOT_TEAM_KEYED.includes(route));
      expect(teamKeyed.filter((route) => !(route in ROUTE_SCOPES))).toEqual([]);
      expect(Object.keys(ROUTE_SCOPES).filter((route) => !served.has(route))).toEqual([]);
    }));

  it("closes a route the table does not name to all but admin keys, and reads HEAD as GET", () => {
    expect(scopeOfRoute("POST", "/v1/something-new")).toBe("admin");
    expect(scopeOfRoute("HEAD", "/v1/search")).toBe("read");
  });

  it("answers 403 naming the scope to every key below a route's, before its body, and lets the rest by", () =>
    withApp(async (app) => {
      const { apiKey: admin } = await makeTeam(app);
      const keys = await keysOfEveryScope(app, admin);
      let refusals = 0;
      for (const [route, needed] of Object.entries(ROUTE_SCOPES)) {
        const [method = "", pattern = ""] = route.split(" ");
        const path = pattern.replace(":id", "nosuchrow").replace(":keyId", "k_nosuchkey");
        for (const held of scopes) {
          if (method === "GET" && !allows(held, needed)) {
            // HEAD is answered by the GET route, and refused as it is.
            const head = await app.request(path, { method: "HEAD", token: keys[held] });
            expect({ route, held, status: head.status }).toEqual({ route, held, status: 403 });
          }
          // A body that validates nowhere: a refusal must come before validation, an allowed key gets past it.
          const init = {
            method,
            token: keys[held],
            ...(method === "POST" || method === "PUT" ? { json: {} } : {}),
          };
          const res = await app.request(path, init);
          if (allows(held, needed)) {
            expect({ route, held, status: res.status }).not.toEqual({ route, held, status: 403 });
            await res.body?.cancel();
          } else {
            const error = await expectError(res, 403, "forbidden");
            expect(error.error.message).toBe(
              `${method} ${pattern} needs a key with the ${needed} scope; this key's scope is ${held}.`,
            );
            refusals++;
          }
        }
      }
      // Every route above read refuses a read key; every admin route refuses a write key too.
      expect(refusals).toBe(
        Object.values(ROUTE_SCOPES).filter((s) => s !== "read").length +
          Object.values(ROUTE_SCOPES).filter((s) => s === "admin").length,
      );
    }));

  it("does nothing when it refuses: a write key's delete, a read key's import and source", () =>
    withApp(async (app) => {
      const { apiKey: admin } = await makeTeam(app);
      const keys = await keysOfEveryScope(app, admin);
      const doc = await addDocument(app, keys.write, {
        title: "Stays",
        content: "Not deleted by a write key.",
      });
      await expectError(
        await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: keys.write }),
        403,
        "forbidden",
      );
      await expectError(
        await app.request("/v1/sources/webhook", { method: "PUT", token: keys.read }),
        403,
        "forbidden",
      );
      const ndjson = `${JSON.stringify({ kind: "memoria-export", version: 1 })}\n`;
      await expectError(
        await app.request("/v1/import", {
          method: "POST",
          token: keys.read,
          headers: { "content-type": "application/x-ndjson" },
          body: ndjson,
        }),
        403,
        "forbidden",
      );
      expect((await app.request(`/v1/documents/${doc.id}`, { token: keys.read })).status).toBe(200);
      const source = await expectOk(
        await app.request("/v1/sources/webhook", { token: admin }),
        200,
        webhookSourceAnswer,
      );
      expect(source.source.configured).toBe(false);
      await expectNoContent(
        await app.request(`/v1/documents/${doc.id}`, { method: "DELETE", token: keys.admin }),
      );
    }));

  it("holds each scope's powers under the one above it", () => {
    const order: Scope[] = ["read", "write", "admin"];
    for (const [i, held] of order.entries()) {
      for (const [j, needed] of order.entries()) expect(allows(held, needed)).toBe(i >= j);
    }
  });
});
