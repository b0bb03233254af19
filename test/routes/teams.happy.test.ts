import { describe, expect, it } from "vitest";
import { searchAnswer } from "../../src/routes/schemas.js";
import { statsAnswer } from "../../src/routes/stats.js";
import { createKeyAnswer, createTeamAnswer, keysAnswer, teamsAnswer } from "../../src/routes/teams.js";
import { ADMIN_TOKEN } from "../support/app.js";
import { expectError, expectNoContent, expectOk, withApp } from "./contract.js";

const admin = { token: ADMIN_TOKEN };

describe("POST /v1/teams", () => {
  it("creates a team and answers 201 with its first key, mem_<teamId>_…", () =>
    withApp(async (app) => {
      const res = await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } });
      const body = await expectOk(res, 201, createTeamAnswer);
      expect(body.team.name).toBe("Acme");
      expect(body.team.id.length).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(body.team.createdAt))).toBe(false);
      expect(body.team.createdAt.endsWith("Z")).toBe(true);
      expect(body.apiKey.startsWith(`mem_${body.team.id}_`)).toBe(true);
      expect(body.apiKey.length).toBeGreaterThan(`mem_${body.team.id}_`.length);
      expect(body.keyId.length).toBeGreaterThan(0);
    }));

  it("keeps a name of exactly 200 code points, emoji counted once", () =>
    withApp(async (app) => {
      const name = "🦊".repeat(200);
      const res = await app.request("/v1/teams", { ...admin, method: "POST", json: { name } });
      expect((await expectOk(res, 201, createTeamAnswer)).team.name).toBe(name);
    }));

  it("gives the first key access to the team's data at once", () =>
    withApp(async (app) => {
      const res = await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } });
      const { apiKey } = await expectOk(res, 201, createTeamAnswer);
      const stats = await expectOk(await app.request("/v1/stats", { token: apiKey }), 200, statsAnswer);
      expect(stats.documents).toBe(0);
    }));
});

describe("GET /v1/teams", () => {
  it("lists every team, none before the first", () =>
    withApp(async (app) => {
      const empty = await expectOk(await app.request("/v1/teams", admin), 200, teamsAnswer);
      expect(empty.teams).toEqual([]);
      const made = [];
      for (const name of ["Acme", "Globex", "Ünïcödé ✓"]) {
        const res = await app.request("/v1/teams", { ...admin, method: "POST", json: { name } });
        made.push((await expectOk(res, 201, createTeamAnswer)).team);
      }
      const listed = await expectOk(await app.request("/v1/teams", admin), 200, teamsAnswer);
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
      expect([...listed.teams].sort(byId)).toEqual([...made].sort(byId));
    }));
});

describe("team keys", () => {
  it("lists keys without any secret", () =>
    withApp(async (app) => {
      const created = await expectOk(
        await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } }),
        201,
        createTeamAnswer,
      );
      const second = await expectOk(
        await app.request(`/v1/teams/${created.team.id}/keys`, { ...admin, method: "POST" }),
        201,
        createKeyAnswer,
      );
      const res = await app.request(`/v1/teams/${created.team.id}/keys`, admin);
      const raw = await res.clone().text();
      const body = await expectOk(res, 200, keysAnswer);
      expect(body.keys.map((k) => k.keyId).sort()).toEqual([created.keyId, second.keyId].sort());
      for (const key of body.keys) {
        expect(Object.keys(key).sort()).toEqual(["createdAt", "keyId", "revokedAt", "scope"]);
        expect(key.revokedAt).toBeNull();
        // The admin token's keys are admin keys, as every key was before scopes.
        expect(key.scope).toBe("admin");
      }
      for (const apiKey of [created.apiKey, second.apiKey]) {
        const secret = apiKey.slice(`mem_${created.team.id}_`.length);
        expect(raw).not.toContain(apiKey);
        expect(raw).not.toContain(secret);
      }
    }));

  it("makes a new key that works, starts with mem_<teamId>_ and differs from the first", () =>
    withApp(async (app) => {
      const created = await expectOk(
        await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } }),
        201,
        createTeamAnswer,
      );
      const res = await app.request(`/v1/teams/${created.team.id}/keys`, { ...admin, method: "POST" });
      const key = await expectOk(res, 201, createKeyAnswer);
      expect(key.apiKey.startsWith(`mem_${created.team.id}_`)).toBe(true);
      expect(key.apiKey).not.toBe(created.apiKey);
      expect(key.keyId).not.toBe(created.keyId);
      await expectOk(await app.request("/v1/stats", { token: key.apiKey }), 200, statsAnswer);
      await expectOk(await app.request("/v1/stats", { token: created.apiKey }), 200, statsAnswer);
    }));

  it("revokes a key: 204, it answers 401 at once, the other key still works, revokedAt is set", () =>
    withApp(async (app) => {
      const created = await expectOk(
        await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } }),
        201,
        createTeamAnswer,
      );
      const other = await expectOk(
        await app.request(`/v1/teams/${created.team.id}/keys`, { ...admin, method: "POST" }),
        201,
        createKeyAnswer,
      );
      // Used once before revoking, so nothing can hide behind a cold cache.
      await expectOk(await app.request("/v1/stats", { token: created.apiKey }), 200, statsAnswer);
      await expectNoContent(
        await app.request(`/v1/teams/${created.team.id}/keys/${created.keyId}`, {
          ...admin,
          method: "DELETE",
        }),
      );
      await expectError(await app.request("/v1/stats", { token: created.apiKey }), 401, "unauthorized");
      await expectError(await app.request("/v1/documents", { token: created.apiKey }), 401, "unauthorized");
      await expectOk(await app.request("/v1/stats", { token: other.apiKey }), 200, statsAnswer);
      const keys = await expectOk(
        await app.request(`/v1/teams/${created.team.id}/keys`, admin),
        200,
        keysAnswer,
      );
      const revoked = keys.keys.find((k) => k.keyId === created.keyId);
      expect(revoked?.revokedAt).toEqual(expect.any(String));
      expect(keys.keys.find((k) => k.keyId === other.keyId)?.revokedAt).toBeNull();
    }));
});

describe("DELETE /v1/teams/{teamId}", () => {
  it("answers 204; the team's keys then answer 401 and its keys route 404", () =>
    withApp(async (app) => {
      const created = await expectOk(
        await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Acme" } }),
        201,
        createTeamAnswer,
      );
      const keep = await expectOk(
        await app.request("/v1/teams", { ...admin, method: "POST", json: { name: "Keep" } }),
        201,
        createTeamAnswer,
      );
      await app.request("/v1/documents", {
        method: "POST",
        token: created.apiKey,
        json: { title: "Doomed", content: "These words go with the team." },
      });
      const before = await expectOk(
        await app.request("/v1/search?q=words", { token: created.apiKey }),
        200,
        searchAnswer,
      );
      expect(before.hits.length).toBe(1);

      await expectNoContent(
        await app.request(`/v1/teams/${created.team.id}`, { ...admin, method: "DELETE" }),
      );

      await expectError(await app.request("/v1/stats", { token: created.apiKey }), 401, "unauthorized");
      await expectError(
        await app.request("/v1/search?q=words", { token: created.apiKey }),
        401,
        "unauthorized",
      );
      await expectError(await app.request(`/v1/teams/${created.team.id}/keys`, admin), 404, "not_found");
      await expectError(
        await app.request(`/v1/teams/${created.team.id}`, { ...admin, method: "DELETE" }),
        404,
        "not_found",
      );
      const listed = await expectOk(await app.request("/v1/teams", admin), 200, teamsAnswer);
      expect(listed.teams.map((t) => t.id)).toEqual([keep.team.id]);
      await expectOk(await app.request("/v1/stats", { token: keep.apiKey }), 200, statsAnswer);
    }));
});
