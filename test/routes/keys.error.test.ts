// POST/GET/DELETE /v1/keys refused: bodies that do not validate, times already past, keys that are not the
// team's, and every key route asked by a key below admin.

import { describe, expect, it } from "vitest";
import { makeTeam } from "../support/app.js";
import { makeKey } from "../support/keys.js";
import { expectError, withApp } from "./contract.js";

describe("keys refused", () => {
  it("answers 400 naming the field for a body that does not validate", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      const cases: [unknown, string][] = [
        [{ scope: "read" }, "name"],
        [{ name: "   ", scope: "read" }, "name"],
        [{ name: "x".repeat(201), scope: "read" }, "name"],
        [{ name: "ci" }, "scope"],
        [{ name: "ci", scope: "owner" }, "scope"],
        [{ name: "ci", scope: "read", expiresAt: "tomorrow" }, "expiresAt"],
        [{ name: "ci", scope: "read", expiresAt: 1893456000 }, "expiresAt"],
      ];
      for (const [body, field] of cases) {
        const error = await expectError(
          await app.request("/v1/keys", { method: "POST", token: apiKey, json: body }),
          400,
          "invalid_request",
        );
        expect(error.error.message, JSON.stringify(body)).toContain(field);
      }
    }));

  it("refuses an expiry that is not in the future", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const expiresAt of [new Date().toISOString(), "2001-01-01T00:00:00Z"]) {
        const error = await expectError(
          await app.request("/v1/keys", {
            method: "POST",
            token: apiKey,
            json: { name: "ci", scope: "read", expiresAt },
          }),
          400,
          "invalid_request",
        );
        expect(error.error.message).toBe("expiresAt must be a time in the future.");
      }
    }));

  it("answers 404 for a key id that is not the team's, and leaves that key working", () =>
    withApp(async (app) => {
      const ours = await makeTeam(app, "Ours");
      const theirs = await makeTeam(app, "Theirs");
      const theirKey = await makeKey(app, theirs.apiKey, "read");
      await expectError(
        await app.request(`/v1/keys/${theirKey.keyId}`, { method: "DELETE", token: ours.apiKey }),
        404,
        "not_found",
      );
      await expectError(
        await app.request("/v1/keys/k_nosuchkey", { method: "DELETE", token: ours.apiKey }),
        404,
        "not_found",
      );
      expect((await app.request("/v1/stats", { token: theirKey.apiKey })).status).toBe(200);
    }));

  it("refuses every key route to read and write keys, naming the admin scope", () =>
    withApp(async (app) => {
      const { apiKey: admin } = await makeTeam(app);
      const made = await makeKey(app, admin, "read");
      for (const scope of ["read", "write"] as const) {
        const key = (await makeKey(app, admin, scope)).apiKey;
        for (const [method, path, json] of [
          ["GET", "/v1/keys", undefined],
          ["POST", "/v1/keys", { name: "more", scope: "admin" }],
          ["DELETE", `/v1/keys/${made.keyId}`, undefined],
        ] as const) {
          const error = await expectError(
            await app.request(path, { method, token: key, ...(json ? { json } : {}) }),
            403,
            "forbidden",
          );
          expect(error.error.message).toContain(
            `needs a key with the admin scope; this key's scope is ${scope}`,
          );
        }
      }
      expect((await app.request("/v1/stats", { token: made.apiKey })).status).toBe(200);
    }));

  it("counts refused requests under the key's rate limit, as it counts the others", () =>
    withApp(
      async (app) => {
        const { apiKey: admin } = await makeTeam(app);
        const read = (await makeKey(app, admin, "read")).apiKey;
        for (let i = 0; i < 3; i++) {
          await expectError(
            await app.request("/v1/documents/d_any", { method: "DELETE", token: read }),
            403,
            "forbidden",
          );
        }
        await expectError(
          await app.request("/v1/documents/d_any", { method: "DELETE", token: read }),
          429,
          "rate_limited",
        );
      },
      { config: { rateLimit: 3 } },
    ));
});
