// The Worker's pure decisions (src/runtime/worker/), under Node: where each request goes, that the Worker
// reads keys, bearer headers and paths exactly as the app does, the container's environment and its checks
// (with the messages the Node entry gives), and the registry of active teams over a real SQLite.

import { describe, expect, it } from "vitest";
import { formatApiKey, teamIdOfApiKey } from "../../src/api-key.js";
import { ConfigError, parseConfig } from "../../src/config.js";
import { bearerToken } from "../../src/http/bearer.js";
import { newId } from "../../src/ids.js";
import { IndexDatabase } from "../../src/index/engine.js";
import { formatOAuthToken } from "../../src/oauth-token.js";
import { withLocalSecrets } from "../../src/runtime/local-secrets.js";
import {
  REGISTRY_RETENTION_MS,
  RecordThrottle,
  type SqlExec,
  TeamRegistry,
} from "../../src/runtime/worker/active-teams.js";
import {
  CheckedEnvironments,
  CONTAINER_PORT,
  checkContainerEnv,
  containerEnv,
} from "../../src/runtime/worker/container.js";
import { mergeReindexAnswers, reindexTarget } from "../../src/runtime/worker/fanout.js";
import { ADMIN_INSTANCE, classify } from "../../src/runtime/worker/routing.js";
import { masterKeyText, newMasterKey } from "../support/app.js";

const teamA = newId("t");
const keyA = formatApiKey(teamA, "secret-part_with_underscores");

function req(path: string, init: RequestInit & { key?: string } = {}): Request {
  const { key, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key !== undefined) headers.set("authorization", `Bearer ${key}`);
  return new Request(`https://memoria.example${path}`, { ...rest, headers });
}

describe("classify", () => {
  it("sends team routes with a well-formed key to the key's team", () => {
    for (const path of [
      "/v1/documents",
      "/v1/search?q=x",
      "/v1/entries/e1",
      "/v1/memory",
      "/v1/stats",
      "/v1/keys",
      "/v1/audit?limit=10",
      "/mcp",
    ]) {
      expect(classify(req(path, { key: keyA })), path).toEqual({ kind: "team", teamId: teamA, via: "key" });
    }
    expect(classify(req("/v1/sources/webhook", { method: "PUT", key: keyA }))).toMatchObject({
      teamId: teamA,
    });
  });

  it("sends /mcp with an OAuth access token to the token's team, and no other kind of token anywhere", () => {
    const access = formatOAuthToken("access", teamA, "secret_with_underscores");
    expect(classify(req("/mcp", { method: "POST", key: access }))).toEqual({
      kind: "team",
      teamId: teamA,
      via: "key",
    });
    // An access token is for /mcp alone; a refresh token or a code is never a bearer.
    expect(classify(req("/v1/search?q=x", { key: access }))).toEqual({
      kind: "reject",
      code: "unauthorized",
    });
    for (const kind of ["refresh", "code"] as const)
      expect(classify(req("/mcp", { method: "POST", key: formatOAuthToken(kind, teamA, "s") }))).toEqual({
        kind: "reject",
        code: "unauthorized",
      });
  });

  it("sends OAuth's metadata, registration, token and revocation to the fixed instance; authorize like the page", () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
      "/oauth/register",
      "/oauth/token",
      "/oauth/revoke",
    ])
      expect(classify(req(path, { method: "POST" })), path).toEqual({ kind: "service" });
    expect(classify(req("/oauth/authorize?client_id=x"))).toEqual({ kind: "service" });
    const cookie = { headers: { cookie: `memoria_session=${teamA}.${"a".repeat(43)}` } };
    expect(classify(req("/oauth/authorize?client_id=x", cookie))).toEqual({
      kind: "team",
      teamId: teamA,
      via: "cookie",
    });
    expect(classify(req("/page/oauth/consent?client_id=x", cookie))).toEqual({
      kind: "team",
      teamId: teamA,
      via: "cookie",
    });
  });

  it("sends webhook deliveries to the team in the path, whatever the headers", () => {
    for (const path of [`/v1/webhooks/notion/${teamA}/urltoken`, `/v1/webhooks/ingest/${teamA}`]) {
      expect(classify(req(path, { method: "POST" }))).toEqual({
        kind: "team",
        teamId: teamA,
        via: "webhook",
      });
    }
  });

  it("answers a team route without a well-formed key, or a webhook for no team id, with 401", () => {
    const unauthorized = { kind: "reject", code: "unauthorized" };
    expect(classify(req("/v1/search"))).toEqual(unauthorized);
    for (const key of [
      `key_${teamA}_secret`,
      `mem_${teamA.toUpperCase()}_secret`,
      "mem_tshort_secret",
      `mem_${teamA}_`,
      `mem_${teamA}`,
      `mem__${teamA}_secret`,
    ]) {
      expect(classify(req("/v1/search", { key })), key).toEqual(unauthorized);
    }
    expect(classify(req("/v1/search", { headers: { authorization: keyA } }))).toEqual(unauthorized);
    expect(classify(req("/v1/search", { headers: { authorization: `Basic ${keyA}` } }))).toEqual(
      unauthorized,
    );
    expect(classify(req("/v1/webhooks/ingest/not-a-team", { method: "POST" }))).toEqual(unauthorized);
    // Notion's webhook is only the team's secret URL: the bare team path, a bad team id or a longer path
    // is 404, as the app answers them.
    const notFound = { kind: "reject", code: "not_found" };
    for (const path of [
      `/v1/webhooks/notion/${teamA}`,
      "/v1/webhooks/notion/not-a-team/urltoken",
      `/v1/webhooks/notion/${teamA}/urltoken/extra`,
    ]) {
      expect(classify(req(path, { method: "POST" })), path).toEqual(notFound);
    }
  });

  it("sends admin, health, the API description and the page's icon to the fixed instance", () => {
    expect(ADMIN_INSTANCE).toBe("admin");
    for (const path of [
      "/favicon.ico",
      "/healthz",
      "/readyz",
      "/openapi.json",
      "/docs",
      "/docs/init.js",
      "/docs/assets/5.35.0/swagger-ui.css",
    ]) {
      expect(classify(req(path)), path).toEqual({ kind: "service" });
    }
    for (const path of ["/v1/teams", `/v1/teams/${teamA}/keys`, `/v1/teams/${teamA}`]) {
      expect(classify(req(path, { key: keyA })), path).toEqual({ kind: "admin" });
    }
  });

  it("sends the page to the team its session cookie names, and to the fixed instance signed out", () => {
    const cookie = `memoria_session=${teamA}.${"A".repeat(43)}`;
    for (const path of [
      "/",
      "/page/memory",
      "/page/notes",
      "/page/documents/d_x",
      "/page/audit",
      "/page/sign-out",
      "/page/members",
      "/page/keys",
      "/page/account",
      "/page/passkeys/options",
    ]) {
      expect(classify(req(path, { headers: { cookie } })), path).toEqual({
        kind: "team",
        teamId: teamA,
        via: "cookie",
      });
      expect(classify(req(path, { headers: { cookie: `theme=dark; ${cookie}` } })), path).toMatchObject({
        teamId: teamA,
      });
    }
    for (const headers of [
      {} as Record<string, string>,
      { cookie: "memoria_session=nonsense" },
      { cookie: `other_session=${teamA}.x` },
      // A sign-in with the organisation's provider under way: its own cookie, never a team's.
      { cookie: `memoria_oidc=${"A".repeat(43)}` },
    ]) {
      // Signing in and joining happen before any team is known: the fixed instance, which storage serves.
      for (const path of [
        "/",
        "/page/sign-in",
        "/page/assets/page.css",
        `/page/invite/${"A".repeat(43)}`,
        "/page/passkey/options",
        "/page/passkey/sign-in",
        "/page/oidc/start",
        "/page/oidc/callback",
      ]) {
        expect(classify(req(path, { headers })), path).toEqual({ kind: "service" });
      }
    }
    // Read as the container's getCookie reads it (hono's parser): a quoted value is the same cookie, and of
    // two, the first is the one both sides take — never one team's container for another team's session.
    const other = "tbbbbbbbbbbbbbbbb";
    expect(
      classify(req("/", { headers: { cookie: `memoria_session="${other}.${"B".repeat(43)}"; ${cookie}` } })),
    ).toMatchObject({ teamId: other });
    // Over HTTPS the cookie is named __Host-memoria_session (src/page/session-cookie.ts), and is read first.
    expect(
      classify(
        req("/page/memory", { headers: { cookie: `__Host-memoria_session=${other}.${"B".repeat(43)}` } }),
      ),
    ).toEqual({ kind: "team", teamId: other, via: "cookie" });
    expect(
      classify(
        req("/", { headers: { cookie: `${cookie}; __Host-memoria_session=${other}.${"B".repeat(43)}` } }),
      ),
    ).toMatchObject({ teamId: other });
    // A cookie routes only the page: the API still needs a key.
    expect(classify(req("/v1/search", { headers: { cookie } }))).toEqual({
      kind: "reject",
      code: "unauthorized",
    });
  });

  it("reads the path as the app's router does, percent-encoding included", () => {
    expect(classify(req("/v1/%74eams"))).toEqual({ kind: "admin" });
    expect(classify(req("/%68ealthz"))).toEqual({ kind: "service" });
  });

  it("takes only POST /v1/reindex, and answers unknown paths itself", () => {
    expect(classify(req("/v1/reindex", { method: "POST" }))).toEqual({ kind: "reindex" });
    expect(classify(req("/v1/reindex"))).toEqual({ kind: "reject", code: "not_found" });
    for (const path of ["/favicon.icon", "/wp-admin", "/pages", "/v1", "/v1/webhooks/other/x"]) {
      expect(classify(req(path, { key: keyA })), path).toEqual({ kind: "reject", code: "not_found" });
    }
  });
});

describe("reading keys and headers as the app does", () => {
  it("finds the same team in a key as the team directory", () => {
    const keys = [
      keyA,
      formatApiKey(teamA, "x"),
      `mem_${teamA}_`,
      `mem_${teamA}`,
      `mem_${teamA}x_y`,
      "mem_t_y",
      "mem__y",
      "",
      `MEM_${teamA}_y`,
      `mem_${teamA.slice(0, 10)}_y`,
      `mem_t${"0".repeat(16)}_y`,
    ];
    let routed = 0;
    for (const key of keys) {
      const teamId = teamIdOfApiKey(key);
      if (teamId !== null) routed++;
      expect(classify(req("/v1/search", { key })), JSON.stringify(key)).toEqual(
        teamId === null ? { kind: "reject", code: "unauthorized" } : { kind: "team", teamId, via: "key" },
      );
    }
    expect(routed).toBe(2);
    // A key no header can carry is still read alike by the one function both use.
    expect(teamIdOfApiKey(formatApiKey(teamA, "a\nb"))).toBe(teamA);
  });

  it("reads Authorization as the app's bearerToken", () => {
    for (const header of [
      `Bearer ${keyA}`,
      `bearer  ${keyA}  `,
      `Bearer ${keyA} extra`,
      "Bearer",
      "Basic x",
      "x",
    ]) {
      const request = req("/v1/search", { headers: { authorization: header } });
      expect(classify(request), header).toEqual(
        bearerToken(header) === keyA
          ? { kind: "team", teamId: teamA, via: "key" }
          : { kind: "reject", code: "unauthorized" },
      );
    }
    expect(bearerToken(`bearer  ${keyA}  `)).toBe(keyA);
    expect(bearerToken(`Bearer ${keyA} extra`)).toBeNull();
    expect(classify(req("/v1/search"))).toEqual({ kind: "reject", code: "unauthorized" });
  });
});

describe("the container's environment", () => {
  const key = masterKeyText(newMasterKey());
  const good = {
    MEMORIA_MASTER_KEY: key,
    MEMORIA_ADMIN_TOKEN: "admin-token-0123456789",
    MEMORIA_CRON_TOKEN: "cron-token-0123456789",
    MEMORIA_DB_URL: "libsql://memoria.example.turso.io",
    MEMORIA_DB_AUTH_TOKEN: "db-token",
    MEMORIA_LOG_LEVEL: "info",
  };

  it("passes every variable the config reads, fixes PORT, NODE_ENV and MEMORIA_HOST, and nothing else", () => {
    const env = {
      ...good,
      MEMORIA_DB_SYNC_INTERVAL: "7",
      MEMORIA_CATCHUP_MS: "",
      PORT: "1234",
      NODE_ENV: "development",
      MEMORIA_HOST: "127.0.0.1",
      MEMORIA: { binding: true },
      ACTIVE_TEAMS: { binding: true },
      OTHER_SECRET: "not for the container",
    };
    expect(containerEnv(env)).toEqual({
      ...good,
      MEMORIA_DB_SYNC_INTERVAL: "7",
      PORT: String(CONTAINER_PORT),
      NODE_ENV: "production",
      MEMORIA_HOST: "0.0.0.0",
      MEMORIA_TRUST_PROXY: "cf-connecting-ip",
    });
    expect(CONTAINER_PORT).toBe(8080);
  });

  it("accepts a complete environment, and an embedded replica of a remote primary", () => {
    expect(checkContainerEnv(good).production).toBe(true);
    const replica = {
      ...good,
      MEMORIA_DB_URL: "file:/tmp/replica.db",
      MEMORIA_DB_SYNC_URL: "libsql://p.example",
    };
    expect(checkContainerEnv(replica).db.syncUrl).toBe("libsql://p.example");
  });

  it("rejects a bad environment with parseConfig's own message", () => {
    const cases = [
      { MEMORIA_CRON_TOKEN: "short" },
      { MEMORIA_MASTER_KEY: "not a key" },
      { MEMORIA_LOG_LEVEL: "loud" },
      { MEMORIA_DB_URL: "postgres://db.example" },
    ];
    for (const change of cases) {
      const env = { ...good, ...change };
      const expected = messageOf(() => parseConfig({ ...env, NODE_ENV: "production", PORT: "8080" }));
      expect(expected).toMatch(/^Invalid configuration: /);
      expect(
        messageOf(() => checkContainerEnv(env)),
        JSON.stringify(change),
      ).toBe(expected);
    }
  });

  it("rejects a missing master key with the Node entry's production message", () => {
    const env = { ...good, MEMORIA_MASTER_KEY: "" };
    const node = messageOf(() => withLocalSecrets(parseConfig({ ...env, NODE_ENV: "production" })));
    expect(node).toContain("MEMORIA_MASTER_KEY is required in production");
    expect(messageOf(() => checkContainerEnv(env))).toBe(node);
  });

  it("checks each environment object once, keeping the config or the ConfigError", () => {
    const environments = new CheckedEnvironments();
    const env = { ...good };
    const config = environments.of(env);
    expect(config).not.toBeInstanceOf(ConfigError);
    expect(environments.of(env)).toBe(config);
    expect(environments.of({ ...good })).not.toBe(config);
    const bad = { ...good, MEMORIA_CRON_TOKEN: "short" };
    const error = environments.of(bad);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(messageOf(() => checkContainerEnv(bad)));
    expect(environments.of(bad)).toBe(error);
  });

  it("rejects a local database, which a sleeping container would lose", () => {
    for (const url of ["", "file:/data/memoria.db"]) {
      expect(messageOf(() => checkContainerEnv({ ...good, MEMORIA_DB_URL: url }))).toMatch(
        /MEMORIA_DB_URL must be a libsql:\/\/, https:\/\/ or wss:\/\/ URL on Cloudflare/,
      );
    }
  });
});

describe("reindex", () => {
  it("reads the optional team id of a reindex body", () => {
    expect(reindexTarget("")).toEqual({ teamId: null });
    expect(reindexTarget("{}")).toEqual({ teamId: null });
    expect(reindexTarget(JSON.stringify({ teamId: teamA }))).toEqual({ teamId: teamA });
    expect(reindexTarget("{")).toHaveProperty("invalid");
    // The container refuses any key but teamId; the Worker in front refuses it alike.
    expect(reindexTarget(JSON.stringify({ teamId: teamA, extra: 1 }))).toHaveProperty("invalid");
    expect(reindexTarget("[]")).toHaveProperty("invalid");
    expect(reindexTarget(JSON.stringify({ teamId: "nope" }))).toHaveProperty("invalid");
    expect(reindexTarget(JSON.stringify({ teamId: 7 }))).toHaveProperty("invalid");
  });

  it("joins the instances' team lists in order", () => {
    const merged = mergeReindexAnswers(
      [
        { teamId: "a", status: 200, answer: { teams: [{ teamId: "a" }], tookMs: 3 } },
        { teamId: "b", status: 200, answer: { teams: [{ teamId: "b" }, { teamId: "b2" }], tookMs: 4 } },
        { teamId: "c", status: 200, answer: null },
      ],
      12,
    );
    expect(merged).toEqual({ teams: [{ teamId: "a" }, { teamId: "b" }, { teamId: "b2" }], tookMs: 12 });
  });
});

describe("recording active teams", () => {
  it("records a team at most once per interval per isolate, and again after a failed write", () => {
    const throttle = new RecordThrottle(60_000, 3);
    expect(throttle.take("t1", 0)).toBe(true);
    expect(throttle.take("t1", 59_999)).toBe(false);
    expect(throttle.take("t2", 1)).toBe(true);
    expect(throttle.take("t1", 60_000)).toBe(true);
    throttle.release("t2");
    expect(throttle.take("t2", 2)).toBe(true);
    // Bounded: past its size it starts over.
    expect(throttle.take("t3", 3)).toBe(true);
    expect(throttle.take("t4", 4)).toBe(true);
    expect(throttle.take("t1", 61_000)).toBe(true);
  });

  it("keeps, per team, the latest time seen, and lists the teams seen since a time", () => {
    const db = new IndexDatabase(":memory:");
    const sql: SqlExec = {
      exec(query, ...bindings) {
        const statement = db.prepare(query);
        if (/^\s*SELECT/i.test(query)) {
          const rows = statement.all(...bindings) as Record<string, unknown>[];
          return { toArray: () => rows };
        }
        statement.run(...bindings);
        return { toArray: () => [] };
      },
    };
    const [t1, t2, t3] = [newId("t"), newId("t"), newId("t")].sort() as [string, string, string];
    const registry = new TeamRegistry(sql);
    new TeamRegistry(sql); // a second start over the same storage is harmless
    const now = 10 * REGISTRY_RETENTION_MS;
    registry.seen(t1, now - 1000);
    registry.seen(t2, now - 5000);
    registry.seen(t2, now - 100);
    registry.seen(t2, now - 9000); // never moves back
    registry.seen(t3, now - 10_000);
    registry.seen("not-a-team", now);
    expect(registry.list(now - 2000)).toEqual([t1, t2]);
    expect(registry.list(now - 20_000)).toEqual([t1, t2, t3]);
    // Teams not seen for longer than the retention are dropped.
    registry.list(now + REGISTRY_RETENTION_MS - 5000);
    expect(registry.list(0)).toEqual([t1, t2]);
    db.close();
  });
});

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}
