import { describe, expect, it } from "vitest";
import { createTeamAnswer, keysAnswer } from "../../src/routes/teams.js";
import { ADMIN_TOKEN, makeTeam } from "../support/app.js";
import { expectError, expectOk, withApp } from "./contract.js";

const admin = { token: ADMIN_TOKEN };
const unknownTeam = "taaaaaaaaaaaaaaaa";

describe("POST /v1/teams validation", () => {
  it.each([
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["a null name", { name: null }],
    ["a numeric name", { name: 42 }],
    ["an array body", []],
    ["a null body", null],
  ])("refuses %s with 400 invalid_request", (_label, json) =>
    withApp(async (app) => {
      const res = await app.request("/v1/teams", { ...admin, method: "POST", json });
      await expectError(res, 400, "invalid_request");
    }),
  );

  it("refuses a name of 201 characters and accepts 200", () =>
    withApp(async (app) => {
      const tooLong = await app.request("/v1/teams", {
        ...admin,
        method: "POST",
        json: { name: "a".repeat(201) },
      });
      const body = await expectError(tooLong, 400, "invalid_request");
      expect(body.error.message).toContain("name");
      const emoji = await app.request("/v1/teams", {
        ...admin,
        method: "POST",
        json: { name: "🦊".repeat(201) },
      });
      await expectError(emoji, 400, "invalid_request");
      const fits = await app.request("/v1/teams", {
        ...admin,
        method: "POST",
        json: { name: "a".repeat(200) },
      });
      await expectOk(fits, 201, createTeamAnswer);
    }));

  it("refuses malformed JSON with 400 invalid_request", () =>
    withApp(async (app) => {
      const res = await app.request("/v1/teams", {
        ...admin,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"name": "Acme"',
      });
      await expectError(res, 400, "invalid_request");
    }));

  it("refuses a body that is not JSON at all with a 4xx envelope, not a team", () =>
    withApp(async (app) => {
      const res = await app.request("/v1/teams", {
        ...admin,
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "Acme",
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const listed = (await (await app.request("/v1/teams", admin)).json()) as { teams: unknown[] };
      expect(listed.teams).toEqual([]);
    }));

  it("makes no team when the request is refused", () =>
    withApp(async (app) => {
      await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "" } });
      const listed = (await (await app.request("/v1/teams", admin)).json()) as { teams: unknown[] };
      expect(listed.teams).toEqual([]);
    }));
});

describe("unknown teams and keys", () => {
  it("answers 404 for every route of a team that does not exist", () =>
    withApp(async (app) => {
      for (const teamId of [unknownTeam, "nope", "t_with_underscore"]) {
        await expectError(await app.request(`/v1/teams/${teamId}/keys`, admin), 404, "not_found");
        await expectError(
          await app.request(`/v1/teams/${teamId}/keys`, { ...admin, method: "POST" }),
          404,
          "not_found",
        );
        await expectError(
          await app.request(`/v1/teams/${teamId}/keys/kaaaaaaaaaaaaaaaa`, { ...admin, method: "DELETE" }),
          404,
          "not_found",
        );
        await expectError(
          await app.request(`/v1/teams/${teamId}`, { ...admin, method: "DELETE" }),
          404,
          "not_found",
        );
      }
    }));

  it("answers 404 for an unknown key id and for another team's key id", () =>
    withApp(async (app) => {
      const acme = await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } });
      const a = await expectOk(acme, 201, createTeamAnswer);
      const b = await makeTeam(app, "Globex");
      await expectError(
        await app.request(`/v1/teams/${a.team.id}/keys/kaaaaaaaaaaaaaaaa`, { ...admin, method: "DELETE" }),
        404,
        "not_found",
      );
      // A's key id under B's team: not B's, so 404, and A's key keeps working.
      await expectError(
        await app.request(`/v1/teams/${b.teamId}/keys/${a.keyId}`, { ...admin, method: "DELETE" }),
        404,
        "not_found",
      );
      expect((await app.request("/v1/stats", { token: a.apiKey })).status).toBe(200);
    }));

  it("treats revoking a key twice as done: 204 again, the first revokedAt kept, the key still refused", () =>
    withApp(async (app) => {
      const created = await expectOk(
        await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } }),
        201,
        createTeamAnswer,
      );
      const path = `/v1/teams/${created.team.id}/keys/${created.keyId}`;
      expect((await app.request(path, { ...admin, method: "DELETE" })).status).toBe(204);
      const first = await expectOk(
        await app.request(`/v1/teams/${created.team.id}/keys`, admin),
        200,
        keysAnswer,
      );
      expect((await app.request(path, { ...admin, method: "DELETE" })).status).toBe(204);
      const second = await expectOk(
        await app.request(`/v1/teams/${created.team.id}/keys`, admin),
        200,
        keysAnswer,
      );
      expect(second).toEqual(first);
      await expectError(await app.request("/v1/stats", { token: created.apiKey }), 401, "unauthorized");
    }));

  it("answers 404 not_found for a route that does not exist", () =>
    withApp(async (app) => {
      await expectError(await app.request("/v1/teamz", admin), 404, "not_found");
      await expectError(await app.request("/v1/teams/x/y/z", admin), 404, "not_found");
    }));
});
