// Rate limits over real HTTP on loopback: failed authentications per client address (30 a minute, then 429
// before any key is checked), MEMORIA_RATE_LIMIT per credential (team keys, admin and cron tokens alike),
// and the fixed-window counter's own rules (Retry-After, the window's end, the bound on keys).

import { afterEach, describe, expect, it } from "vitest";
import type { AppConfig } from "../../src/app.js";
import type { Clock } from "../../src/clock.js";
import { AUTH_FAILURES_PER_MINUTE, FixedWindowCounter, RATE_WINDOW_MS } from "../../src/http/rate-limit.js";
import { chunk, chunkedPost, rawClient } from "../runtime/raw-http.js";
import { ADMIN_TOKEN, buildTestApp, CRON_TOKEN, makeTeam, type TestApp } from "../support/app.js";
import { type Served, serveOnLoopback } from "./loopback.js";

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 11, 1, 10, 0, 0)): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms) {
      now += ms;
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function served(config: Partial<AppConfig>, clock: Clock): Promise<{ app: TestApp; http: Served }> {
  const app = await buildTestApp({ config, clock });
  cleanups.push(() => app.close());
  const http = await serveOnLoopback(app);
  cleanups.push(() => http.close());
  return { app, http };
}

function get(http: Served, path: string, token?: string, headers: Record<string, string> = {}) {
  return fetch(`${http.base}${path}`, {
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
}

async function expectRateLimited(res: Response): Promise<number> {
  expect(res.status).toBe(429);
  const body = (await res.json()) as { error: { code: string; requestId: string } };
  expect(body.error.code).toBe("rate_limited");
  expect(body.error.requestId).not.toBe("");
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  return retryAfter;
}

describe("failed authentications per client address", () => {
  it("answers the 31st failed attempt, and then every request with credentials, 429 until the window passes", async () => {
    const clock = manualClock();
    const { app, http } = await served({}, clock);
    const { teamId, apiKey } = await makeTeam(app);
    const wrong = `mem_${teamId}_not-the-secret-at-all-0123456789`;

    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
      expect((await get(http, "/v1/stats", wrong)).status).toBe(401);
    }
    await expectRateLimited(await get(http, "/v1/stats", wrong));
    // Before any key is checked: the right key, the admin token, the cron token are all refused meanwhile.
    await expectRateLimited(await get(http, "/v1/stats", apiKey));
    await expectRateLimited(await get(http, "/v1/teams", ADMIN_TOKEN));
    await expectRateLimited(await get(http, "/mcp", apiKey));
    // A request without credentials is not an authentication attempt, and is not refused.
    expect((await get(http, "/healthz")).status).toBe(200);
    expect((await get(http, "/v1/stats")).status).toBe(401);

    clock.advance(30_000);
    const retryAfter = await expectRateLimited(await get(http, "/v1/stats", apiKey));
    expect(retryAfter).toBe(30);

    clock.advance(30_000);
    expect((await get(http, "/v1/stats", apiKey)).status).toBe(200);
    // A new window: wrong keys are 401 again, not 429.
    expect((await get(http, "/v1/stats", wrong)).status).toBe(401);
  });

  it("counts guesses sent all at once before any of them has failed", async () => {
    const { app, http } = await served({}, manualClock());
    const { teamId } = await makeTeam(app);
    const wrong = `mem_${teamId}_not-the-secret-at-all-0123456789`;
    const statuses = await Promise.all(
      Array.from(
        { length: AUTH_FAILURES_PER_MINUTE + 10 },
        async () => (await get(http, "/v1/stats", wrong)).status,
      ),
    );
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(AUTH_FAILURES_PER_MINUTE);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
  });

  it("counts webhook deliveries to a wrong path and sign-ins with a wrong key, which carry no bearer header", async () => {
    const { app, http } = await served({}, manualClock());
    const { teamId, apiKey } = await makeTeam(app);
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
      const res = await fetch(`${http.base}/v1/webhooks/notion/${teamId}/not-the-url-token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(res.status).toBe(404);
    }
    const limited = await fetch(`${http.base}/v1/webhooks/ingest/${teamId}`, { method: "POST", body: "{}" });
    await expectRateLimited(limited);
    // The page's sign-in from the same address is refused too, the right key included, until the window ends.
    const signIn = await fetch(`${http.base}/page/sign-in`, {
      method: "POST",
      headers: { origin: http.base, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: apiKey }).toString(),
      redirect: "manual",
    });
    await expectRateLimited(signIn);
  });

  it("counts sign-ins on the page with a wrong key", async () => {
    const { app, http } = await served({}, manualClock());
    const { teamId } = await makeTeam(app);
    const signIn = () =>
      fetch(`${http.base}/page/sign-in`, {
        method: "POST",
        headers: { origin: http.base, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ key: `mem_${teamId}_wrong-wrong-wrong-wrong` }).toString(),
        redirect: "manual",
      });
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) expect((await signIn()).status).toBe(401);
    await expectRateLimited(await signIn());
  });

  it("never counts valid requests in flight: 30 slow uploads open leave the address's other requests served", async () => {
    const { app, http } = await served({}, manualClock());
    const { teamId, apiKey } = await makeTeam(app);
    const port = Number(new URL(http.base).port);
    // Uploads with a valid key whose bodies are still arriving: authenticated, and answered only at their end.
    const uploads = await Promise.all(
      Array.from({ length: AUTH_FAILURES_PER_MINUTE }, async (_, i) => {
        const client = await rawClient(port);
        client.socket.write(
          chunkedPost(`/v1/documents?title=slow-${i}`, {
            authorization: `Bearer ${apiKey}`,
            "content-type": "text/markdown",
          }),
        );
        client.socket.write(chunk(`# Slow upload ${i}\n\nThe first part of its body.\n`));
        return client;
      }),
    );
    // Each is past its authentication once a request on its key is answered after it.
    await expect.poll(async () => (await get(http, "/v1/stats", apiKey)).status).toBe(200);

    expect((await get(http, "/v1/stats", apiKey)).status).toBe(200);
    expect((await get(http, "/v1/teams", ADMIN_TOKEN)).status).toBe(200);
    // A wrong key is a failure, and only that: 401, not 429, and the address has its whole allowance left.
    const wrong = `mem_${teamId}_not-the-secret-at-all-0123456789`;
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
      expect((await get(http, "/v1/stats", wrong)).status).toBe(401);
    }
    await expectRateLimited(await get(http, "/v1/stats", wrong));

    // The uploads were never held up: each ends and is stored.
    for (const [i, client] of uploads.entries()) {
      client.socket.write(chunk(`And its last part, ${i}.\n`));
      client.socket.write("0\r\n\r\n");
    }
    const answers = await Promise.all(uploads.map((client) => client.until(/^HTTP\/1\.1 \d{3}/)));
    expect(answers.map((answer) => answer.slice(0, 12))).toEqual(
      Array(AUTH_FAILURES_PER_MINUTE).fill("HTTP/1.1 201"),
    );
    for (const client of uploads) client.socket.destroy();
  });

  it("never counts webhook deliveries in flight once admitted on their headers, and counts their bad signatures", async () => {
    const clock = manualClock();
    const { app, http } = await served({}, clock);
    const { teamId, apiKey } = await makeTeam(app);
    expect((await app.request("/v1/sources/webhook", { method: "PUT", token: apiKey })).status).toBe(200);
    const port = Number(new URL(http.base).port);
    const deliveries = await Promise.all(
      Array.from({ length: AUTH_FAILURES_PER_MINUTE }, async (_, i) => {
        const client = await rawClient(port);
        client.socket.write(
          chunkedPost(`/v1/webhooks/ingest/${teamId}`, {
            "content-type": "application/json",
            "webhook-id": `msg_slow_${i}`,
            // Standard Webhooks checks the timestamp against the real time, not the app clock.
            "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
            "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")}`,
          }),
        );
        client.socket.write(chunk('{"type": "entry.create", '));
        return client;
      }),
    );
    await expect.poll(async () => (await get(http, "/v1/stats", apiKey)).status).toBe(200);
    expect((await get(http, "/v1/teams", ADMIN_TOKEN)).status).toBe(200);

    // Their signatures are wrong: each is a failure once its body has arrived and it is answered 401.
    for (const client of deliveries) client.socket.write(`${chunk('"data": {}}')}0\r\n\r\n`);
    const answers = await Promise.all(deliveries.map((client) => client.until(/^HTTP\/1\.1 \d{3}/)));
    expect(answers.map((answer) => answer.slice(0, 12))).toEqual(
      Array(AUTH_FAILURES_PER_MINUTE).fill("HTTP/1.1 401"),
    );
    for (const client of deliveries) client.socket.destroy();
    await expectRateLimited(await get(http, "/v1/stats", apiKey));
  });

  it("counts successful authentications as nothing", async () => {
    const { app, http } = await served({}, manualClock());
    const { apiKey } = await makeTeam(app);
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 10; i += 1) {
      expect((await get(http, "/v1/stats", apiKey)).status).toBe(200);
    }
  });

  it("behind a trusted proxy, counts the address in its header: the right-most entry of a list", async () => {
    const { http } = await served({ trustProxy: "x-forwarded-for" }, manualClock());
    const from = (address: string) => ({ "x-forwarded-for": `203.0.113.250, ${address}` });
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
      expect((await get(http, "/v1/teams", "wrong-token-0123456789", from("198.51.100.7"))).status).toBe(401);
    }
    await expectRateLimited(await get(http, "/v1/teams", ADMIN_TOKEN, from("198.51.100.7")));
    // Another client behind the same proxy (the same socket address) is not refused.
    expect((await get(http, "/v1/teams", ADMIN_TOKEN, from("198.51.100.8"))).status).toBe(200);
    // The left-most entry is the client's own word, and does not choose the bucket.
    expect(
      (await get(http, "/v1/teams", ADMIN_TOKEN, { "x-forwarded-for": "198.51.100.7, 198.51.100.9" })).status,
    ).toBe(200);
  });

  it("without a trusted proxy, ignores forwarding headers a client could write", async () => {
    const { http } = await served({}, manualClock());
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i += 1) {
      const spoofed = { "x-forwarded-for": `192.0.2.${i}` };
      expect((await get(http, "/v1/teams", "wrong-token-0123456789", spoofed)).status).toBe(401);
    }
    await expectRateLimited(await get(http, "/v1/teams", ADMIN_TOKEN, { "x-forwarded-for": "192.0.2.200" }));
  });
});

describe("MEMORIA_RATE_LIMIT per credential", () => {
  it("answers a key's 21st request of the minute 429 when the limit is 20, and no other key's", async () => {
    const clock = manualClock();
    const { app, http } = await served({ rateLimit: 20 }, clock);
    const first = await makeTeam(app, "First");
    const second = await makeTeam(app, "Second");
    for (let i = 0; i < 20; i += 1) expect((await get(http, "/v1/stats", first.apiKey)).status).toBe(200);
    const retryAfter = await expectRateLimited(await get(http, "/v1/stats", first.apiKey));
    expect(retryAfter).toBe(60);
    expect((await get(http, "/v1/stats", second.apiKey)).status).toBe(200);

    clock.advance(RATE_WINDOW_MS);
    expect((await get(http, "/v1/stats", first.apiKey)).status).toBe(200);
  });

  it("limits the admin and the cron token like team keys, each on its own", async () => {
    const { http } = await served({ rateLimit: 20 }, manualClock());
    // makeTeam is not used here: it would spend an admin request.
    for (let i = 0; i < 20; i += 1) expect((await get(http, "/v1/teams", ADMIN_TOKEN)).status).toBe(200);
    await expectRateLimited(await get(http, "/v1/teams", ADMIN_TOKEN));
    const reindex = () =>
      fetch(`${http.base}/v1/reindex`, {
        method: "POST",
        headers: { authorization: `Bearer ${CRON_TOKEN}` },
      });
    for (let i = 0; i < 20; i += 1) expect((await reindex()).status).toBe(200);
    await expectRateLimited(await reindex());
  });

  it("does not spend a key's budget on wrong guesses at it", async () => {
    const { app, http } = await served({ rateLimit: 20 }, manualClock());
    const { teamId, apiKey } = await makeTeam(app);
    for (let i = 0; i < 25; i += 1) {
      expect((await get(http, "/v1/stats", `mem_${teamId}_guess-${i}-0123456789`)).status).toBe(401);
    }
    expect((await get(http, "/v1/stats", apiKey)).status).toBe(200);
  });

  it("is off at 0", async () => {
    const { app, http } = await served({ rateLimit: 0 }, manualClock());
    const { apiKey } = await makeTeam(app);
    for (let i = 0; i < 60; i += 1) expect((await get(http, "/v1/stats", apiKey)).status).toBe(200);
  });
});

describe("FixedWindowCounter", () => {
  it("allows `limit` hits a window, then answers the seconds left, rounded up", () => {
    const clock = manualClock();
    const counter = new FixedWindowCounter({ limit: 3, windowMs: 60_000, maxKeys: 10, clock });
    expect([counter.hit("a"), counter.hit("a"), counter.hit("a")]).toEqual([null, null, null]);
    expect(counter.exhausted("a")).toBe(60);
    clock.advance(59_001);
    expect(counter.hit("a")).toBe(1);
    clock.advance(999);
    expect(counter.exhausted("a")).toBeNull();
    expect(counter.hit("a")).toBeNull();
  });

  it("counts at most maxKeys keys, evicting the window that began longest ago", () => {
    const clock = manualClock();
    const counter = new FixedWindowCounter({ limit: 1, windowMs: 60_000, maxKeys: 3, clock });
    for (const key of ["a", "b", "c"]) counter.hit(key);
    expect(counter.exhausted("a")).not.toBeNull();
    counter.hit("d");
    expect(counter.size).toBe(3);
    expect(counter.exhausted("a")).toBeNull();
    for (const key of ["b", "c", "d"]) expect(counter.exhausted(key)).not.toBeNull();
  });
});
