// docs/api.md is the API reference a clone carries: it must list every operation the server describes in
// /openapi.json, and name no route the server does not serve.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTE_SCOPES } from "../../src/http/scopes.js";
import { withApp } from "./contract.js";

const reference = readFileSync(join(import.meta.dirname, "../../docs/api.md"), "utf8");

describe("docs/api.md", () => {
  it("lists every operation of /openapi.json, and no other", () =>
    withApp(async (app) => {
      const doc = (await (await app.request("/openapi.json")).json()) as { paths: Record<string, object> };
      const served = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      const listed = [...reference.matchAll(/^\| `((?:GET|POST|PUT|DELETE|PATCH) \/[^`]*)` \|/gm)].map(
        (m) => m[1],
      );
      expect(served.filter((op) => !listed.includes(op))).toEqual([]);
      expect(listed.filter((op) => !served.includes(op ?? ""))).toEqual([]);
      expect(listed.length).toBe(served.length);
    }));

  it("names, for every team-key route, the scope src/http/scopes.ts requires", () =>
    withApp(async (app) => {
      const doc = (await (await app.request("/openapi.json")).json()) as {
        paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
      };
      const teamKeyed = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, operation]) => operation.security?.some((s) => "teamKey" in s))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      );
      const named = new Map(
        [
          ...reference.matchAll(/^\| `((?:GET|POST|PUT|DELETE|PATCH) \/[^`]*)` \| team key, `(\w+)` \|/gm),
        ].map((m) => [m[1], m[2]]),
      );
      expect(teamKeyed.length).toBeGreaterThan(20);
      for (const op of teamKeyed) {
        const hono = op.replace(/\{(\w+)\}/g, ":$1");
        expect({ op, scope: named.get(op) }).toEqual({ op, scope: ROUTE_SCOPES[hono] });
      }
    }));

  it("describes a 403 for every team-key route a read key is refused", () =>
    withApp(async (app) => {
      const doc = (await (await app.request("/openapi.json")).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      const missing = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .map(([method, operation]) => ({ op: `${method.toUpperCase()} ${path}`, operation }))
          .filter(({ op }) => {
            const scope = ROUTE_SCOPES[op.replace(/\{(\w+)\}/g, ":$1")];
            return scope !== undefined && scope !== "read";
          })
          .filter(({ operation }) => !("403" in operation.responses))
          .map(({ op }) => op),
      );
      expect(missing).toEqual([]);
    }));
});
