import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, makeTeam } from "../support/app.js";
import { expectError, withApp } from "./contract.js";

const teamId = "taaaaaaaaaaaaaaaa";
const adminRoutes: [string, string][] = [
  ["POST", "/v1/teams"],
  ["GET", "/v1/teams"],
  ["GET", `/v1/teams/${teamId}/keys`],
  ["POST", `/v1/teams/${teamId}/keys`],
  ["DELETE", `/v1/teams/${teamId}/keys/kaaaaaaaaaaaaaaaa`],
  ["DELETE", `/v1/teams/${teamId}`],
];

function send(
  app: { request: (p: string, i?: RequestInit & { json?: unknown; token?: string }) => Promise<Response> },
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.request(path, {
    method,
    headers,
    ...(method === "POST" && path === "/v1/teams" ? { json: { name: "Intruder" } } : {}),
  });
}

async function teamCount(app: Parameters<typeof send>[0]): Promise<number> {
  const res = await app.request("/v1/teams", { token: ADMIN_TOKEN });
  return ((await res.json()) as { teams: unknown[] }).teams.length;
}

describe("admin routes without the admin token", () => {
  it.each(adminRoutes)("%s %s answers 401 with no token", (method, path) =>
    withApp(async (app) => {
      await expectError(await send(app, method, path), 401, "unauthorized");
      expect(await teamCount(app)).toBe(0);
    }),
  );

  it.each(adminRoutes)("%s %s answers 401 with a wrong token", (method, path) =>
    withApp(async (app) => {
      for (const authorization of [
        "Bearer wrong-token",
        `Bearer ${ADMIN_TOKEN}x`,
        `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
        `Bearer ${ADMIN_TOKEN.toUpperCase()}`,
        `Basic ${ADMIN_TOKEN}`,
        ADMIN_TOKEN,
        "Bearer",
        "Bearer ",
        "",
      ]) {
        await expectError(await send(app, method, path, { authorization }), 401, "unauthorized");
      }
      expect(await teamCount(app)).toBe(0);
    }),
  );

  it.each(adminRoutes)("%s %s answers 401 to a team key", (method, path) =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      await expectError(
        await send(app, method, path, { authorization: `Bearer ${apiKey}` }),
        401,
        "unauthorized",
      );
      expect(await teamCount(app)).toBe(1);
    }),
  );

  it("does not let a team key list, add or revoke its own team's keys, or delete its team", () =>
    withApp(async (app) => {
      const team = await makeTeam(app);
      const auth = { authorization: `Bearer ${team.apiKey}` };
      await expectError(await send(app, "GET", `/v1/teams/${team.teamId}/keys`, auth), 401, "unauthorized");
      await expectError(await send(app, "POST", `/v1/teams/${team.teamId}/keys`, auth), 401, "unauthorized");
      await expectError(await send(app, "DELETE", `/v1/teams/${team.teamId}`, auth), 401, "unauthorized");
      expect((await app.request("/v1/stats", { token: team.apiKey })).status).toBe(200);
    }));

  it("never echoes the presented token in the error", () =>
    withApp(async (app) => {
      const { apiKey } = await makeTeam(app);
      for (const token of ["wrong-secret-token-value", apiKey]) {
        const res = await send(app, "GET", "/v1/teams", { authorization: `Bearer ${token}` });
        const text = await res.clone().text();
        await expectError(res, 401, "unauthorized");
        expect(text).not.toContain(token);
      }
    }));
});

describe("admin token unset (production)", () => {
  it.each(adminRoutes)("%s %s answers 403 admin_disabled, whatever the token", (method, path) =>
    withApp(
      async (app) => {
        await expectError(await send(app, method, path), 403, "admin_disabled");
        await expectError(
          await send(app, method, path, { authorization: `Bearer ${ADMIN_TOKEN}` }),
          403,
          "admin_disabled",
        );
        await expectError(
          await send(app, method, path, { authorization: "Bearer null" }),
          403,
          "admin_disabled",
        );
        await expectError(await send(app, method, path, { authorization: "Bearer " }), 403, "admin_disabled");
      },
      { config: { adminToken: null } },
    ),
  );

  it("leaves the team routes to team keys", () =>
    withApp(
      async (app) => {
        await expectError(await app.request("/v1/stats"), 401, "unauthorized");
        expect((await app.request("/healthz")).status).toBe(200);
      },
      { config: { adminToken: null } },
    ));
});
