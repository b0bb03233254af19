// docs/api.md is the API reference a clone carries: it must list every operation the server describes in
// /openapi.json, and name no route the server does not serve.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
});
