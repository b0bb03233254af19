// The Cloudflare Worker (src/runtime/worker.ts) under Node, with stand-ins for its two Durable Object
// namespaces: the containers' (which records the instance, by idFromName name, each request reached and
// answers as a container would) and the registry of active teams. Type-checked under Workers' types
// (tsconfig.worker.json); `cloudflare:workers` is test/support/cloudflare-workers.ts (vitest.config.ts).

import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { newId } from "../../src/ids.js";
import worker, { ActiveTeams, MemoriaContainer } from "../../src/runtime/worker.js";

const MASTER_KEY = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const ADMIN_TOKEN = "admin-token-0123456789";
const CRON_TOKEN = "cron-token-0123456789";

interface Call {
  instance: string;
  method: string;
  path: string;
  authorization: string | null;
  requestId: string | null;
  body: string;
}

type Answer = (instance: string, request: Request, body: string) => Response | Promise<Response>;

/** A container's answer: 200 JSON naming the instance; a reindex answers with the team as the route does. */
const containerAnswer: Answer = (instance, request, body) => {
  const path = new URL(request.url).pathname;
  if (path === "/v1/reindex") {
    const teamId = (JSON.parse(body || "{}") as { teamId?: string }).teamId ?? instance;
    return Response.json({ teams: [{ teamId, documents: 1 }], tookMs: 1 });
  }
  return Response.json({ instance, path });
};

/** The containers' namespace: records each request with the instance it reached. */
function containers(answer: Answer = containerAnswer) {
  const calls: Call[] = [];
  const namespace = {
    idFromName: (name: string) => ({ name }),
    get: (id: { name: string }) => ({
      async fetch(request: Request): Promise<Response> {
        const body = await request.text();
        calls.push({
          instance: id.name,
          method: request.method,
          path: new URL(request.url).pathname,
          authorization: request.headers.get("authorization"),
          requestId: request.headers.get("x-request-id"),
          body,
        });
        return answer(id.name, request, body);
      },
    }),
  };
  return { namespace: namespace as unknown as Env["MEMORIA"], calls };
}

/** The registry's namespace: one in-memory registry, whatever the instance name. */
function registry(initial: Record<string, number> = {}) {
  const seen = new Map<string, number>(Object.entries(initial));
  const writes: string[] = [];
  const stub = {
    async seen(teamId: string, at: number) {
      writes.push(teamId);
      seen.set(teamId, Math.max(at, seen.get(teamId) ?? 0));
    },
    async list(since: number) {
      return [...seen]
        .filter(([, at]) => at >= since)
        .map(([teamId]) => teamId)
        .sort();
    },
  };
  const namespace = { idFromName: (name: string) => ({ name }), get: () => stub };
  return { namespace: namespace as unknown as Env["ACTIVE_TEAMS"], seen, writes };
}

function setup(
  options: { answer?: Answer; env?: Partial<Record<string, string>>; active?: Record<string, number> } = {},
) {
  const memoria = containers(options.answer);
  const active = registry(options.active);
  const env = {
    MEMORIA_MASTER_KEY: MASTER_KEY,
    MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
    MEMORIA_CRON_TOKEN: CRON_TOKEN,
    MEMORIA_DB_URL: "libsql://memoria.example.turso.io",
    MEMORIA_DB_AUTH_TOKEN: "db-token",
    MEMORIA_LOG_LEVEL: "info",
    ...options.env,
    MEMORIA: memoria.namespace,
    ACTIVE_TEAMS: active.namespace,
  } as Env;
  const pending: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (promise: Promise<unknown>) => void pending.push(promise),
    passThroughOnException: () => {},
    props: {},
  } as unknown as ExecutionContext;
  const fetch = async (path: string, init: RequestInit & { key?: string } = {}) => {
    const { key, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key !== undefined) headers.set("authorization", `Bearer ${key}`);
    const response = await worker.fetch(
      new Request(`https://memoria.example${path}`, { ...rest, headers }),
      env,
      ctx,
    );
    await Promise.all(pending.splice(0));
    return response;
  };
  const scheduled = () =>
    worker.scheduled(
      { cron: "*/5 * * * *", scheduledTime: Date.now(), noRetry() {} } as ScheduledController,
      env,
      ctx,
    );
  return { env, fetch, scheduled, calls: memoria.calls, active };
}

const keyOf = (teamId: string) => `mem_${teamId}_${btoa(teamId).replaceAll("=", "")}_rest`;

async function expectEnvelope(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string; requestId: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.requestId).not.toBe("");
  expect(response.headers.get("x-request-id")).toBe(body.error.requestId);
  return body.error;
}

describe("Worker routing", () => {
  it("sends two teams' keys to two instances, and a team always to the same one", async () => {
    const { fetch, calls } = setup();
    const [a, b] = [newId("t"), newId("t")];
    for (const teamId of [a, b, a, b, a]) {
      const response = await fetch("/v1/search?q=notes", { key: keyOf(teamId) });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ instance: teamId, path: "/v1/search" });
    }
    expect(calls.map((c) => c.instance)).toEqual([a, b, a, b, a]);
    await fetch("/v1/documents", { method: "POST", key: keyOf(b), body: "{}" });
    await fetch("/mcp", { method: "POST", key: keyOf(a), body: "{}" });
    expect(calls.slice(-2).map((c) => [c.instance, c.path, c.body])).toEqual([
      [b, "/v1/documents", "{}"],
      [a, "/mcp", "{}"],
    ]);
    // The request reaches the container as sent: the key, and the Worker's request id.
    expect(calls[0]?.authorization).toBe(`Bearer ${keyOf(a)}`);
    expect(calls[0]?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("sends a webhook delivery to the team in its path", async () => {
    const { fetch, calls } = setup();
    const teamId = newId("t");
    for (const path of [`/v1/webhooks/notion/${teamId}/urltoken`, `/v1/webhooks/ingest/${teamId}`]) {
      const response = await fetch(path, {
        method: "POST",
        headers: { "webhook-id": "msg_1", "content-type": "application/json" },
        body: '{"type":"document.delete","data":{"externalId":"x"}}',
      });
      expect(response.status).toBe(200);
    }
    expect(calls.map((c) => [c.instance, c.path])).toEqual([
      [teamId, `/v1/webhooks/notion/${teamId}/urltoken`],
      [teamId, `/v1/webhooks/ingest/${teamId}`],
    ]);
    expect(calls[1]?.body).toBe('{"type":"document.delete","data":{"externalId":"x"}}');
  });

  it("answers a malformed key with 401 in the envelope and wakes no container", async () => {
    const { fetch, calls, active } = setup();
    const teamId = newId("t");
    const malformed: [string, RequestInit & { key?: string }][] = [
      ["wrong prefix", { key: `key_${teamId}_secret` }],
      ["bad team id", { key: "mem_TEAM-1_secret" }],
      ["short team id", { key: "mem_tabc_secret" }],
      ["no secret part", { key: `mem_${teamId}_` }],
      ["no separator", { key: `mem_${teamId}` }],
      ["not a bearer", { headers: { authorization: `Basic ${keyOf(teamId)}` } }],
      ["missing header", {}],
    ];
    for (const [name, init] of malformed) {
      const error = await expectEnvelope(await fetch("/v1/search?q=x", init), 401, "unauthorized");
      expect(error.message, name).toBe("Missing or invalid credentials.");
    }
    await expectEnvelope(await fetch("/v1/webhooks/ingest/nope", { method: "POST" }), 401, "unauthorized");
    await expectEnvelope(await fetch("/v1/webhooks/notion/nope/token", { method: "POST" }), 404, "not_found");
    await expectEnvelope(await fetch("/wp-login.php", { key: keyOf(teamId) }), 404, "not_found");
    expect(calls).toEqual([]);
    expect(active.writes).toEqual([]);
  });

  it("answers /mcp without a usable bearer with the 401 that starts an MCP client's sign-in, waking nothing", async () => {
    const { fetch, calls } = setup();
    const metadata = 'resource_metadata="https://memoria.example/.well-known/oauth-protected-resource/mcp"';
    const bare = await fetch("/mcp", { method: "POST" });
    await expectEnvelope(bare, 401, "unauthorized");
    expect(bare.headers.get("www-authenticate")).toBe(`Bearer ${metadata}, scope="read write"`);
    for (const key of ["moa_nope", "mor_tabcdefghijklmnop_refresh-is-not-a-bearer"]) {
      const response = await fetch("/mcp", { method: "POST", key });
      await expectEnvelope(response, 401, "unauthorized");
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer error="invalid_token", ${metadata}, scope="read write"`,
      );
    }
    expect(calls).toEqual([]);
  });

  it("keeps a caller's plain request id through the envelope", async () => {
    const { fetch } = setup();
    const response = await fetch("/v1/search", { headers: { "x-request-id": "trace-42" } });
    expect((await expectEnvelope(response, 401, "unauthorized")).requestId).toBe("trace-42");
  });

  it("sends health, the API description and admin to the fixed instance", async () => {
    const { fetch, calls } = setup();
    for (const path of ["/healthz", "/readyz", "/openapi.json", "/docs"]) {
      expect((await fetch(path)).status, path).toBe(200);
    }
    const teamId = newId("t");
    await fetch("/v1/teams", { method: "POST", key: ADMIN_TOKEN, body: '{"name":"Acme"}' });
    await fetch(`/v1/teams/${teamId}/keys`, { key: ADMIN_TOKEN });
    expect(calls.map((c) => c.instance)).toEqual(Array(6).fill("admin"));
    expect(calls.at(-1)?.path).toBe(`/v1/teams/${teamId}/keys`);
  });

  it("answers an admin request with a wrong or missing token without waking the fixed instance", async () => {
    const { fetch, calls } = setup();
    await expectEnvelope(await fetch("/v1/teams", { key: "wrong-admin-token-123" }), 401, "unauthorized");
    await expectEnvelope(await fetch("/v1/teams", { key: keyOf(newId("t")) }), 401, "unauthorized");
    await expectEnvelope(await fetch("/v1/teams"), 401, "unauthorized");
    expect(calls).toEqual([]);
    const disabled = setup({ env: { MEMORIA_ADMIN_TOKEN: "" } });
    const error = await expectEnvelope(
      await disabled.fetch("/v1/teams", { key: ADMIN_TOKEN }),
      403,
      "admin_disabled",
    );
    expect(error.message).toContain("MEMORIA_ADMIN_TOKEN");
    expect(disabled.calls).toEqual([]);
  });

  it("answers 503 in the envelope when an instance cannot start", async () => {
    const { fetch } = setup({
      answer: () => {
        throw new Error("container failed to start");
      },
    });
    const error = await expectEnvelope(
      await fetch("/v1/stats", { key: keyOf(newId("t")) }),
      503,
      "unavailable",
    );
    expect(error.message).not.toContain("container failed");
  });
});

/** The headers every answer carries, as docs/api.md's "Every answer" names them. */
const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

function expectSecurityHeaders(response: Response, what: string) {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    expect(response.headers.get(name), `${what}: ${name}`).toBe(value);
  }
}

/**
 * A container's answer as workerd's fetch gives it: headers that refuse every change. Node's fetch answers
 * are the same, but this test runs under Workers' types, without Node's HTTP server to fetch from.
 */
function withImmutableHeaders(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const method of ["set", "append", "delete"] as const) {
    Object.defineProperty(headers, method, {
      value: () => {
        throw new TypeError("Can't modify immutable headers.");
      },
    });
  }
  Object.defineProperty(response, "headers", { value: headers });
  return response;
}

describe("security headers", () => {
  it("are on every answer the Worker gives itself: 401, 404, 503 and the merged reindex", async () => {
    const { fetch } = setup({ active: { [newId("t")]: Date.now() } });
    expectSecurityHeaders(await fetch("/v1/search", { key: "mem_TEAM-1_secret" }), "malformed key");
    expectSecurityHeaders(await fetch("/v1/teams", { key: "wrong-admin-token-123" }), "wrong admin token");
    expectSecurityHeaders(
      await fetch("/v1/reindex", { method: "POST", key: "wrong-cron-token-0123" }),
      "wrong cron token",
    );
    expectSecurityHeaders(await fetch("/wp-login.php"), "unknown path");
    expectSecurityHeaders(await fetch("/v1/reindex", { method: "POST", key: CRON_TOKEN }), "merged reindex");
    const broken = setup({
      answer: () => {
        throw new Error("container failed to start");
      },
    });
    expectSecurityHeaders(await broken.fetch("/v1/stats", { key: keyOf(newId("t")) }), "no instance");
    const misconfigured = setup({ env: { MEMORIA_CRON_TOKEN: "short" } });
    expectSecurityHeaders(await misconfigured.fetch("/healthz"), "bad environment");
  });

  it("are added to a container's answer with immutable headers, which keeps its own headers and body", async () => {
    const teamId = newId("t");
    const { fetch } = setup({
      answer: (_instance, request) => {
        const path = new URL(request.url).pathname;
        const answer =
          path === "/v1/sources/webhook"
            ? Response.json(
                { secret: "whsec_stand-in" },
                { headers: { "cache-control": "no-store", "x-request-id": "from-container" } },
              )
            : Response.json(
                {
                  error: { code: "unauthorized", message: "Missing or invalid credentials.", requestId: "r" },
                },
                { status: 401, headers: { "www-authenticate": 'Bearer realm="memoria"' } },
              );
        return withImmutableHeaders(answer);
      },
    });
    const probe = withImmutableHeaders(new Response("x"));
    expect(() => probe.headers.set("x-test", "1")).toThrow(TypeError);

    const secret = await fetch("/v1/sources/webhook", { method: "PUT", key: keyOf(teamId) });
    expect(secret.status).toBe(200);
    expectSecurityHeaders(secret, "forwarded secret");
    expect(secret.headers.get("cache-control")).toBe("no-store");
    expect(await secret.json()).toEqual({ secret: "whsec_stand-in" });

    const refused = await fetch("/v1/search", { key: keyOf(teamId) });
    expect(refused.status).toBe(401);
    expectSecurityHeaders(refused, "forwarded 401");
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="memoria"');
    expect(refused.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  it("are added to an answer whose headers are immutable by the platform's own guard", async () => {
    // Response.redirect's headers are immutable in every runtime, as a fetch answer's are in workerd.
    const { fetch } = setup({ answer: () => Response.redirect("https://memoria.example/docs/", 302) });
    const response = await fetch("/docs");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("https://memoria.example/docs/");
    expectSecurityHeaders(response, "forwarded redirect");
  });
});

describe("the registry of active teams", () => {
  it("records a team after a successful request, once a minute per isolate, and never a rejected one", async () => {
    const forged = newId("t");
    const { fetch, active } = setup({
      answer: (instance, request, body) =>
        instance === forged
          ? Response.json({ error: { code: "unauthorized", message: "x", requestId: "r" } }, { status: 401 })
          : containerAnswer(instance, request, body),
    });
    const [a, b] = [newId("t"), newId("t")];
    await fetch("/v1/search", { key: keyOf(a) });
    await fetch("/v1/search", { key: keyOf(a) });
    await fetch(`/v1/webhooks/ingest/${b}`, { method: "POST", body: "{}" });
    await fetch("/v1/search", { key: keyOf(forged) });
    expect(active.writes).toEqual([a, b]);
    expect([...active.seen.keys()].sort()).toEqual([a, b].sort());
  });
});

describe("the cron", () => {
  it("sends POST /v1/reindex with the cron token to each team seen in the last hour", async () => {
    const [recent, older] = [newId("t"), newId("t")];
    const stale = newId("t");
    const now = Date.now();
    const { scheduled, calls } = setup({
      active: { [recent]: now - 60_000, [older]: now - 50 * 60_000, [stale]: now - 2 * 60 * 60_000 },
    });
    await scheduled();
    expect(calls.map((c) => c.instance).sort()).toEqual([recent, older].sort());
    for (const call of calls) {
      expect(call.method).toBe("POST");
      expect(call.path).toBe("/v1/reindex");
      expect(call.authorization).toBe(`Bearer ${CRON_TOKEN}`);
      expect(JSON.parse(call.body)).toEqual({ teamId: call.instance });
    }
  });

  it("pings teams the Worker saw, and fails the run (after asking every team) when a ping fails", async () => {
    const [a, b] = [newId("t"), newId("t")];
    const { fetch, scheduled, calls } = setup({
      answer: (instance, request, body) =>
        new URL(request.url).pathname === "/v1/reindex" && instance === a
          ? new Response("boom", { status: 500 })
          : containerAnswer(instance, request, body),
    });
    await fetch("/v1/memory", { key: keyOf(a) });
    await fetch("/v1/memory", { key: keyOf(b) });
    calls.splice(0);
    await expect(scheduled()).rejects.toThrow("Reindex ping failed on 1 of 2 teams.");
    expect(calls.map((c) => [c.instance, c.path]).sort()).toEqual(
      [
        [a, "/v1/reindex"],
        [b, "/v1/reindex"],
      ].sort(),
    );
  });

  it("does nothing, loudly, without a cron token", async () => {
    const { scheduled, calls } = setup({
      env: { MEMORIA_CRON_TOKEN: "" },
      active: { [newId("t")]: Date.now() },
    });
    await expect(scheduled()).rejects.toThrow("MEMORIA_CRON_TOKEN is not set");
    expect(calls).toEqual([]);
  });
});

describe("POST /v1/reindex from outside", () => {
  it("answers a wrong or missing token with 401 and wakes nothing", async () => {
    const { fetch, calls } = setup({ active: { [newId("t")]: Date.now() } });
    const teamId = newId("t");
    for (const init of [{ key: "wrong-cron-token-0123" }, { key: keyOf(teamId) }, {}]) {
      const response = await fetch("/v1/reindex", {
        method: "POST",
        body: JSON.stringify({ teamId }),
        ...init,
      });
      await expectEnvelope(response, 401, "unauthorized");
    }
    expect(calls).toEqual([]);
  });

  it("forwards a named team's reindex to that team's instance", async () => {
    const { fetch, calls } = setup();
    const teamId = newId("t");
    const response = await fetch("/v1/reindex", {
      method: "POST",
      key: CRON_TOKEN,
      body: JSON.stringify({ teamId }),
    });
    expect(response.status).toBe(200);
    expect(calls).toMatchObject([
      { instance: teamId, path: "/v1/reindex", authorization: `Bearer ${CRON_TOKEN}` },
    ]);
    expect(JSON.parse(calls[0]?.body ?? "")).toEqual({ teamId });
    await expectEnvelope(
      await fetch("/v1/reindex", { method: "POST", key: CRON_TOKEN, body: '{"teamId":"x"}' }),
      400,
      "invalid_request",
    );
    expect(calls).toHaveLength(1);
  });

  it("without a team, asks every active team and answers with their lists joined", async () => {
    const [a, b] = [newId("t"), newId("t")].sort() as [string, string];
    const { fetch, calls } = setup({ active: { [a]: Date.now(), [b]: Date.now() } });
    // The admin token is accepted too, as the API says.
    const response = await fetch("/v1/reindex", { method: "POST", key: ADMIN_TOKEN });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { teams: { teamId: string }[]; tookMs: number };
    expect(body.teams.map((t) => t.teamId)).toEqual([a, b]);
    expect(typeof body.tookMs).toBe("number");
    expect(calls.map((c) => c.instance)).toEqual([a, b]);
  });
});

describe("the fan-out", () => {
  it("asks at most four instances at once, every active team once, and answers in the registry's order", async () => {
    const teams = Array.from({ length: 10 }, () => newId("t")).sort();
    let running = 0;
    let most = 0;
    const { fetch, calls } = setup({
      active: Object.fromEntries(teams.map((teamId) => [teamId, Date.now()])),
      answer: async (instance, request, body) => {
        running++;
        most = Math.max(most, running);
        // Later teams answer sooner, so an answer kept in finishing order would come out reversed.
        await new Promise((resolve) => setTimeout(resolve, (teams.length - teams.indexOf(instance)) * 2));
        running--;
        return containerAnswer(instance, request, body);
      },
    });
    const response = await fetch("/v1/reindex", { method: "POST", key: CRON_TOKEN });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { teams: { teamId: string }[] };
    expect(body.teams.map((t) => t.teamId)).toEqual(teams);
    expect(calls.map((c) => c.instance).sort()).toEqual(teams);
    expect(most).toBe(4);
  });
});

describe("a bad environment", () => {
  it("answers 503 with the message parseConfig gives, and starts no container", async () => {
    const env = { MEMORIA_CRON_TOKEN: "short" };
    let expected = "";
    try {
      parseConfig({
        MEMORIA_MASTER_KEY: MASTER_KEY,
        MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
        MEMORIA_DB_URL: "libsql://memoria.example.turso.io",
        MEMORIA_DB_AUTH_TOKEN: "db-token",
        MEMORIA_LOG_LEVEL: "info",
        ...env,
        NODE_ENV: "production",
        PORT: "8080",
      });
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(expected).toBe("Invalid configuration: MEMORIA_CRON_TOKEN must be at least 16 characters.");
    const { fetch, scheduled, calls } = setup({ env, active: { [newId("t")]: Date.now() } });
    for (const path of ["/healthz", "/v1/search"]) {
      const teamId = newId("t");
      const error = await expectEnvelope(await fetch(path, { key: keyOf(teamId) }), 503, "unavailable");
      expect(error.message).toBe(expected);
    }
    await expect(scheduled()).rejects.toThrow(expected);
    expect(calls).toEqual([]);
  });
});

describe("MemoriaContainer", () => {
  /** The parts of a Durable Object's state the Container constructor touches, doing nothing. */
  const ctx = {
    container: { running: false },
    storage: { kv: { get: () => undefined }, sql: { exec: () => [] } },
    blockConcurrencyWhile: async () => {},
  } as unknown as ConstructorParameters<typeof MemoriaContainer>[0];

  it("starts the image on port 8080 with the Worker's environment, production, and internet access", () => {
    const env = {
      MEMORIA_MASTER_KEY: MASTER_KEY,
      MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      MEMORIA_CRON_TOKEN: CRON_TOKEN,
      MEMORIA_DB_URL: "libsql://memoria.example.turso.io",
      MEMORIA_DB_AUTH_TOKEN: "db-token",
      MEMORIA_LOG_LEVEL: "debug",
      MEMORIA_CATCHUP_MS: "",
      MEMORIA: {},
      ACTIVE_TEAMS: {},
    } as unknown as Env;
    const container = new MemoriaContainer(ctx, env);
    expect(container.defaultPort).toBe(8080);
    expect(container.sleepAfter).toBe("15m");
    expect(container.enableInternet).toBe(true);
    expect(container.envVars).toEqual({
      MEMORIA_MASTER_KEY: MASTER_KEY,
      MEMORIA_ADMIN_TOKEN: ADMIN_TOKEN,
      MEMORIA_CRON_TOKEN: CRON_TOKEN,
      MEMORIA_DB_URL: "libsql://memoria.example.turso.io",
      MEMORIA_DB_AUTH_TOKEN: "db-token",
      MEMORIA_LOG_LEVEL: "debug",
      NODE_ENV: "production",
      PORT: "8080",
      MEMORIA_HOST: "0.0.0.0",
      MEMORIA_TRUST_PROXY: "cf-connecting-ip",
    });
    // What the Worker checked is what the container gets.
    expect(parseConfig(container.envVars ?? {}).port).toBe(8080);
  });

  it("is exported with the registry class, as wrangler.toml binds them", () => {
    expect(typeof ActiveTeams).toBe("function");
    expect(typeof MemoriaContainer).toBe("function");
  });
});
